// Runs the built `tessera` executable through the index lifecycle (docs/indexes.md): create,
// inspect, maintain and drop indexes, query through them, and the distributed build in which
// separate processes build segments that one commit publishes.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_index_test {
namespace {

namespace fs = std::filesystem;

size_t CountOf(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

// The uuids of the segments in a JSON text (build-segment output, describe --format json).
std::vector<std::string> UuidsIn(const std::string& json) {
  // Plain string search: std::regex trips GCC 12's maybe-uninitialized warning in some builds.
  std::vector<std::string> uuids;
  const std::string key = "\"uuid\":";
  for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at + 1)) {
    const size_t open = json.find('"', at + key.size());
    const size_t close = open == std::string::npos ? open : json.find('"', open + 1);
    if (close == std::string::npos) break;
    uuids.push_back(json.substr(open + 1, close - open - 1));
  }
  return uuids;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ",") + item;
  return text;
}

class CliIndexTest : public CliFixture {
 protected:
  pid_t Start(const std::vector<std::string>& args, const std::string& out_path,
              const std::string& err_path) {
    return StartCli(args, out_path, err_path);
  }
  static int Wait(pid_t pid) { return WaitCli(pid); }

  // Runs a command with --explain that must succeed: every stderr line is an explain line.
  CliResult RunExplained(const std::vector<std::string>& args) {
    CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 0) << CommandLine(args) << "\nstderr: " << result.err;
    EXPECT_FALSE(result.err.empty()) << CommandLine(args);
    for (const auto& line : Lines(result.err)) {
      EXPECT_TRUE(StartsWith(line, "explain: ")) << CommandLine(args) << "\n" << line;
    }
    return result;
  }

  // The vector of the row with `id`, as JSON text ("[0.1,0.2,...]").
  std::string VectorOfRow(const std::string& ds, int id) {
    const std::string json = RunOk({"scan", ds, "--where", "id = " + std::to_string(id),
                                    "--columns", "vector", "--format", "json", "--limit", "1"});
    const size_t begin = json.find('[');
    const size_t end = json.find(']');
    EXPECT_NE(begin, std::string::npos) << json;
    return json.substr(begin, end - begin + 1);
  }
};

