// The CLI's reads through the one index-aware read path (docs/cli.md): `count --explain` and
// `delete --explain` name the index that answered on standard error and print what they printed
// before on standard output, and `scan` prints the same rows with and without an index.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_read_test {
namespace {

class CliReadTest : public CliFixture {
 protected:
  void SetUp() override {
    ds_ = Path("ds");
    RunOk({"gen", "--dataset", ds_, "--rows", "1200", "--dim", "4", "--fragment-rows", "400",
           "--seed", "3"});
  }

  // Runs a command with --explain that must succeed: every stderr line is an explain line.
  CliResult RunExplained(std::vector<std::string> args) {
    args.push_back("--explain");
    CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 0) << CommandLine(args) << "\nstderr: " << result.err;
    EXPECT_FALSE(result.err.empty()) << CommandLine(args);
    for (const auto& line : Lines(result.err)) {
      EXPECT_TRUE(StartsWith(line, "explain: ")) << CommandLine(args) << "\n" << line;
    }
    return result;
  }

  void CreateIndexes() {
    RunOk({"index", "create", ds_, "--name", "id_idx", "--column", "id", "--type", "BTREE"});
    RunOk({"index", "create", ds_, "--name", "price_idx", "--column", "price", "--type", "BTREE"});
  }

  std::string ds_;
};

const std::vector<std::string>& Filters() {
  static const std::vector<std::string> filters = {
      "id < 100",
      "id = 5 OR id IN (7, 8)",
      "NOT (id >= 10) AND id IS NOT NULL",
      "price < 20 AND category = 'books'",
      "price < 10 OR id > 1150",
      "category = 'home'",
  };
  return filters;
}

// Two equal datasets with equal histories, one indexed: every scan prints the same bytes, through
// deletes, an unindexed append and an optimize.
TEST_F(CliReadTest, ScanPrintsTheSameRowsWithAndWithoutAnIndex) {
  const std::string plain = Path("plain");
  RunOk({"gen", "--dataset", plain, "--rows", "1200", "--dim", "4", "--fragment-rows", "400",
         "--seed", "3"});
  CreateIndexes();
  RunOk({"gen", Path("more.arrow"), "--rows", "100", "--dim", "4", "--seed", "4"});
  // Every filter as csv (with --explain too, at first), and one in the other shapes.
  const auto expect_same_scans = [&](const std::string& stage, bool every_shape) {
    std::vector<std::vector<std::string>> scans;
    for (const auto& filter : Filters()) scans.push_back({"--where", filter, "--format", "csv"});
    for (const std::string filter : {"price < 10 OR id > 1150"}) {
      scans.push_back(
          {"--where", filter, "--columns", "price,id", "--with-row-address", "--format", "json"});
      scans.push_back({"--where", filter, "--limit", "3"});
    }
    for (std::vector<std::string> scan : scans) {
      scan.insert(scan.begin(), {"scan", ds_});
      const std::string indexed = RunOk(scan);
      if (every_shape && scan.back() == "csv") {
        EXPECT_EQ(RunExplained(scan).out, indexed) << stage << ": " << CommandLine(scan);
      }
      scan[1] = plain;
      const std::string unindexed = RunOk(scan);
      EXPECT_EQ(indexed, unindexed) << stage << ": " << CommandLine(scan);
      EXPECT_GT(Lines(unindexed).size(), 1u) << stage << ": " << CommandLine(scan);
    }
  };
  ASSERT_NO_FATAL_FAILURE(expect_same_scans("indexed", true));
  for (const std::string& dataset : {ds_, plain}) {
    RunOk({"delete", dataset, "--where", "id IN (3, 7, 500, 1199) OR price < 2"});
    RunOk({"append", dataset, "--from", Path("more.arrow")});
  }
  ASSERT_NO_FATAL_FAILURE(expect_same_scans("after a delete and an append", false));
  RunOk({"index", "optimize", ds_});
  ASSERT_NO_FATAL_FAILURE(expect_same_scans("optimized", false));
}

