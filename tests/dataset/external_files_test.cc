// External fragments (docs/external.md): Parquet files a dataset references without copying.
// Reads equal those of the same rows created as a native dataset, whatever the files' row
// groups and however they store vectors; fingerprints turn any change of a file into Stale;
// nothing tessera does writes, moves or removes an external file; bad files fail the
// registration with errors naming them, before anything is committed.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "support/parquet_files.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/external_refresh.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/new_files.h"
#include "tessera/dataset/position_deletes.h"
#include "tessera/format/paths.h"
#include "tessera/status.h"

namespace tessera::dataset::external_files_test {
namespace {

using testing::ParquetLayout;
using testing::SimpleBatch;
using testing::TempDirectory;
using testing::WriteParquet;

constexpr int kDim = 4;
constexpr int64_t kFileRows = 700;

// SimpleBatch rows whose vectors are null where id % 9 == 5.
std::shared_ptr<arrow::RecordBatch> Rows(int64_t first_id, int64_t rows) {
  return testing::SimpleBatchWithNullVectors(first_id, rows, kDim);
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

WriteOptions Batches(uint64_t rows_per_batch = 256) {
  WriteOptions options;
  options.rows_per_batch = rows_per_batch;
  options.max_rows_per_file = kFileRows;
  return options;
}

ExternalOptions Vectors() {
  ExternalOptions options;
  options.vector_dimensions["vector"] = kDim;
  return options;
}

// Three files of kFileRows rows as three writers make them: pyarrow (Arrow schema stored,
// vectors fixed-size), Spark (no Arrow schema: vectors are lists), and lists with the schema
// stored; row groups that batches of 256 rows straddle.
struct ThreeFiles {
  explicit ThreeFiles(const TempDirectory& directory) {
    for (int i = 0; i < 3; ++i)
      paths.push_back(directory.Child("part-" + std::to_string(i) + ".parquet"));
    WriteParquet(paths[0], Rows(0, kFileRows), {.row_group_rows = 300});
    WriteParquet(paths[1], testing::VectorsAsLists(Rows(kFileRows, kFileRows), "vector"),
                 {.row_group_rows = 250, .store_schema = false});
    WriteParquet(paths[2], testing::VectorsAsLists(Rows(2 * kFileRows, kFileRows), "vector"),
                 {.row_group_rows = kFileRows});
  }
  std::vector<std::string> paths;
};

std::shared_ptr<arrow::Table> AllRows(const Dataset& dataset, const std::string& filter = "") {
  ScanOptions options;
  options.filter = filter;
  options.with_row_address = true;
  auto table = dataset.ScanToTable(options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? table->get()->CombineChunks().ValueOrDie() : nullptr;
}

void ExpectSameRows(const arrow::Table& external, const arrow::Table& native,
                    const std::string& what) {
  ASSERT_EQ(external.num_columns(), native.num_columns()) << what;
  ASSERT_EQ(external.num_rows(), native.num_rows()) << what;
  for (int c = 0; c < native.num_columns(); ++c) {
    EXPECT_EQ(external.schema()->field(c)->name(), native.schema()->field(c)->name()) << what;
    EXPECT_TRUE(external.column(c)->Equals(*native.column(c)))
        << what << ": column " << native.schema()->field(c)->name();
  }
}

TEST(ExternalFiles, ReadLikeTheSameRowsCopiedIntoADataset) {
  TempDirectory directory;
  ThreeFiles files(directory);
  ASSERT_OK_AND_ASSIGN(auto external, Dataset::CreateExternal(directory.Child("external"),
                                                              {directory.Child("part-*.parquet")},
                                                              Vectors(), Batches()));
  ASSERT_OK_AND_ASSIGN(auto native,
                       Dataset::Create(directory.Child("native"),
                                       testing::ReaderOf(Rows(0, 3 * kFileRows)), Batches()));
  EXPECT_TRUE(external->schema()->Equals(*native->schema())) << external->schema()->ToString();
  ASSERT_EQ(external->manifest().fragments_size(), 3);
  for (int i = 0; i < 3; ++i) {
    const auto& file = external->manifest().fragments(i).files(0);
    EXPECT_EQ(file.external().location(), files.paths[i]);
    EXPECT_EQ(file.external().footer_sha256().size(), 32u);
    EXPECT_TRUE(file.path().empty());
  }
  EXPECT_EQ(external->CountRows(), 3 * kFileRows);
  for (const std::string filter :
       {"", "id >= 650 and id < 1450", "name = 'name3'", "value is null or id > 2000",
        "vector is null", "id = 299 or id = 300 or id = 1049"}) {
    SCOPED_TRACE(filter);
    ExpectSameRows(*AllRows(*external, filter), *AllRows(*native, filter), filter);
    ASSERT_OK_AND_ASSIGN(auto external_count, external->CountRows(filter));
    ASSERT_OK_AND_ASSIGN(auto native_count, native->CountRows(filter));
    EXPECT_EQ(external_count, native_count);
  }
  // Takes in the caller's order, duplicates included, across files and row groups.
  std::mt19937_64 random(7);
  std::vector<uint64_t> addresses;
  const auto& fragments = native->manifest().fragments();
  for (int i = 0; i < 200; ++i) {
    const auto& fragment = fragments[static_cast<int>(random() % fragments.size())];
    addresses.push_back(
        MakeRowAddress(fragment.id(), static_cast<uint32_t>(random() % fragment.physical_rows())));
  }
  addresses.push_back(addresses.front());
  ASSERT_OK_AND_ASSIGN(auto external_taken, external->Take(addresses));
  ASSERT_OK_AND_ASSIGN(auto native_taken, native->Take(addresses));
  ExpectSameRows(*external_taken->CombineChunks().ValueOrDie(),
                 *native_taken->CombineChunks().ValueOrDie(), "take");
  // A few rows: only the row groups holding them are decoded (the rest of their batches is
  // never used).
  const std::vector<uint64_t> few = {addresses[3], addresses[1], addresses[3]};
  ASSERT_OK_AND_ASSIGN(external_taken, external->Take(few));
  ASSERT_OK_AND_ASSIGN(native_taken, native->Take(few));
  ExpectSameRows(*external_taken->CombineChunks().ValueOrDie(),
                 *native_taken->CombineChunks().ValueOrDie(), "take of a few rows");
}

TEST(ExternalFiles, Float16VectorsWrittenAsListsReadAsVectors) {
  TempDirectory directory;
  auto rows = SimpleBatch(0, 500, kDim);
  const int position = rows->schema()->GetFieldIndex("vector");
  const auto half_type = arrow::fixed_size_list(arrow::float16(), kDim);
  ASSERT_OK_AND_ASSIGN(auto half, arrow::compute::Cast(rows->column(position), half_type));
  rows =
      rows->SetColumn(position, arrow::field("vector", half_type), half.make_array()).ValueOrDie();
  WriteParquet(directory.Child("half.parquet"), testing::VectorsAsLists(rows, "vector"),
               {.row_group_rows = 128, .store_schema = false});
  ASSERT_OK_AND_ASSIGN(auto external, Dataset::CreateExternal(directory.Child("external"),
                                                              {directory.Child("half.parquet")},
                                                              Vectors(), Batches(100)));
  EXPECT_TRUE(external->schema()->GetFieldByName("vector")->type()->Equals(*half_type));
  ASSERT_OK_AND_ASSIGN(auto native, Dataset::Create(directory.Child("native"),
                                                    testing::ReaderOf(rows), Batches(100)));
  ExpectSameRows(*AllRows(*external), *AllRows(*native), "float16");
}

TEST(ExternalFiles, AppendedDeletedCompactedAndCleanedUpWithoutTouchingTheFiles) {
  TempDirectory directory;
  ThreeFiles files(directory);
  ASSERT_OK_AND_ASSIGN(
      auto external,
      Dataset::CreateExternal(directory.Child("external"), {files.paths[0]}, Vectors(), Batches()));
  ASSERT_OK_AND_ASSIGN(external,
                       external->AppendExternal({files.paths[1], files.paths[2]}, {}, Batches()));
  EXPECT_EQ(external->CountRows(), 3 * kFileRows);
  std::vector<std::string> before;
  for (const auto& path : files.paths) before.push_back(Read(path));

  ASSERT_OK_AND_ASSIGN(external, external->Delete("id % 2 = 0 and id < 1600"));
  ASSERT_OK_AND_ASSIGN(auto native,
                       Dataset::Create(directory.Child("native"),
                                       testing::ReaderOf(Rows(0, 3 * kFileRows)), Batches()));
  ASSERT_OK_AND_ASSIGN(native, native->Delete("id % 2 = 0 and id < 1600"));
  ExpectSameRows(*AllRows(*external), *AllRows(*native), "after delete");
  auto deleted = external->Take({MakeRowAddress(external->manifest().fragments(0).id(), 2)});
  ASSERT_FALSE(deleted.ok()) << "a deleted row was returned";
  EXPECT_EQ(KindOf(deleted.status()), ErrorKind::kNotFound);

  // Compaction would copy the files to drop deleted rows: it leaves external fragments alone.
  CompactionOptions compaction;
  compaction.max_deleted_fraction = 0.01;
  ASSERT_OK_AND_ASSIGN(auto plan, PlanCompaction(*external, compaction));
  EXPECT_TRUE(plan.groups.empty());

  // A failed write removes the files it added: never an external one.
  NewFiles added = DataFilesOf(
      {external->manifest().fragments().begin(), external->manifest().fragments().end()});
  EXPECT_TRUE(added.files.empty());

  CleanupOptions cleanup;
  cleanup.older_than = std::chrono::seconds(0);
  cleanup.grace_period = std::chrono::seconds(0);
  ASSERT_OK_AND_ASSIGN(auto report, external->Cleanup(cleanup));
  EXPECT_FALSE(report.removed_versions.empty());
  for (size_t i = 0; i < files.paths.size(); ++i) {
    EXPECT_EQ(Read(files.paths[i]), before[i]) << files.paths[i];
  }
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(directory.Child("external")));
  ExpectSameRows(*AllRows(*reopened), *AllRows(*native), "after cleanup");
}

TEST(ExternalFiles, AnyChangeOfAFileIsStaleNamingIt) {
  TempDirectory directory;
  const std::string path = directory.Child("rows.parquet");
  const ParquetLayout plain{.row_group_rows = 100, .uncompressed = true};
  WriteParquet(path, Rows(0, 300), plain);
  ASSERT_OK_AND_ASSIGN(auto registered, Dataset::CreateExternal(directory.Child("ds"), {path},
                                                                Vectors(), Batches()));
  const auto expect_stale = [&](const std::string& change, const std::string& phrase) {
    SCOPED_TRACE(change);
    // Reading the snapshot opened before the change (its reader checks size and time).
    auto read = registered->ScanToTable({});
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(KindOf(read.status()), ErrorKind::kStale) << read.status().ToString();
    EXPECT_NE(read.status().message().find(path), std::string::npos) << read.status().message();
    EXPECT_NE(read.status().message().find(phrase), std::string::npos) << read.status().message();
  };
  // Touched: same bytes, new time.
  const auto registered_time = std::filesystem::last_write_time(path);
  std::filesystem::last_write_time(path, registered_time + std::chrono::seconds(5));
  expect_stale("touched", "modification time changed");
  std::filesystem::last_write_time(path, registered_time);
  ASSERT_OK(registered->ScanToTable({}).status());

  // Rewritten with other values of the same sizes (uncompressed): same length, other footer.
  auto other = Rows(0, 300);
  ASSERT_OK_AND_ASSIGN(auto ids,
                       arrow::compute::Add(other->column(0), arrow::Datum(int64_t{1000})));
  WriteParquet(path, other->SetColumn(0, other->schema()->field(0), ids.make_array()).ValueOrDie(),
               plain);
  ASSERT_EQ(std::filesystem::file_size(path),
            registered->manifest().fragments(0).files(0).size_bytes());
  expect_stale("rewritten with the same size", "rewritten");

  // Truncated, then removed.
  WriteParquet(path, Rows(0, 300), plain);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  expect_stale("truncated", "bytes long");
  std::filesystem::remove(path);
  expect_stale("removed", "no longer exists");

  // Opening a version checks every external file (the footer too): Stale until a refresh.
  auto opened = Dataset::Open(directory.Child("ds"));
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(KindOf(opened.status()), ErrorKind::kStale);
}

TEST(ExternalFiles, RefreshRecordsChangedFilesAsNewFragmentsAndRemovedOnesLeave) {
  TempDirectory directory;
  const std::string kept = directory.Child("kept.parquet");
  const std::string changed = directory.Child("changed.parquet");
  const std::string removed = directory.Child("removed.parquet");
  WriteParquet(kept, Rows(0, 100));
  WriteParquet(changed, Rows(100, 100));
  WriteParquet(removed, Rows(200, 100));
  ASSERT_OK_AND_ASSIGN(auto registered,
                       Dataset::CreateExternal(directory.Child("ds"), {kept, changed, removed},
                                               Vectors(), Batches()));
  ASSERT_OK_AND_ASSIGN(registered, registered->Delete("id = 150"));
  WriteParquet(changed, Rows(100, 150));
  std::filesystem::remove(removed);
  ASSERT_OK_AND_ASSIGN(auto stale,
                       Dataset::Open(directory.Child("ds"), {}, /*check_external_files=*/false));
  ASSERT_OK_AND_ASSIGN(auto refreshed, RefreshExternalFiles(stale));
  EXPECT_EQ(refreshed.reregistered, std::vector<std::string>{changed});
  EXPECT_EQ(refreshed.removed, std::vector<std::string>{removed});
  EXPECT_EQ(refreshed.dataset->manifest().operation(), "refresh");
  // The changed file's rows as it holds them now; its old deletions were of the old rows.
  EXPECT_EQ(refreshed.dataset->CountRows(), 250u);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(directory.Child("ds")));
  ASSERT_OK_AND_ASSIGN(auto count, reopened->CountRows("id >= 100"));
  EXPECT_EQ(count, 150u);
  ASSERT_OK_AND_ASSIGN(auto again, RefreshExternalFiles(reopened));
  EXPECT_EQ(again.dataset->version(), reopened->version());  // nothing changed: no commit
}

TEST(ExternalFiles, BadFilesFailTheRegistrationNamingThemAndCommitNothing) {
  TempDirectory directory;
  const std::string good = directory.Child("good.parquet");
  WriteParquet(good, Rows(0, 50));
  const std::string uri = directory.Child("ds");
  const auto expect_error = [&](const std::vector<std::string>& files, ErrorKind kind,
                                const std::string& phrase, const ExternalOptions& options) {
    SCOPED_TRACE(phrase);
    auto created = Dataset::CreateExternal(uri, files, options, Batches());
    ASSERT_FALSE(created.ok());
    EXPECT_EQ(KindOf(created.status()), kind) << created.status().ToString();
    EXPECT_NE(created.status().message().find(phrase), std::string::npos)
        << created.status().message();
    EXPECT_FALSE(Dataset::Open(uri).ok()) << "a failed registration committed a version";
  };
  // Another schema.
  const std::string other = directory.Child("other.parquet");
  auto renamed = Rows(0, 10);
  renamed = renamed->RenameColumns({"id", "value", "title", "vector"}).ValueOrDie();
  WriteParquet(other, renamed);
  expect_error({good, other}, ErrorKind::kInvalidArgument, other, Vectors());
  // A declared vector column the file lacks; a list column not declared.
  ExternalOptions missing;
  missing.vector_dimensions["embedding"] = kDim;
  expect_error({good}, ErrorKind::kInvalidArgument, "no column 'embedding'", missing);
  const std::string lists = directory.Child("lists.parquet");
  WriteParquet(lists, testing::VectorsAsLists(Rows(0, 20), "vector"), {.store_schema = false});
  expect_error({lists}, ErrorKind::kUnsupported, "--vector vector:DIMENSION", {});
  // A row of the wrong length, a null inside a vector: the file and the row are named.
  const auto list_file = [&](const std::string& name, std::vector<std::optional<float>> third) {
    arrow::ListBuilder builder(arrow::default_memory_pool(),
                               std::make_shared<arrow::FloatBuilder>());
    auto& values = static_cast<arrow::FloatBuilder&>(*builder.value_builder());
    for (int row = 0; row < 5; ++row) {
      EXPECT_TRUE(builder.Append().ok());
      if (row == 3) {
        for (const auto& value : third) {
          EXPECT_TRUE((value ? values.Append(*value) : values.AppendNull()).ok());
        }
      } else {
        for (int i = 0; i < kDim; ++i) EXPECT_TRUE(values.Append(1.0f).ok());
      }
    }
    arrow::Int64Builder id_builder;
    for (int64_t id = 0; id < 5; ++id) EXPECT_TRUE(id_builder.Append(id).ok());
    std::shared_ptr<arrow::Array> ids = id_builder.Finish().ValueOrDie();
    std::shared_ptr<arrow::Array> vectors = builder.Finish().ValueOrDie();
    const std::string path = directory.Child(name);
    WriteParquet(path,
                 arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64()),
                                                         arrow::field("vector", vectors->type())}),
                                          5, arrow::ArrayVector{ids, vectors}),
                 {.row_group_rows = 2, .store_schema = false});
    return path;
  };
  expect_error({list_file("short.parquet", {1.0f, 2.0f, 3.0f})}, ErrorKind::kInvalidArgument,
               "row 3 of column 'vector' holds 3 values", Vectors());
  expect_error({list_file("holes.parquet", {1.0f, std::nullopt, 3.0f, 4.0f})},
               ErrorKind::kInvalidArgument, "row 3 of column 'vector' holds a null", Vectors());
  // Not Parquet, truncated, a glob matching nothing, a missing path.
  const std::string text = directory.Child("notes.parquet");
  std::ofstream(text) << "these are not the rows you are looking for";
  expect_error({text}, ErrorKind::kCorrupt, text, Vectors());
  const std::string truncated = directory.Child("truncated.parquet");
  std::filesystem::copy_file(good, truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(good) / 2);
  expect_error({good, truncated}, ErrorKind::kCorrupt, truncated, Vectors());
  expect_error({directory.Child("nothing-*.parquet")}, ErrorKind::kInvalidArgument,
               "matches no file", Vectors());
  expect_error({directory.Child("absent.parquet")}, ErrorKind::kNotFound, "absent.parquet",
               Vectors());
  // A file inside the dataset's directory (cleanup or dropping the table could remove it),
  // also when reached through a symbolic link.
  ASSERT_OK(Dataset::CreateExternal(uri, {good}, Vectors(), Batches()).status());
  std::filesystem::create_directories(directory.Child("ds/data"));
  std::filesystem::create_directories(directory.Child("ds/raw"));
  std::filesystem::copy_file(good, directory.Child("ds/data/mine.parquet"));
  std::filesystem::copy_file(good, directory.Child("ds/raw/mine.parquet"));
  std::filesystem::create_directory_symlink(directory.Child("ds/data"), directory.Child("link"));
  ASSERT_OK_AND_ASSIGN(auto created, Dataset::Open(uri));
  for (const std::string inside :
       {"ds/data/mine.parquet", "ds/raw/mine.parquet", "link/mine.parquet"}) {
    auto appended = created->AppendExternal({directory.Child(inside)});
    ASSERT_FALSE(appended.ok()) << inside;
    EXPECT_NE(appended.status().message().find("keep external files outside"), std::string::npos)
        << appended.status().message();
  }
}