TEST_F(CliIndexTest, CliIndexLifecycleFromCreateToDrop) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "1200", "--dim", "8", "--fragment-rows", "400", "--seed",
         "1"});

  EXPECT_EQ(
      RunOk({"index", "create", ds, "--name", "price_idx", "--column", "price", "--type", "BTREE"}),
      "created index 'price_idx' (BTREE on price) in " + ds +
          ": version 2, 1 segment, 1200 rows in 3 fragments indexed\n");
  const std::vector<std::string> vector_index = {
      "--name",   "vec_idx", "--column",         "vector",  "--type",
      "ivf_flat", "--param", "num_partitions=4", "--param", "max_iters=10"};
  std::vector<std::string> create_vector = {"index", "create", ds};
  create_vector.insert(create_vector.end(), vector_index.begin(), vector_index.end());
  EXPECT_EQ(RunOk(create_vector), "created index 'vec_idx' (IVF_FLAT on vector) in " + ds +
                                      ": version 3, 1 segment, 1200 rows in 3 fragments indexed\n");

  // The name is taken; --if-not-exists keeps an equal definition, rejects another one.
  const std::string taken = RunFails(create_vector, "AlreadyExists");
  EXPECT_TRUE(Contains(taken, "vec_idx")) << taken;
  create_vector.push_back("--if-not-exists");
  EXPECT_EQ(RunOk(create_vector),
            "index 'vec_idx' already exists with this definition; " + ds + " stays at version 3\n");
  RunFails({"index", "create", ds, "--name", "PRICE_IDX", "--column", "price", "--type", "BTREE",
            "--param", "page_rows=64", "--if-not-exists"},
           "DefinitionMismatch");

  const auto list = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0],
            "name,column,type,params,segments,indexed_rows,indexed_fragments,unindexed_rows,"
            "unindexed_fragments");
  EXPECT_EQ(list[1], "price_idx,price,BTREE,page_rows=4096,1,1200,3,0,0");
  EXPECT_EQ(list[2],
            "vec_idx,vector,IVF_FLAT,\"max_iters=10, metric=l2, num_partitions=4, "
            "sample_rate=256, seed=42\",1,1200,3,0,0");
  // The table is for people; the index of an old version is listed as it was.
  const std::string table = RunOk({"index", "list", ds});
  EXPECT_TRUE(StartsWith(table, " name      | column | type")) << table;
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--version", "2", "--format", "csv"})).size(), 2u);

  const auto entries = Lines(RunOk({"index", "entries", ds, "--format", "json"}));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(StartsWith(entries[0], "{\"index\":\"price_idx\",\"type\":\"BTREE\",\"segment\":"))
      << entries[0];
  EXPECT_TRUE(Contains(entries[0], "\"dataset_version\":1,\"fragments\":[0,1,2],\"rows\":1200"))
      << entries[0];
  EXPECT_TRUE(StartsWith(entries[1], "{\"index\":\"vec_idx\",\"type\":\"IVF_FLAT\"")) << entries[1];

  const std::string described = RunOk({"index", "describe", ds, "--name", "VEC_IDX"});
  EXPECT_TRUE(StartsWith(described,
                         "index:      vec_idx\ncolumn:     vector\ntype:       "
                         "IVF_FLAT\nparams:     max_iters=10, metric=l2, "
                         "num_partitions=4, sample_rate=256, seed=42\nsegments:   1\n"
                         "indexed:    1200 rows in 3 fragments\nunindexed:  0 rows in "
                         "0 fragments\n"))
      << described;
  EXPECT_TRUE(Contains(described, "num_partitions=4")) << described;
  EXPECT_TRUE(Contains(described, "(1 row)")) << described;
  const std::string described_json =
      RunOk({"index", "describe", ds, "--name", "price_idx", "--format", "json"});
  EXPECT_TRUE(Contains(described_json, "\"params\":{\"page_rows\":\"4096\"},\"num_segments\":1"))
      << described_json;
  EXPECT_EQ(UuidsIn(described_json).size(), 1u) << described_json;
  RunFails({"index", "describe", ds, "--name", "vec_idx", "--version", "2"}, "NotFound");

  // New rows are not indexed until optimize.
  RunOk({"gen", Path("more.arrow"), "--rows", "300", "--dim", "8", "--seed", "2"});
  RunOk({"append", ds, "--from", Path("more.arrow")});
  const auto appended = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
  ASSERT_EQ(appended.size(), 3u);
  EXPECT_EQ(appended[1], "price_idx,price,BTREE,page_rows=4096,1,1200,3,300,1");
  EXPECT_TRUE(Contains(RunOk({"info", ds}),
                       "indexes:    2 (price_idx: BTREE on price, vec_idx: "
                       "IVF_FLAT on vector)\n"));

  // A filtered scan uses the BTREE index where it covers the fragments and scans the rest.
  const std::vector<std::string> filtered = {"scan",      ds,         "--where",  "price < 8",
                                             "--columns", "id,price", "--format", "csv"};
  std::vector<std::string> explained_scan = filtered;
  explained_scan.push_back("--explain");
  const CliResult scan = RunExplained(explained_scan);
  EXPECT_TRUE(Contains(scan.err, "explain: fragments [0..2]: BTREE index 'price_idx'")) << scan.err;
  EXPECT_TRUE(Contains(scan.err, "explain: fragment 3: scan")) << scan.err;
  const std::string indexed_rows = RunOk(filtered);
  EXPECT_EQ(scan.out, indexed_rows);
  const std::string matching = RunOk({"count", ds, "--where", "price < 8"});
  EXPECT_EQ(std::to_string(Lines(indexed_rows).size() - 1) + "\n", matching);
  EXPECT_GT(Lines(indexed_rows).size(), 10u);

  EXPECT_EQ(RunOk({"index", "optimize", ds}),
            "optimized " + ds +
                ": version 6; built 2 segments, merged 0 segments, removed 0 segments\n"
                "  price_idx: 2 segments, 1500 rows in 4 fragments indexed\n"
                "  vec_idx: 2 segments, 1500 rows in 4 fragments indexed\n");
  EXPECT_EQ(RunOk({"index", "optimize", ds}), "nothing to do; " + ds + " stays at version 6\n");
  EXPECT_EQ(RunOk({"index", "optimize", ds, "--name", "price_idx", "--merge", "1"}),
            "optimized " + ds +
                ": version 7; built 0 segments, merged 2 segments, removed 0 segments\n"
                "  price_idx: 1 segment, 1500 rows in 4 fragments indexed\n");
  const auto optimized = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
  ASSERT_EQ(optimized.size(), 3u);
  EXPECT_EQ(optimized[1], "price_idx,price,BTREE,page_rows=4096,1,1500,4,0,0");
  EXPECT_TRUE(StartsWith(optimized[2], "vec_idx,vector,IVF_FLAT,")) << optimized[2];
  EXPECT_TRUE(Contains(optimized[2], ",2,1500,4,0,0")) << optimized[2];
  EXPECT_EQ(Lines(RunOk({"index", "entries", ds, "--format", "csv"})).size(), 4u);
  RunFails({"index", "optimize", ds, "--merge", "some"}, "InvalidArgument");
  RunFails({"index", "optimize", ds, "--name", "nope"}, "NotFound");

  // After optimize the BTREE index answers every fragment.
  const CliResult rescan = RunExplained(explained_scan);
  EXPECT_TRUE(Contains(rescan.err, "explain: fragments [0..3]: BTREE index 'price_idx'"))
      << rescan.err;
  EXPECT_EQ(rescan.out, indexed_rows);

  // Search: a row's own vector is its nearest neighbour, at distance 0.
  const std::string query = VectorOfRow(ds, 7);
  const CliResult nearest =
      RunExplained({"search", ds, "--column", "vector", "--vector", query, "--k", "3", "--nprobes",
                    "4", "--columns", "id", "--format", "csv", "--explain"});
  const auto found = Lines(nearest.out);
  ASSERT_EQ(found.size(), 4u) << nearest.out;
  EXPECT_EQ(found[0], "id,_distance");
  EXPECT_EQ(found[1], "7,0");
  EXPECT_TRUE(Contains(nearest.err, "explain: nearest: column 'vector', metric l2")) << nearest.err;
  EXPECT_TRUE(Contains(nearest.err, "IVF_FLAT index 'vec_idx'")) << nearest.err;

  // A prefilter returns k rows that pass; a post-filter keeps those of the k nearest that pass.
  const auto prefiltered = Lines(
      RunOk({"search", ds, "--column", "vector", "--vector", query, "--k", "5", "--where",
             "category = 'books'", "--prefilter", "--columns", "id,category", "--format", "csv"}));
  ASSERT_EQ(prefiltered.size(), 6u);
  for (size_t i = 1; i < prefiltered.size(); ++i) {
    EXPECT_TRUE(Contains(prefiltered[i], ",books,")) << prefiltered[i];
  }
  const auto postfiltered =
      Lines(RunOk({"search", ds, "--column", "vector", "--vector", query, "--k", "5", "--where",
                   "category = 'books'", "--columns", "id,category", "--format", "csv"}));
  EXPECT_LE(postfiltered.size(), 6u);

  // Several queries from a file: a column `query` numbers them.
  RunOk({"gen", Path("queries.arrow"), "--queries", "4", "--dim", "8"});
  const auto batch =
      Lines(RunOk({"search", ds, "--column", "vector", "--queries", Path("queries.arrow"), "--k",
                   "2", "--columns", "id", "--with-row-address", "--format", "csv"}));
  ASSERT_EQ(batch.size(), 9u);
  EXPECT_EQ(batch[0], "query,id,_distance,_rowaddr");
  EXPECT_TRUE(StartsWith(batch[1], "0,"));
  EXPECT_TRUE(StartsWith(batch[8], "3,"));

  EXPECT_EQ(RunOk({"index", "drop", ds, "--name", "Price_Idx"}),
            "dropped index 'price_idx' from " + ds + ": version 8\n");
  RunFails({"index", "drop", ds, "--name", "price_idx"}, "NotFound");
  EXPECT_EQ(RunOk({"index", "drop", ds, "--name", "price_idx", "--if-exists"}),
            "no index named 'price_idx'; " + ds + " stays at version 8\n");
  // Without the index the scan reads every fragment, with the same answer.
  const CliResult unindexed = RunExplained(explained_scan);
  EXPECT_FALSE(Contains(unindexed.err, "BTREE")) << unindexed.err;
  EXPECT_EQ(unindexed.out, indexed_rows);
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 2u);

  // Segment directories no version references are removed by cleanup.
  const std::string cleaned = RunOk({"cleanup", ds, "--older-than", "0s"});
  EXPECT_GE(CountOf(cleaned, "_indices/"), 3u) << cleaned;
  EXPECT_TRUE(Contains(RunOk({"index", "list", ds}), "vec_idx"));
}

