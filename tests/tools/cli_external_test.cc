// The CLI over external Parquet files (docs/external.md, docs/cli.md): `create --external` with
// a glob and `--vector`, `append --external`, a read failing Stale once a file changed, and
// `refresh` recording the change.
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_fixture.h"
#include "support/parquet_files.h"
#include "support/table_builders.h"
#include "tessera/dataset/dataset.h"

namespace tessera::testing::cli_external_test {
namespace {

// The rows of a Parquet file, or null (a failure is reported).
std::shared_ptr<arrow::Table> OpenFilesAsTable(const std::string& path) {
  auto reader = dataset::OpenFilesAsReader({path});
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return nullptr;
  auto table = (*reader)->ToTable();
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? (*table)->CombineChunks().ValueOrDie() : nullptr;
}

class CliExternalTest : public CliFixture {
 protected:
  // SimpleBatch rows [first, first + rows) with vectors as plain lists, as Spark writes them.
  void WriteRows(const std::string& name, int64_t first, int64_t rows) {
    WriteParquet(Path(name), VectorsAsLists(SimpleBatch(first, rows, 4), "vector"),
                 {.row_group_rows = 64, .store_schema = false});
  }
};

TEST_F(CliExternalTest, CreateAppendSearchAndRefresh) {
  WriteRows("part-0.parquet", 0, 300);
  WriteRows("part-1.parquet", 300, 200);
  const std::string ds = Path("ds");
  // A list column must be declared a vector, with a dimension.
  EXPECT_NE(RunFails({"create", ds, "--external", Path("part-*.parquet")}, "Unsupported")
                .find("--vector vector:DIMENSION"),
            std::string::npos);
  EXPECT_NE(RunFails({"create", ds, "--external", Path("part-*.parquet"), "--vector", "vector"},
                     "InvalidArgument")
                .find("NAME:DIM"),
            std::string::npos);
  // --from or --external, exactly one: a usage error otherwise.
  RunFails({"create", ds, "--from", Path("part-0.parquet"), "--external", Path("part-1.parquet")},
           "InvalidArgument", 2);
  RunFails({"create", ds}, "InvalidArgument", 2);
  RunFails({"append", ds}, "InvalidArgument", 2);
  RunFails({"create", ds, "--from", Path("part-0.parquet"), "--bad-vectors", "null"},
           "InvalidArgument", 2);  // only with --external
  RunFails({"create", ds, "--external", Path("part-0.parquet"), "--bad-vectors", "skip"},
           "InvalidArgument", 2);
  EXPECT_NE(RunFails({"create", ds, "--external", Path("none-*.parquet"), "--vector", "vector:4"},
                     "InvalidArgument")
                .find("matches no file"),
            std::string::npos);

  EXPECT_NE(RunOk({"create", ds, "--external", Path("part-*.parquet"), "--vector", "vector:4",
                   "--rows-per-batch", "100"})
                .find("500 rows in 2 fragments"),
            std::string::npos);
  EXPECT_EQ(RunOk({"count", ds, "--where", "id >= 250 and id < 350"}), "100\n");
  RunOk({"index", "create", ds, "--name", "v", "--column", "vector", "--type", "IVF_FLAT",
         "--param", "num_partitions=4"});
  const std::string nearest =
      RunOk({"search", ds, "--column", "vector", "--vector", "[310, 311, 312, 313]", "--k", "1",
             "--nprobes", "4", "--columns", "id", "--format", "csv"});
  EXPECT_NE(nearest.find("\n310,"), std::string::npos) << nearest;

  // Rows by address, in the order given, duplicates included, across files.
  EXPECT_EQ(RunOk({"take", ds, "--rows", "1:10,0:299,1:10", "--columns", "id", "--format", "csv"}),
            "id\n310\n299\n310\n");
  RunFails({"take", ds, "--rows", "0:300"}, "NotFound");
  RunFails({"take", ds, "--rows", "zero"}, "InvalidArgument");

  WriteRows("later.parquet", 500, 50);
  EXPECT_NE(
      RunOk({"append", ds, "--external", Path("later.parquet")}).find("550 rows in 3 fragments"),
      std::string::npos);
  EXPECT_EQ(RunOk({"count", ds, "--where", "id >= 540"}), "10\n");

  // Position deletes of a file, then the same again (nothing left to delete); --where or
  // --deleted-rows, exactly one.
  {
    arrow::StringBuilder paths;
    arrow::Int64Builder positions;
    ASSERT_TRUE(paths.AppendValues({Path("later.parquet"), Path("later.parquet")}).ok());
    ASSERT_TRUE(positions.AppendValues({0, 9}).ok());
    std::shared_ptr<arrow::Array> path_array = paths.Finish().ValueOrDie();
    std::shared_ptr<arrow::Array> position_array = positions.Finish().ValueOrDie();
    WriteParquet(Path("deletes.parquet"),
                 arrow::RecordBatch::Make(arrow::schema({arrow::field("file_path", arrow::utf8()),
                                                         arrow::field("pos", arrow::int64())}),
                                          2, arrow::ArrayVector{path_array, position_array}));
  }
  EXPECT_NE(RunOk({"delete", ds, "--deleted-rows", Path("deletes.parquet")}).find("548 rows"),
            std::string::npos);
  EXPECT_NE(
      RunOk({"delete", ds, "--deleted-rows", Path("deletes.parquet")}).find("deleted already"),
      std::string::npos);
  RunFails({"delete", ds, "--where", "true", "--deleted-rows", Path("deletes.parquet")},
           "InvalidArgument", 2);
  EXPECT_EQ(RunOk({"count", ds, "--where", "id >= 500"}), "48\n");

  // The file changes: reads are Stale naming it until a refresh records it.
  WriteRows("later.parquet", 500, 60);
  EXPECT_NE(RunFails({"count", ds}, "Stale").find(Path("later.parquet")), std::string::npos);
  const std::string refreshed = RunOk({"refresh", ds});
  EXPECT_NE(refreshed.find("registered again: " + Path("later.parquet")), std::string::npos)
      << refreshed;
  EXPECT_EQ(RunOk({"count", ds}), "560\n");  // its new rows: the old deletions went with it
  EXPECT_NE(RunOk({"refresh", ds}).find("no external file changed"), std::string::npos);
}

// --bad-vectors null registers a file whose vector rows are bad, reading them as null vectors,
// and says how many.
TEST_F(CliExternalTest, BadVectorsReadAsNullAreCounted) {
  auto vectors = arrow::json::ArrayFromJSONString(arrow::list(arrow::float32()),
                                                  "[[1, 2], [1], [3, null], null, [5, 6]]")
                     .ValueOrDie();
  auto ids = arrow::json::ArrayFromJSONString(arrow::int64(), "[0, 1, 2, 3, 4]").ValueOrDie();
  WriteParquet(Path("bad.parquet"),
               arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64()),
                                                       arrow::field("v", vectors->type())}),
                                        5, {ids, vectors}),
               {.store_schema = false});
  const std::string ds = Path("ds");
  EXPECT_NE(RunFails({"create", ds, "--external", Path("bad.parquet"), "--vector", "v:2"},
                     "InvalidArgument")
                .find("row 1 of column 'v' holds 1 value;"),
            std::string::npos);
  EXPECT_NE(RunOk({"create", ds, "--external", Path("bad.parquet"), "--vector", "v:2",
                   "--bad-vectors", "null"})
                .find("2 bad vectors (wrong length or a null value) are read as null"),
            std::string::npos);
  EXPECT_EQ(RunOk({"count", ds, "--where", "v is null"}), "3\n");
}