// Position deletes (file_path, pos) of external files, as lakehouse tools write them, delete
// exactly those rows; importing them again changes nothing; a file or position the version does
// not have is named.
// Rows of a declared vector column with the wrong number of values or a null value fail the
// registration, or, when asked, are read as null vectors: counted at registration, never
// searched, and still read so after a refresh or in an appended file.
TEST(ExternalFiles, BadVectorsAreReadAsNullVectorsWhenAsked) {
  TempDirectory directory;
  // Rows 3 (three values) and 7 (a null value) are bad; row 10 is a null vector.
  const auto write = [&](const std::string& path, int64_t first_id) {
    std::string json = "[";
    for (int64_t row = 0; row < 12; ++row) {
      const std::string v = std::to_string(first_id + row);
      json += row == 0 ? "" : ",";
      json += row == 3    ? "[1, 2, 3]"
              : row == 7  ? "[1, null, 3, 4]"
              : row == 10 ? "null"
                          : "[" + v + ", " + v + ", " + v + ", " + v + "]";
    }
    json += "]";
    auto vectors =
        arrow::json::ArrayFromJSONString(arrow::list(arrow::float32()), json).ValueOrDie();
    arrow::Int64Builder ids;
    for (int64_t row = 0; row < 12; ++row) ASSERT_TRUE(ids.Append(first_id + row).ok());
    auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64()),
                                                         arrow::field("vector", vectors->type())}),
                                          12, {ids.Finish().ValueOrDie(), vectors});
    WriteParquet(path, batch, {.row_group_rows = 5, .store_schema = false});
  };
  const std::string file = directory.Child("bad.parquet");
  write(file, 0);
  auto refused = Dataset::CreateExternal(directory.Child("ds"), {file}, Vectors(), Batches());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("row 3 of column 'vector' holds 3 values"),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--bad-vectors null"), std::string::npos);

  ExternalOptions lenient = Vectors();
  lenient.bad_vectors_as_null = true;
  ASSERT_OK_AND_ASSIGN(auto data,
                       Dataset::CreateExternal(directory.Child("ds"), {file}, lenient, Batches()));
  EXPECT_EQ(data->manifest().fragments(0).files(0).external().bad_vectors(), 2u);
  const auto null_vector_ids = [](const Dataset& dataset) {
    ScanOptions scan;
    scan.filter = "vector is null";
    scan.columns = {"id"};
    auto table = dataset.ScanToTable(scan).ValueOrDie();
    return testing::Int64Column(*table, "id");
  };
  EXPECT_EQ(null_vector_ids(*data), (std::vector<int64_t>{3, 7, 10}));
  EXPECT_EQ(data->CountRows(), 12u);
  ASSERT_OK_AND_ASSIGN(auto good_rows, data->CountRows("vector is not null"));
  EXPECT_EQ(good_rows, 9u);

  // Appended: the same choice per call.
  const std::string more = directory.Child("more.parquet");
  write(more, 100);
  EXPECT_FALSE(data->AppendExternal({more}, {}, Batches()).ok());
  ExternalOptions append_lenient;
  append_lenient.bad_vectors_as_null = true;
  ASSERT_OK_AND_ASSIGN(data, data->AppendExternal({more}, append_lenient, Batches()));
  EXPECT_EQ(null_vector_ids(*data), (std::vector<int64_t>{3, 7, 10, 103, 107, 110}));

  // Refreshed after a rewrite: registered again as it was.
  write(file, 50);
  ASSERT_OK_AND_ASSIGN(auto stale, Dataset::Open(data->uri(), {}, /*check_external_files=*/false));
  ASSERT_OK_AND_ASSIGN(auto refreshed, RefreshExternalFiles(stale));
  ASSERT_EQ(refreshed.reregistered, std::vector<std::string>{file});
  EXPECT_EQ(null_vector_ids(*refreshed.dataset), (std::vector<int64_t>{53, 57, 60, 103, 107, 110}));
}