TEST_F(CliIndexTest, CliIndexDistributedBuildEqualsOneShotBuild) {
  const std::string ds = Path("ds");
  const std::string reference = Path("reference");
  RunOk({"gen", "--dataset", ds, "--rows", "1500", "--dim", "8", "--fragment-rows", "250", "--seed",
         "3"});
  fs::copy(ds, reference, fs::copy_options::recursive);
  const std::string model = Path("model.bin");
  const std::vector<std::string> params = {"--param", "num_partitions=6", "--param",
                                           "max_iters=10"};
  const std::string trained = RunOk(With(
      {"index", "train", ds, "--column", "vector", "--type", "IVF_FLAT", "--out", model}, params));
  EXPECT_TRUE(StartsWith(trained, "wrote IVF_FLAT model ")) << trained;
  EXPECT_TRUE(Contains(trained, "(column vector, version 1) to " + model)) << trained;
  RunFails(With({"index", "train", ds, "--column", "vector", "--type", "IVF_FLAT", "--out", model},
                params),
           "AlreadyExists");

  // Three workers, three processes at once, each over its own fragments; the model carries
  // the parameters.
  const std::vector<std::string> fragment_sets = {"0,1", "2,3", "4,5"};
  std::vector<pid_t> workers;
  std::vector<std::string> segment_files;
  for (size_t i = 0; i < fragment_sets.size(); ++i) {
    segment_files.push_back(Path("seg" + std::to_string(i + 1) + ".json"));
    workers.push_back(
        Start({"index", "build-segment", ds, "--name", "vec", "--column", "vector", "--type",
               "IVF_FLAT", "--fragments", fragment_sets[i], "--model", model},
              segment_files.back(), Path("worker" + std::to_string(i) + ".err")));
  }
  std::vector<std::string> worker_uuids;
  for (size_t i = 0; i < workers.size(); ++i) {
    EXPECT_EQ(Wait(workers[i]), 0) << ReadWholeFile(Path("worker" + std::to_string(i) + ".err"));
    const auto uuids = UuidsIn(ReadWholeFile(segment_files[i]));
    ASSERT_EQ(uuids.size(), 1u) << ReadWholeFile(segment_files[i]);
    worker_uuids.push_back(uuids[0]);
  }
  // Building commits nothing.
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 1u);

  const std::vector<std::string> spec = {"--name", "vec",    "--column",
                                         "vector", "--type", "IVF_FLAT"};
  std::vector<std::string> commit = With({"index", "commit-segments", ds}, spec);
  commit = With(commit, params);
  commit.push_back("--segments");
  commit.insert(commit.end(), segment_files.begin(), segment_files.end());
  EXPECT_EQ(RunOk(commit), "committed 3 segments to index 'vec' (IVF_FLAT on vector) in " + ds +
                               ": version 2, 3 segments, 1500 rows in 6 fragments indexed\n");

  // The reference: one segment over every fragment, built with the same model.
  const std::string all = Path("all.json");
  WriteWholeFile(all, RunOk(With({"index", "build-segment", reference, "--model", model}, spec)));
  RunOk(With(With({"index", "commit-segments", reference}, spec), {"--segments", all}));

  RunOk({"gen", Path("queries.arrow"), "--queries", "5", "--dim", "8", "--seed", "4"});
  auto search = [&](const std::string& dataset, const std::string& nprobes) {
    return RunOk({"search", dataset, "--column", "vector", "--queries", Path("queries.arrow"),
                  "--k", "10", "--nprobes", nprobes, "--columns", "id", "--with-row-address",
                  "--format", "csv"});
  };
  // One probe: equal only if the segments hold the same partitions as the one-shot build.
  const std::string one_probe = search(ds, "1");
  EXPECT_EQ(Lines(one_probe).size(), 51u);
  EXPECT_EQ(one_probe, search(reference, "1"));
  // Every partition probed: the exact answer, which the unindexed version 1 also gives.
  const std::string exact = search(ds, "6");
  EXPECT_NE(one_probe, exact);  // so that the comparison above says something
  EXPECT_EQ(exact, search(reference, "6"));
  EXPECT_EQ(exact, RunOk({"search", ds, "--version", "1", "--column", "vector", "--queries",
                          Path("queries.arrow"), "--k", "10", "--columns", "id",
                          "--with-row-address", "--format", "csv"}));

  // The search goes through the three segments of the index.
  const CliResult explained =
      RunExplained({"search", ds, "--column", "vector", "--queries", Path("queries.arrow"), "--k",
                    "10", "--nprobes", "1", "--columns", "id", "--explain"});
  EXPECT_EQ(CountOf(explained.err, "explain: query 0: fragments"), 3u) << explained.err;
  EXPECT_EQ(CountOf(explained.err, "IVF_FLAT index 'vec'"), 15u) << explained.err;

  // merge-segments rewrites the three into one, which replaces them in one commit.
  const std::string merged = Path("merged.json");
  WriteWholeFile(merged, RunOk({"index", "merge-segments", ds, "--segments", segment_files[0],
                                segment_files[1], segment_files[2]}));
  ASSERT_EQ(UuidsIn(ReadWholeFile(merged)).size(), 1u);
  std::vector<std::string> replace = With({"index", "commit-segments", ds}, spec);
  replace = With(replace, params);
  replace = With(replace, {"--segments", merged, "--replace-segments", Joined(worker_uuids)});
  EXPECT_EQ(RunOk(replace),
            "committed 1 segment replacing 3 to index 'vec' (IVF_FLAT on vector) "
            "in " +
                ds +
                ": version 3, 1 segment, 1500 rows in 6 fragments "
                "indexed\n");
  EXPECT_EQ(search(ds, "1"), one_probe);

  // Segments of one index must not overlap, among themselves or with committed ones.
  const std::string first = Path("first.json");
  const std::string second = Path("second.json");
  WriteWholeFile(
      first,
      RunOk(With({"index", "build-segment", ds, "--fragments", "0,1", "--model", model}, spec)));
  WriteWholeFile(
      second,
      RunOk(With({"index", "build-segment", ds, "--fragments", "1,2", "--model", model}, spec)));
  std::vector<std::string> overlapping = {
      "index", "commit-segments", ds, "--name", "vec2", "--column", "vector", "--type", "IVF_FLAT"};
  overlapping = With(With(overlapping, params), {"--segments", first, second});
  const std::string overlap = RunFails(overlapping, "InvalidArgument");
  EXPECT_TRUE(Contains(overlap, "overlap")) << overlap;
  const std::string overlap_committed = RunFails(
      With(With(With({"index", "commit-segments", ds}, spec), params), {"--segments", first}),
      "InvalidArgument");
  EXPECT_TRUE(Contains(overlap_committed, "overlap")) << overlap_committed;
  // Nothing was committed.
  EXPECT_EQ(Lines(RunOk({"index", "entries", ds, "--format", "csv"})).size(), 2u);

  // Parameters that differ from the training's, for a worker or for the commit.
  const std::string mismatch = RunFails(
      With({"index", "build-segment", ds, "--model", model, "--param", "num_partitions=5"}, spec),
      "InvalidArgument");
  EXPECT_TRUE(Contains(mismatch, "was trained with")) << mismatch;
  RunFails(With(With({"index", "commit-segments", reference}, spec),
                {"--param", "num_partitions=7", "--segments", first}),
           "DefinitionMismatch");
  RunFails(
      {"index", "train", ds, "--column", "price", "--type", "BTREE", "--out", Path("btree.model")},
      "InvalidArgument");
  RunFails({"index", "merge-segments", ds, "--segments", Path("missing.json")}, "NotFound");
  WriteWholeFile(Path("garbage.json"), "{not json");
  RunFails(With({"index", "commit-segments", ds, "--segments", Path("garbage.json")}, spec),
           "InvalidArgument");
}

