// Runs the built `tessera` executable as a user would and checks its output, exit status and
// error format (docs/cli.md).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_test {
namespace {

namespace fs = std::filesystem;

class CliTest : public CliFixture {};

TEST_F(CliTest, WorkflowFromGenToCleanup) {
  const std::string data = Path("data.arrow");
  const std::string more = Path("more.parquet");
  const std::string ds = Path("ds");
  EXPECT_EQ(RunOk({"gen", data, "--rows", "1000", "--dim", "8", "--seed", "1"}),
            "wrote 1000 rows (dim 8) to " + data + "\n");
  RunOk({"gen", more, "--rows", "200", "--dim", "8", "--seed", "2"});

  EXPECT_EQ(RunOk({"create", ds, "--from", data, "--max-rows-per-file", "400"}),
            "created " + ds + ": version 1, 1000 rows in 3 fragments\n");
  EXPECT_EQ(RunOk({"append", ds, "--from", more}),
            "appended 200 rows to " + ds + ": version 2, 1200 rows in 4 fragments\n");

  EXPECT_EQ(RunOk({"count", ds}), "1200\n");
  // Both files hold ids from 0.
  EXPECT_EQ(RunOk({"count", ds, "--where", "id < 100"}), "200\n");

  // csv: a header, then one line per row.
  const auto csv = Lines(
      RunOk({"scan", ds, "--columns", "id,category", "--where", "id < 3", "--format", "csv"}));
  ASSERT_EQ(csv.size(), 7u);
  EXPECT_EQ(csv[0], "id,category");
  EXPECT_TRUE(StartsWith(csv[1], "0,"));

  // json: one object per line.
  const auto json = Lines(
      RunOk({"scan", ds, "--columns", "id,vector,price,tags", "--limit", "5", "--format", "json"}));
  ASSERT_EQ(json.size(), 5u);
  for (const auto& line : json) {
    EXPECT_TRUE(StartsWith(line, "{\"id\":")) << line;
    EXPECT_EQ(line.back(), '}') << line;
    EXPECT_NE(line.find("\"vector\":["), std::string::npos) << line;
    EXPECT_NE(line.find("\"tags\":["), std::string::npos) << line;
  }

  // table: a header, a rule, aligned rows, abbreviated vectors and a row count.
  const auto table = Lines(RunOk({"scan", ds, "--columns", "id,vector", "--limit", "3"}));
  ASSERT_EQ(table.size(), 6u);
  EXPECT_TRUE(StartsWith(table[0], " id | vector"));
  EXPECT_TRUE(StartsWith(table[1], "----+"));
  EXPECT_NE(table[2].find(", … (8)]"), std::string::npos) << table[2];
  EXPECT_EQ(table[2].find('|'), table[3].find('|'));
  EXPECT_EQ(table[5], "(3 rows)");

  const auto addressed = Lines(RunOk(
      {"scan", ds, "--columns", "id", "--limit", "2", "--with-row-address", "--format", "csv"}));
  ASSERT_EQ(addressed.size(), 3u);
  EXPECT_EQ(addressed[0], "id,_rowaddr");
  EXPECT_EQ(addressed[1], "0,0");

  // 100 of the 1200 rows have id >= 900 (all from data.arrow).
  EXPECT_EQ(RunOk({"delete", ds, "--where", "id >= 900"}),
            "deleted 100 rows from " + ds + ": version 3, 1100 rows in 4 fragments\n");
  EXPECT_EQ(RunOk({"count", ds}), "1100\n");
  EXPECT_EQ(RunOk({"delete", ds, "--where", "id >= 900"}),
            "no row matches; " + ds + " stays at version 3\n");

  const auto versions = Lines(RunOk({"versions", ds, "--format", "csv"}));
  ASSERT_EQ(versions.size(), 4u);
  EXPECT_EQ(versions[0], "version,created,operation,rows,fragments");
  EXPECT_TRUE(StartsWith(versions[1], "1,"));
  EXPECT_NE(versions[1].find(",create,1000,3"), std::string::npos) << versions[1];
  EXPECT_NE(versions[2].find(",append,1200,4"), std::string::npos) << versions[2];
  EXPECT_NE(versions[3].find(",delete,1100,4"), std::string::npos) << versions[3];
  EXPECT_EQ(Lines(RunOk({"versions", ds, "--version", "2", "--format", "csv"})).size(), 3u);

  const std::string info = RunOk({"info", ds});
  EXPECT_NE(info.find("version:    3 (latest)"), std::string::npos) << info;
  EXPECT_NE(info.find("rows:       1100 (1200 physical, 100 deleted)"), std::string::npos) << info;
  EXPECT_NE(info.find("fragments:  4"), std::string::npos) << info;
  EXPECT_NE(info.find("  field id  name"), std::string::npos) << info;
  EXPECT_NE(info.find("  1         vector    fixed_size_list<item: float>[8]"), std::string::npos)
      << info;
  const std::string info_json = RunOk({"info", ds, "--version", "1", "--format", "json"});
  EXPECT_NE(info_json.find("\"version\":1,\"latest_version\":3"), std::string::npos) << info_json;

  // Old versions stay readable.
  EXPECT_EQ(
      Lines(RunOk({"scan", ds, "--version", "1", "--columns", "id", "--format", "csv"})).size(),
      1001u);
  EXPECT_EQ(RunOk({"count", ds, "--version", "1", "--where", "id >= 900"}), "100\n");

  // A dry run reports and removes nothing.
  const std::string dry_run = RunOk({"cleanup", ds, "--older-than", "0s", "--dry-run"});
  EXPECT_TRUE(StartsWith(dry_run, "would remove 2 versions (1, 2)")) << dry_run;
  EXPECT_EQ(RunOk({"count", ds, "--version", "1"}), "1000\n");

  const std::string cleaned = RunOk({"cleanup", ds, "--older-than", "0s"});
  EXPECT_TRUE(StartsWith(cleaned, "removed 2 versions (1, 2)")) << cleaned;
  RunFails({"count", ds, "--version", "1"}, "NotFound");
  EXPECT_EQ(RunOk({"count", ds}), "1100\n");
  EXPECT_EQ(RunOk({"cleanup", ds, "--older-than", "0s"}), "nothing to remove (retention 0s)\n");
}

// cleanup keeps unreferenced files younger than the grace period, says so, and removes them
// with --delete-unverified; a damaged old manifest is listed and reported, never fatal.
TEST_F(CliTest, CleanupGraceAndDamagedManifests) {
  const std::string ds = Path("ds");
  const std::string data = Path("data.arrow");
  RunOk({"gen", data, "--rows", "100", "--dim", "4", "--seed", "1"});
  RunOk({"create", ds, "--from", data});
  RunOk({"append", ds, "--from", data});
  RunOk({"append", ds, "--from", data});
  std::ofstream(ds + "/data/orphan.arrow") << "a write in flight";

  const std::string kept = RunOk({"cleanup", ds, "--older-than", "0s", "--dry-run"});
  EXPECT_TRUE(StartsWith(kept, "would remove 2 versions (1, 2) and 2 files")) << kept;
  EXPECT_NE(kept.find("kept 1 unreferenced file younger than the grace period (1h)"),
            std::string::npos)
      << kept;
  EXPECT_EQ(kept.find("orphan.arrow"), std::string::npos) << kept;
  const std::string forced =
      RunOk({"cleanup", ds, "--older-than", "0s", "--dry-run", "--delete-unverified"});
  EXPECT_NE(forced.find("  data/orphan.arrow\n"), std::string::npos) << forced;

  std::ofstream(ds + "/_versions/00000000000000000001.manifest", std::ios::trunc) << "damaged";
  const CliResult versions = Run({"versions", ds, "--format", "csv"});
  EXPECT_EQ(versions.exit_code, 0) << versions.err;
  const auto rows = Lines(versions.out);
  ASSERT_EQ(rows.size(), 4u) << versions.out;
  EXPECT_TRUE(StartsWith(rows[1], "1,")) << rows[1];
  EXPECT_NE(rows[1].find("unreadable"), std::string::npos) << rows[1];
  EXPECT_TRUE(StartsWith(versions.err, "warning: version 1 cannot be read: Corrupt: "))
      << versions.err;

  const CliResult cleaned = Run({"cleanup", ds, "--older-than", "0s"});
  EXPECT_EQ(cleaned.exit_code, 0) << cleaned.err;
  EXPECT_TRUE(StartsWith(cleaned.out, "removed 1 version (2) and 0 files")) << cleaned.out;
  EXPECT_TRUE(StartsWith(cleaned.err, "warning: version 1 is unreadable and was kept"))
      << cleaned.err;
  EXPECT_EQ(RunOk({"count", ds}), "300\n");
}

// A damaged *latest* manifest: reads fail with Corrupt, but versions lists it and cleanup runs
// (keeping every file, since nobody knows what that version references).
TEST_F(CliTest, VersionsAndCleanupWorkWhenTheLatestManifestIsDamaged) {
  const std::string ds = Path("ds");
  const std::string data = Path("data.arrow");
  RunOk({"gen", data, "--rows", "100", "--dim", "4", "--seed", "1"});
  RunOk({"create", ds, "--from", data});
  RunOk({"append", ds, "--from", data});
  std::ofstream(ds + "/_versions/00000000000000000002.manifest", std::ios::trunc) << "damaged";
  RunFails({"count", ds}, "Corrupt");

  const CliResult versions = Run({"versions", ds, "--format", "csv"});
  EXPECT_EQ(versions.exit_code, 0) << versions.err;
  const auto rows = Lines(versions.out);
  ASSERT_EQ(rows.size(), 3u) << versions.out;
  EXPECT_NE(rows[2].find("unreadable"), std::string::npos) << rows[2];
  EXPECT_TRUE(StartsWith(versions.err, "warning: version 2 cannot be read: Corrupt: "))
      << versions.err;

  const CliResult cleaned = Run({"cleanup", ds, "--older-than", "0s"});
  EXPECT_EQ(cleaned.exit_code, 0) << cleaned.err;
  EXPECT_TRUE(StartsWith(cleaned.err, "warning: version 2 is unreadable and was kept"))
      << cleaned.err;
  EXPECT_EQ(RunOk({"count", ds, "--version", "1"}), "100\n");
}

TEST_F(CliTest, GenWritesADatasetDirectly) {
  const std::string ds = Path("generated");
  EXPECT_EQ(
      RunOk({"gen", "--dataset", ds, "--rows", "500", "--dim", "4", "--fragment-rows", "200"}),
      "created dataset " + ds + ": version 1, 500 rows in 3 fragments\n");
  EXPECT_EQ(RunOk({"count", ds}), "500\n");
  RunFails({"gen", "--dataset", ds, "--rows", "5", "--dim", "4"}, "AlreadyExists");
}

TEST_F(CliTest, GenIsDeterministicAndKeepsExistingFiles) {
  const std::vector<std::string> options = {"--rows", "300", "--dim", "16", "--seed", "9"};
  for (const std::string name : {"a.arrow", "b.arrow", "a.parquet", "b.parquet"}) {
    std::vector<std::string> args = {"gen", Path(name)};
    args.insert(args.end(), options.begin(), options.end());
    RunOk(args);
  }
  EXPECT_EQ(ReadWholeFile(Path("a.arrow")), ReadWholeFile(Path("b.arrow")));
  EXPECT_EQ(ReadWholeFile(Path("a.parquet")), ReadWholeFile(Path("b.parquet")));

  RunOk({"gen", Path("c.arrow"), "--rows", "300", "--dim", "16", "--seed", "10"});
  EXPECT_NE(ReadWholeFile(Path("a.arrow")), ReadWholeFile(Path("c.arrow")));

  const std::string before = ReadWholeFile(Path("c.arrow"));
  RunFails({"gen", Path("c.arrow"), "--rows", "3", "--dim", "16"}, "AlreadyExists");
  EXPECT_EQ(ReadWholeFile(Path("c.arrow")), before);
  RunOk({"gen", Path("c.arrow"), "--rows", "3", "--dim", "16", "--force"});
  EXPECT_NE(ReadWholeFile(Path("c.arrow")), before);

  EXPECT_EQ(RunOk({"gen", Path("queries.arrow"), "--queries", "10", "--dim", "16"}),
            "wrote 10 query vectors (dim 16) to " + Path("queries.arrow") + "\n");
  RunFails({"gen", Path("x.txt"), "--rows", "3", "--dim", "4"}, "InvalidArgument");
  RunFails({"gen", "--rows", "3", "--dim", "4"}, "InvalidArgument");
  RunFails({"gen", Path("x.arrow"), "--rows", "3", "--dim", "4", "--fragment-rows", "2"},
           "InvalidArgument");
  EXPECT_FALSE(fs::exists(Path("x.arrow")));
}

TEST_F(CliTest, NonDatasetPathIsNotFound) {
  const std::string missing = Path("no_such_dataset");
  for (const std::string command : {"scan", "count", "info", "versions", "cleanup"}) {
    RunFails({command, missing}, "NotFound");
  }
  RunFails({"delete", missing, "--where", "id = 1"}, "NotFound");
  RunFails({"append", missing, "--from", Path("none.arrow")}, "NotFound");
  fs::create_directories(Path("empty_dir"));
  RunFails({"scan", Path("empty_dir")}, "NotFound");
}

TEST_F(CliTest, BadFilterIsInvalidArgument) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "50", "--dim", "4"});
  RunFails({"scan", ds, "--where", "id <<< 3"}, "InvalidArgument");
  RunFails({"count", ds, "--where", "no_such_column = 1"}, "InvalidArgument");
  RunFails({"delete", ds, "--where", "id = "}, "InvalidArgument");
  EXPECT_EQ(RunOk({"count", ds}), "50\n");
  EXPECT_EQ(Lines(RunOk({"versions", ds, "--format", "csv"})).size(), 2u);
  RunFails({"scan", ds, "--columns", "id,no_such_column"}, "InvalidArgument");
  RunFails({"scan", ds, "--version", "7"}, "NotFound");
  RunFails({"cleanup", ds, "--older-than", "7 days"}, "InvalidArgument");
}