TEST(ExternalFiles, PositionDeletesDeleteTheRowsTheyName) {
  TempDirectory directory;
  const std::string first = directory.Child("first.parquet");
  const std::string second = directory.Child("second.parquet");
  WriteParquet(first, Rows(0, 100));
  WriteParquet(second, Rows(100, 100));
  ASSERT_OK_AND_ASSIGN(
      auto registered,
      Dataset::CreateExternal(directory.Child("ds"), {first, second}, Vectors(), Batches()));
  const auto deletes = [&](const std::string& name, std::vector<std::string> paths,
                           std::vector<int64_t> positions) {
    arrow::StringBuilder path_builder;
    arrow::Int64Builder position_builder;
    EXPECT_TRUE(path_builder.AppendValues(paths).ok());
    EXPECT_TRUE(position_builder.AppendValues(positions).ok());
    std::shared_ptr<arrow::Array> path_array = path_builder.Finish().ValueOrDie();
    std::shared_ptr<arrow::Array> position_array = position_builder.Finish().ValueOrDie();
    const std::string file = directory.Child(name);
    WriteParquet(file,
                 arrow::RecordBatch::Make(arrow::schema({arrow::field("file_path", arrow::utf8()),
                                                         arrow::field("pos", arrow::int64())}),
                                          static_cast<int64_t>(paths.size()),
                                          arrow::ArrayVector{path_array, position_array}));
    return file;
  };
  const std::string file =
      deletes("deletes.parquet", {first, second, second, first}, {3, 0, 99, 3});
  ASSERT_OK_AND_ASSIGN(auto addresses, ReadPositionDeletes(*registered, file));
  ASSERT_OK_AND_ASSIGN(auto after, registered->DeleteRows(addresses, "position deletes"));
  EXPECT_EQ(after->version(), registered->version() + 1);
  EXPECT_EQ(after->CountRows(), 197u);
  ASSERT_OK_AND_ASSIGN(auto left, after->CountRows("id = 3 or id = 100 or id = 199"));
  EXPECT_EQ(left, 0u);
  ASSERT_OK_AND_ASSIGN(auto again, after->DeleteRows(addresses, "position deletes"));
  EXPECT_EQ(again->version(), after->version());  // already deleted: nothing to commit

  auto unknown =
      ReadPositionDeletes(*after, deletes("unknown.parquet", {"/elsewhere.parquet"}, {0}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("/elsewhere.parquet"), std::string::npos);
  auto beyond = ReadPositionDeletes(*after, deletes("beyond.parquet", {first}, {100}));
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("has 100 rows"), std::string::npos);
  auto missing = after->DeleteRows({MakeRowAddress(99, 0)}, "by hand");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound);
}