TEST_F(CliIndexTest, CliIndexErrors) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "100", "--dim", "4"});
  const std::string unknown = RunFails(
      {"index", "create", ds, "--name", "x", "--column", "price", "--type", "HNSW"}, "NotFound");
  EXPECT_TRUE(Contains(unknown, "unknown index type 'HNSW'")) << unknown;
  EXPECT_TRUE(Contains(unknown, "BTREE")) << unknown;
  // Missing --name is a usage error, with a hint naming the subcommand.
  CliResult missing = Run({"index", "create", ds, "--column", "price", "--type", "BTREE"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(StartsWith(missing.err, "error: InvalidArgument: --name is required")) << missing.err;
  EXPECT_TRUE(Contains(missing.err, "Run 'tessera index create --help' for usage.")) << missing.err;
  RunFails({"index"}, "InvalidArgument", 2);
  RunFails({"index", "frobnicate", ds}, "InvalidArgument", 2);
  RunFails({"index", "create", ds, "--name", "x", "--column", "nope", "--type", "BTREE"},
           "NotFound");
  RunFails({"index", "create", ds, "--name", "x", "--column", "vector", "--type", "BTREE"},
           "Unsupported");
  RunFails({"index", "create", ds, "--name", "x", "--column", "price", "--type", "BTREE", "--param",
            "page_rows=1"},
           "InvalidArgument");
  RunFails({"index", "create", ds, "--name", "x", "--column", "price", "--type", "BTREE", "--param",
            "no_equals_sign"},
           "InvalidArgument");
  RunFails({"index", "create", ds, "--name", "bad name", "--column", "price", "--type", "BTREE"},
           "InvalidArgument");
  RunFails({"index", "create", ds, "--name", "x", "--column", "price", "--type", "BTREE",
            "--if-not-exists", "--replace"},
           "InvalidArgument");
  RunFails({"index", "build-segment", ds, "--name", "x", "--column", "price", "--type", "BTREE",
            "--fragments", "7"},
           "InvalidArgument");
  RunFails({"index", "build-segment", ds, "--name", "x", "--column", "price", "--type", "BTREE",
            "--fragments", "-1"},
           "InvalidArgument", 2);
  RunFails({"index", "list", Path("nowhere")}, "NotFound");
  // Nothing above committed a version.
  EXPECT_EQ(Lines(RunOk({"versions", ds, "--format", "csv"})).size(), 2u);

  // --replace rebuilds in place, keeping the index's name.
  RunOk({"index", "create", ds, "--name", "p", "--column", "price", "--type", "BTREE"});
  EXPECT_EQ(RunOk({"index", "create", ds, "--name", "p", "--column", "price", "--type", "BTREE",
                   "--param", "page_rows=16", "--replace"}),
            "replaced index 'p' (BTREE on price) in " + ds +
                ": version 3, 1 segment, 100 rows in 1 fragment indexed\n");

  const std::string vector = "[0.1, 0.2, 0.3, 0.4]";
  RunFails({"search", ds, "--column", "vector", "--k", "3"}, "InvalidArgument");
  RunFails({"search", ds, "--column", "vector", "--vector", vector, "--queries", Path("q.arrow"),
            "--k", "3"},
           "InvalidArgument");
  RunFails({"search", ds, "--column", "vector", "--vector", "[0.1, 0.2]", "--k", "3"},
           "InvalidArgument");
  const std::string garbled =
      RunFails({"search", ds, "--column", "vector", "--vector", "[0.1, x, 0.3, 0.4]", "--k", "3"},
               "InvalidArgument");
  EXPECT_TRUE(Contains(garbled, "'x' is not a number")) << garbled;
  RunFails({"search", ds, "--column", "price", "--vector", vector, "--k", "3"}, "InvalidArgument");
  RunFails({"search", ds, "--column", "vector", "--vector", vector, "--k", "0"}, "InvalidArgument",
           2);
  RunFails({"search", ds, "--column", "vector", "--vector", vector, "--k", "3", "--prefilter"},
           "InvalidArgument");
  RunFails({"search", ds, "--column", "vector", "--vector", vector, "--k", "3", "--metric", "l3"},
           "InvalidArgument", 2);
  RunFails({"search", ds, "--column", "vector", "--queries", Path("missing.arrow"), "--k", "3"},
           "NotFound");
  // Blank-separated numbers are accepted too.
  EXPECT_EQ(Lines(RunOk({"search", ds, "--column", "vector", "--vector", "0.1 0.2 0.3 0.4", "--k",
                         "3", "--metric", "COSINE", "--format", "csv"}))
                .size(),
            4u);
}

}  // namespace
}  // namespace tessera::testing::cli_index_test