// knn-join over an external right dataset writes each left row's k nearest rows to Parquet, the
// indexed join probing every partition agreeing with the exact one; an existing output is kept
// unless --force.
TEST_F(CliExternalTest, KnnJoinWritesEachLeftRowsNearestRows) {
  WriteRows("rows.parquet", 0, 400);
  const std::string ds = Path("ds");
  RunOk({"create", ds, "--external", Path("rows.parquet"), "--vector", "vector:4"});
  RunOk({"index", "create", ds, "--name", "v", "--column", "vector", "--type", "IVF_FLAT",
         "--param", "num_partitions=4"});
  RunOk({"gen", Path("q.parquet"), "--queries", "30", "--dim", "4"});
  const auto join = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"knn-join",
                                     "--left",
                                     Path("q.parquet"),
                                     "--left-column",
                                     "vector",
                                     "--right",
                                     ds,
                                     "--right-column",
                                     "vector",
                                     "--k",
                                     "3",
                                     "--nprobes",
                                     "4",
                                     "--project",
                                     "id",
                                     "--out",
                                     Path(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  EXPECT_NE(RunOk(join("indexed.parquet", {})).find("30 left rows"), std::string::npos);
  RunOk(join("exact.parquet", {"--exact"}));
  auto indexed = OpenFilesAsTable(Path("indexed.parquet"));
  auto exact = OpenFilesAsTable(Path("exact.parquet"));
  ASSERT_NE(indexed, nullptr);
  ASSERT_NE(exact, nullptr);
  EXPECT_EQ(indexed->num_rows(), 90);
  EXPECT_TRUE(indexed->Equals(*exact));
  RunFails(join("exact.parquet", {}), "AlreadyExists");
  RunOk(join("exact.parquet", {"--force"}));
  RunFails(join("bad.parquet", {"--left-columns", "nope"}), "InvalidArgument");
  EXPECT_FALSE(std::filesystem::exists(Path("bad.parquet")));
}

}  // namespace
}  // namespace tessera::testing::cli_external_test