TEST(ExternalFiles, BatchesTileRowGroupsOfOneSize) {
  EXPECT_EQ(TilingRowsPerBatch({100000, 100000, 100000, 42}, 8192), 10000u);
  EXPECT_EQ(TilingRowsPerBatch({300, 300, 100}, 256), 300u);
  EXPECT_EQ(TilingRowsPerBatch({8192, 8192, 8192}, 8192), 8192u);
  EXPECT_EQ(TilingRowsPerBatch({65536, 65536}, 8192), 8192u);
  // No divisor within a factor of two, row groups of several sizes, a single row group, or a
  // last row group larger than the others: the request.
  EXPECT_EQ(TilingRowsPerBatch({100003, 100003}, 8192), 8192u);
  EXPECT_EQ(TilingRowsPerBatch({1000, 2000, 1000}, 8192), 8192u);
  EXPECT_EQ(TilingRowsPerBatch({5000000}, 8192), 8192u);
  EXPECT_EQ(TilingRowsPerBatch({1000, 1200}, 1000), 1000u);
}

TEST(ExternalFiles, AManifestNamingARelativeExternalLocationIsCorrupt) {
  TempDirectory directory;
  WriteParquet(directory.Child("rows.parquet"), Rows(0, 10));
  ASSERT_OK_AND_ASSIGN(
      auto registered,
      Dataset::CreateExternal(directory.Child("ds"), {directory.Child("rows.parquet")}, Vectors()));
  for (const std::string location : {"rows.parquet", "../rows.parquet", ""}) {
    format::Manifest damaged = registered->manifest();
    damaged.set_version(registered->version() + 1);
    damaged.mutable_fragments(0)->mutable_files(0)->mutable_external()->set_location(location);
    ASSERT_OK_AND_ASSIGN(bool published, TryPublishManifest(*registered->storage(), damaged));
    ASSERT_TRUE(published);
    auto opened = Dataset::Open(directory.Child("ds"));
    ASSERT_FALSE(opened.ok()) << location;
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    ASSERT_OK(registered->storage()->DeleteFile(format::ManifestPath(damaged.version())));
  }
  // A fragment claiming more rows than its file holds is Corrupt when read, never a read past
  // the file's row groups.
  format::Manifest damaged = registered->manifest();
  damaged.set_version(registered->version() + 1);
  damaged.mutable_fragments(0)->set_physical_rows(25);
  ASSERT_OK_AND_ASSIGN(bool published, TryPublishManifest(*registered->storage(), damaged));
  ASSERT_TRUE(published);
  ASSERT_OK_AND_ASSIGN(auto opened, Dataset::Open(directory.Child("ds")));
  auto read = opened->ScanToTable({});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(KindOf(read.status()), ErrorKind::kCorrupt) << read.status().ToString();
}

}  // namespace
}  // namespace tessera::dataset::external_files_test