TEST_F(CliTest, AppendWithAnotherSchemaChangesNothing) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "20", "--dim", "4"});
  RunOk({"gen", Path("wide.arrow"), "--rows", "20", "--dim", "8"});
  RunOk({"gen", Path("queries.arrow"), "--queries", "5", "--dim", "4"});
  RunFails({"append", ds, "--from", Path("wide.arrow")}, "InvalidArgument");
  RunFails({"append", ds, "--from", Path("queries.arrow")}, "InvalidArgument");
  // Files of different schemas cannot be read as one input.
  RunFails({"create", Path("other"), "--from", Path("wide.arrow"), Path("queries.arrow")},
           "InvalidArgument");
  RunFails({"create", Path("other"), "--from", Path("missing.parquet")}, "NotFound");
  EXPECT_EQ(RunOk({"count", ds}), "20\n");
  EXPECT_EQ(Lines(RunOk({"versions", ds, "--format", "json"})).size(), 1u);
}

TEST_F(CliTest, UsageErrorsExitWithTwo) {
  RunFails({}, "InvalidArgument", 2);
  RunFails({"frobnicate"}, "InvalidArgument", 2);
  RunFails({"scan"}, "InvalidArgument", 2);
  RunFails({"scan", Path("ds"), "--format", "xml"}, "InvalidArgument", 2);
  RunFails({"scan", Path("ds"), "--limit", "-1"}, "InvalidArgument", 2);
  RunFails({"gen", Path("x.arrow"), "--rows", "ten", "--dim", "4"}, "InvalidArgument", 2);
  RunFails({"delete", Path("ds")}, "InvalidArgument", 2);
  const CliResult help = Run({"scan", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--where"), std::string::npos);
}

// A table with values that need escaping in every format.
void WriteAwkwardFile(const std::string& path) {
  arrow::StringBuilder names;
  ASSERT_TRUE(names.Append("plain").ok());
  ASSERT_TRUE(names.Append("comma, \"quoted\"").ok());
  ASSERT_TRUE(names.Append("two\nlines").ok());
  ASSERT_TRUE(names.Append("").ok());
  ASSERT_TRUE(names.AppendNull().ok());
  arrow::DoubleBuilder values;
  ASSERT_TRUE(values.Append(1.5).ok());
  ASSERT_TRUE(values.AppendNull().ok());
  ASSERT_TRUE(values.Append(0.1).ok());
  ASSERT_TRUE(values.Append(-2).ok());
  ASSERT_TRUE(values.Append(1e20).ok());
  auto schema =
      arrow::schema({arrow::field("name", arrow::utf8()), arrow::field("value", arrow::float64())});
  auto batch = arrow::RecordBatch::Make(
      schema, 5, {names.Finish().ValueOrDie(), values.Finish().ValueOrDie()});
  auto sink = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  auto writer = arrow::ipc::MakeFileWriter(sink, schema).ValueOrDie();
  ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
  ASSERT_TRUE(writer->Close().ok());
  ASSERT_TRUE(sink->Close().ok());
}

TEST_F(CliTest, FormatsEscapeValuesAndShowNulls) {
  const std::string file = Path("awkward.arrow");
  const std::string ds = Path("ds");
  WriteAwkwardFile(file);
  RunOk({"create", ds, "--from", file});

  EXPECT_EQ(RunOk({"scan", ds, "--format", "csv"}),
            "name,value\n"
            "plain,1.5\n"
            "\"comma, \"\"quoted\"\"\",\n"
            "\"two\nlines\",0.1\n"
            "\"\",-2\n"
            ",1e+20\n");
  EXPECT_EQ(RunOk({"scan", ds, "--format", "json"}),
            "{\"name\":\"plain\",\"value\":1.5}\n"
            "{\"name\":\"comma, \\\"quoted\\\"\",\"value\":null}\n"
            "{\"name\":\"two\\nlines\",\"value\":0.1}\n"
            "{\"name\":\"\",\"value\":-2}\n"
            "{\"name\":null,\"value\":1e+20}\n");
  EXPECT_EQ(RunOk({"scan", ds}),
            " name            | value\n"
            "-----------------+-------\n"
            " plain           |   1.5\n"
            " comma, \"quoted\" |  NULL\n"
            " two\\nlines      |   0.1\n"
            "                 |    -2\n"
            " NULL            | 1e+20\n"
            "(5 rows)\n");
  EXPECT_EQ(RunOk({"scan", ds, "--where", "value > 100", "--format", "table"}),
            " name | value\n"
            "------+-------\n"
            " NULL | 1e+20\n"
            "(1 row)\n");
}

}  // namespace
}  // namespace tessera::testing::cli_test