TEST_F(CliReadTest, CountExplainsWhichIndexAnswered) {
  std::vector<std::string> unindexed;
  for (const auto& filter : Filters())
    unindexed.push_back(RunOk({"count", ds_, "--where", filter}));
  CreateIndexes();
  const std::string id_uuid_prefix = "BTREE index 'id_idx' segment ";
  for (size_t i = 0; i < Filters().size(); ++i) {
    const std::vector<std::string> count = {"count", ds_, "--where", Filters()[i]};
    EXPECT_EQ(RunOk(count), unindexed[i]) << Filters()[i];
    const CliResult explained = RunExplained(count);
    EXPECT_EQ(explained.out, unindexed[i]) << Filters()[i];
    if (i == 0) {  // one predicate: counted from the BTREE's pages
      EXPECT_TRUE(Contains(explained.err, "explain: fragments [0..2]: BTREE index 'id_idx' counts"))
          << explained.err;
    } else if (i < 3) {  // exact on id: the index answers fragment 0, statistics the others
                         // (ids ascend, so the later fragments' ranges decide the predicates)
      EXPECT_TRUE(Contains(explained.err, "explain: fragment 0: " + id_uuid_prefix))
          << explained.err;
      EXPECT_TRUE(Contains(explained.err, "exact)")) << explained.err;
    }
  }
  const CliResult mixed =
      RunExplained({"count", ds_, "--where", "price < 20 AND category = 'books'"});
  EXPECT_TRUE(Contains(mixed.err, "BTREE index 'price_idx'")) << mixed.err;
  EXPECT_TRUE(Contains(mixed.err, "rechecked)")) << mixed.err;
  const CliResult scanned = RunExplained({"count", ds_, "--where", "category = 'home'"});
  EXPECT_TRUE(Contains(scanned.err, "scan (no index answers predicates on category)"))
      << scanned.err;
  const CliResult metadata = RunExplained({"count", ds_});
  EXPECT_EQ(metadata.out, "1200\n");
  EXPECT_TRUE(Contains(metadata.err, "counted from metadata")) << metadata.err;

  // A fragment appended after the index is not covered by it: its statistics answer (every id
  // of the new file is below 100), and explain says so.
  RunOk({"gen", Path("more.arrow"), "--rows", "100", "--dim", "4", "--seed", "4"});
  RunOk({"append", ds_, "--from", Path("more.arrow")});
  const CliResult appended = RunExplained({"count", ds_, "--where", "id < 100"});
  EXPECT_EQ(appended.out, "200\n");  // the new file's ids start from 0 too
  EXPECT_TRUE(Contains(appended.err,
                       "explain: fragment 3: every live row: fragment statistics show 'id < 100' "
                       "holds on every row"))
      << appended.err;
}

TEST_F(CliReadTest, DeleteExplainsWhichIndexFoundTheRows) {
  CreateIndexes();
  const CliResult deleted =
      RunExplained({"delete", ds_, "--where", "id < 100 OR id IN (500, 501)"});
  EXPECT_TRUE(StartsWith(deleted.out, "deleted 102 rows from " + ds_ + ": ")) << deleted.out;
  EXPECT_TRUE(Contains(deleted.err, "BTREE index 'id_idx'")) << deleted.err;
  EXPECT_TRUE(Contains(deleted.err, "exact)")) << deleted.err;
  EXPECT_EQ(RunOk({"count", ds_}), "1098\n");
  EXPECT_EQ(RunOk({"count", ds_, "--where", "id < 100 OR id IN (500, 501)"}), "0\n");
  EXPECT_EQ(RunOk({"count", ds_, "--where", "id < 102"}), "2\n");  // 100 and 101 stay

  const CliResult rechecked =
      RunExplained({"delete", ds_, "--where", "price < 20 AND category = 'books'"});
  EXPECT_TRUE(Contains(rechecked.err, "BTREE index 'price_idx'")) << rechecked.err;
  EXPECT_EQ(RunOk({"count", ds_, "--where", "price < 20 AND category = 'books'"}), "0\n");

  // Statistics, asked before any index, show no row can match: no index is needed.
  const CliResult nothing = RunExplained({"delete", ds_, "--where", "id > 100000"});
  EXPECT_TRUE(StartsWith(nothing.out, "no row matches; " + ds_ + " stays at version "))
      << nothing.out;
  EXPECT_TRUE(Contains(nothing.err, "fragment statistics show 'id > 100000' matches no row"))
      << nothing.err;
}

}  // namespace
}  // namespace tessera::testing::cli_read_test
