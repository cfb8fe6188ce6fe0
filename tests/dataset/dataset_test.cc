// Behaviour of the dataset layer in one process: create, open, append, overwrite, delete, scan,
// take, count, versions and the typed errors of bad input.
#include "tessera/dataset/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/format/paths.h"
#include "tessera/status.h"

namespace tessera::dataset::dataset_test {
namespace {

using testing::Int64Column;
using testing::ReaderOf;
using testing::SimpleBatch;
using testing::SimpleReader;
using testing::TempDirectory;

std::vector<int64_t> Iota(int64_t first, int64_t count) {
  std::vector<int64_t> values(static_cast<size_t>(count));
  std::iota(values.begin(), values.end(), first);
  return values;
}

std::vector<int64_t> ScanIds(const Dataset& dataset, const std::string& filter = "") {
  ScanOptions options;
  options.columns = {"id"};
  options.filter = filter;
  auto table = dataset.ScanToTable(options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return {};
  return Int64Column(**table, "id");
}

TEST(Dataset, CreateThenOpenReadsBackEveryRow) {
  TempDirectory directory;
  WriteOptions options;
  options.max_rows_per_file = 300;
  options.rows_per_batch = 64;
  auto created = Dataset::Create(directory.Child("ds"), SimpleReader(0, 1000), options);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)->version(), 1u);
  EXPECT_EQ((*created)->manifest().fragments_size(), 4);  // 300 + 300 + 300 + 100

  auto opened = Dataset::Open(directory.Child("ds"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ((*opened)->CountRows(), 1000u);
  EXPECT_EQ(ScanIds(**opened), Iota(0, 1000));
  auto all = (*opened)->ScanToTable({});
  ASSERT_TRUE(all.ok());
  auto expected = arrow::Table::FromRecordBatches({SimpleBatch(0, 1000)});
  EXPECT_TRUE(
      (*all)->CombineChunks().ValueOrDie()->Equals(*(*expected)->CombineChunks().ValueOrDie()));
}

TEST(Dataset, ScanAppliesProjectionFilterLimitAndRowAddresses) {
  TempDirectory directory;
  WriteOptions options;
  options.max_rows_per_file = 100;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 250), options);
  ASSERT_TRUE(dataset.ok());
  ScanOptions scan;
  scan.columns = {"name", "id"};
  scan.filter = "id >= 95 AND id < 105";
  scan.with_row_address = true;
  auto table = (*dataset)->ScanToTable(scan);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ((*table)->num_columns(), 3);
  EXPECT_EQ((*table)->schema()->field(0)->name(), "name");
  EXPECT_EQ((*table)->schema()->field(2)->name(), kRowAddressColumn);
  EXPECT_EQ(Int64Column(**table, "id"), Iota(95, 10));
  // Row 95 is offset 95 of fragment 0; row 100 is offset 0 of fragment 1.
  auto combined = (*table)->CombineChunks().ValueOrDie();
  auto column = std::static_pointer_cast<arrow::UInt64Array>(combined->column(2)->chunk(0));
  EXPECT_EQ(column->Value(0), MakeRowAddress(0, 95));
  EXPECT_EQ(column->Value(5), MakeRowAddress(1, 0));

  scan = {};
  scan.limit = 7;
  scan.filter = "value > 10";
  auto limited = (*dataset)->ScanToTable(scan);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ((*limited)->num_rows(), 7);
}

TEST(Dataset, EveryVersionReadsBackWhatItHeld) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto v1 = Dataset::Create(path, SimpleReader(0, 100));
  ASSERT_TRUE(v1.ok());
  auto v2 = (*v1)->Append(SimpleReader(100, 50));
  ASSERT_TRUE(v2.ok());
  auto v3 = (*v2)->Delete("id < 10 OR id = 120");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  auto v4 = (*v3)->Overwrite(SimpleReader(1000, 5));
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ((*v4)->version(), 4u);

  std::vector<int64_t> expected3 = Iota(10, 140);
  expected3.erase(std::find(expected3.begin(), expected3.end(), 120));
  const std::vector<std::vector<int64_t>> expected = {Iota(0, 100), Iota(0, 150), expected3,
                                                      Iota(1000, 5)};
  for (uint64_t version = 1; version <= 4; ++version) {
    auto snapshot = Dataset::Open(path, version);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_EQ(ScanIds(**snapshot), expected[version - 1]) << "version " << version;
    EXPECT_EQ((*snapshot)->CountRows(), expected[version - 1].size());
  }
  auto versions = (*v4)->ListVersions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 4u);
  EXPECT_EQ((*versions)[0].operation, "create");
  EXPECT_EQ((*versions)[1].operation, "append");
  EXPECT_EQ((*versions)[2].operation, "delete");
  EXPECT_EQ((*versions)[3].operation, "overwrite");
  EXPECT_EQ((*versions)[2].num_rows, expected3.size());
}

TEST(Dataset, DeleteOfEveryRowOfAFragmentDropsTheFragment) {
  TempDirectory directory;
  WriteOptions options;
  options.max_rows_per_file = 10;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 30), options);
  ASSERT_TRUE(dataset.ok());
  auto deleted = (*dataset)->Delete("id >= 10 AND id < 20");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ((*deleted)->manifest().fragments_size(), 2);
  EXPECT_EQ((*deleted)->CountRows(), 20u);
  // A delete that matches nothing commits nothing.
  auto unchanged = (*deleted)->Delete("id > 1000");
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ((*unchanged)->version(), (*deleted)->version());
}

TEST(Dataset, CountRowsWithAndWithoutFilter) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 200));
  ASSERT_TRUE(dataset.ok());
  auto after = (*dataset)->Delete("id < 50");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->CountRows(), 150u);
  auto filtered = (*after)->CountRows("name = 'name1'");
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  // ids 50..199 with id % 5 == 1 and not (id % 11 == 4).
  uint64_t expected = 0;
  for (int64_t id = 50; id < 200; ++id) expected += (id % 5 == 1 && id % 11 != 4) ? 1 : 0;
  EXPECT_EQ(*filtered, expected);
}

TEST(Dataset, TakeReturnsRowsInRequestedOrder) {
  TempDirectory directory;
  WriteOptions options;
  options.max_rows_per_file = 100;
  options.rows_per_batch = 16;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 300), options);
  ASSERT_TRUE(dataset.ok());
  const std::vector<uint64_t> addresses = {MakeRowAddress(2, 99), MakeRowAddress(0, 0),
                                           MakeRowAddress(1, 17), MakeRowAddress(0, 0)};
  auto table = (*dataset)->Take(addresses, {"id", "vector"});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(Int64Column(**table, "id"), (std::vector<int64_t>{299, 0, 117, 0}));
  EXPECT_EQ((*table)->num_columns(), 2);
}

TEST(Dataset, TakeRejectsMissingAndDeletedRows) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_TRUE(dataset.ok());
  auto after = (*dataset)->Delete("id = 3");
  ASSERT_TRUE(after.ok());
  for (uint64_t address : {MakeRowAddress(0, 3), MakeRowAddress(0, 10), MakeRowAddress(9, 0)}) {
    auto table = (*after)->Take({address});
    ASSERT_FALSE(table.ok()) << address;
    EXPECT_EQ(KindOf(table.status()), ErrorKind::kNotFound) << table.status().ToString();
  }
}

TEST(Dataset, TakeOfAThousandRowsReadsAThousandRowsOfAMillion) {
  TempDirectory directory;
  WriteOptions options;
  options.max_rows_per_file = 250000;
  auto dataset =
      Dataset::Create(directory.Child("ds"), SimpleReader(0, 1000000, 8, 65536), options);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  std::mt19937_64 random(7);
  std::vector<uint64_t> addresses;
  std::vector<int64_t> expected_ids;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t id = random() % 1000000;
    addresses.push_back(
        MakeRowAddress(static_cast<uint32_t>(id / 250000), static_cast<uint32_t>(id % 250000)));
    expected_ids.push_back(static_cast<int64_t>(id));
  }
  GlobalReadStatistics().Reset();
  auto table = (*dataset)->Take(addresses, {"id", "vector"});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(Int64Column(**table, "id"), expected_ids);
  EXPECT_EQ(GlobalReadStatistics().rows_taken.load(), 1000u);
  EXPECT_EQ(GlobalReadStatistics().rows_scanned.load(), 0u);
  // Each requested row opens at most one batch (zero-copy, metadata only).
  EXPECT_LE(GlobalReadStatistics().batches_opened.load(), 1000u);
}

TEST(Dataset, AppendWithAnotherSchemaNamesTheFields) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_TRUE(dataset.ok());
  auto other = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("extra", arrow::utf8())}), 0,
      {arrow::MakeArrayOfNull(arrow::int32(), 0).ValueOrDie(),
       arrow::MakeArrayOfNull(arrow::utf8(), 0).ValueOrDie()});
  auto result = (*dataset)->Append(ReaderOf(other));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  const std::string message = result.status().message();
  EXPECT_NE(message.find("'id' has type int32"), std::string::npos) << message;
  EXPECT_NE(message.find("missing field 'value'"), std::string::npos) << message;
  EXPECT_NE(message.find("unexpected field 'extra'"), std::string::npos) << message;
  // Nothing was committed.
  auto latest = (*dataset)->Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 1u);
}

TEST(Dataset, OpenOfANonDatasetIsNotFound) {
  TempDirectory directory;
  auto missing = Dataset::Open(directory.Child("nothing-here"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound);
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);
  auto empty = Dataset::Open(directory.path().string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(KindOf(empty.status()), ErrorKind::kNotFound);
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_TRUE(dataset.ok());
  auto no_version = Dataset::Open(directory.Child("ds"), 9);
  ASSERT_FALSE(no_version.ok());
  EXPECT_EQ(KindOf(no_version.status()), ErrorKind::kNotFound);
}

TEST(Dataset, CreateOverAnExistingDatasetIsAlreadyExists) {
  TempDirectory directory;
  ASSERT_TRUE(Dataset::Create(directory.Child("ds"), SimpleReader(0, 10)).ok());
  auto again = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(KindOf(again.status()), ErrorKind::kAlreadyExists);
}

TEST(Dataset, DamagedManifestIsCorruptAndOlderVersionsStillRead) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto v1 = Dataset::Create(path, SimpleReader(0, 10));
  ASSERT_TRUE(v1.ok());
  ASSERT_TRUE((*v1)->Append(SimpleReader(10, 10)).ok());
  const std::string manifest = path + "/" + format::ManifestPath(2);
  const auto size = std::filesystem::file_size(manifest);

  // Truncated.
  std::filesystem::resize_file(manifest, size / 2);
  auto truncated = Dataset::Open(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(KindOf(truncated.status()), ErrorKind::kCorrupt) << truncated.status().ToString();
  EXPECT_NE(truncated.status().message().find(manifest), std::string::npos);

  // Same length, garbage content.
  std::filesystem::resize_file(manifest, 0);
  {
    auto bytes = std::string(size, 'x');
    std::ofstream(manifest, std::ios::binary) << bytes;
  }
  auto garbage = Dataset::Open(path);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(KindOf(garbage.status()), ErrorKind::kCorrupt);

  auto old = Dataset::Open(path, 1);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(ScanIds(**old), Iota(0, 10));
}

TEST(Dataset, UnsupportedColumnTypeIsRejectedBeforeWriting) {
  TempDirectory directory;
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("m", arrow::map(arrow::utf8(), arrow::int32()))}), 0,
      {arrow::MakeArrayOfNull(arrow::map(arrow::utf8(), arrow::int32()), 0).ValueOrDie()});
  auto result = Dataset::Create(directory.Child("ds"), ReaderOf(batch));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kUnsupported);
  EXPECT_NE(result.status().message().find("'m'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(directory.Child("ds") + "/_versions"));
}

TEST(Dataset, BadFilterIsInvalidArgumentAndChangesNothing) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_TRUE(dataset.ok());
  auto unknown = (*dataset)->Delete("idd = 3");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(KindOf(unknown.status()), ErrorKind::kInvalidArgument);
  auto mismatch = (*dataset)->CountRows("name > 5");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(KindOf(mismatch.status()), ErrorKind::kInvalidArgument);
  ScanOptions options;
  options.columns = {"nope"};
  EXPECT_EQ(KindOf((*dataset)->Scan(options).status()), ErrorKind::kInvalidArgument);
  auto latest = (*dataset)->Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 1u);
  EXPECT_EQ(ScanIds(**latest), Iota(0, 10));
}

TEST(Dataset, OverwriteKeepsFieldIdsOfUnchangedFields) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 10));
  ASSERT_TRUE(dataset.ok());
  EXPECT_EQ((*dataset)->field_ids(), (std::vector<int32_t>{0, 1, 2, 3}));
  // New schema: name dropped, value retyped, id kept, fresh column added.
  auto schema =
      arrow::schema({arrow::field("extra", arrow::utf8()), arrow::field("id", arrow::int64()),
                     arrow::field("value", arrow::float32())});
  auto batch = arrow::RecordBatch::Make(schema, 0,
                                        {arrow::MakeArrayOfNull(arrow::utf8(), 0).ValueOrDie(),
                                         arrow::MakeArrayOfNull(arrow::int64(), 0).ValueOrDie(),
                                         arrow::MakeArrayOfNull(arrow::float32(), 0).ValueOrDie()});
  auto overwritten = (*dataset)->Overwrite(ReaderOf(batch));
  ASSERT_TRUE(overwritten.ok()) << overwritten.status().ToString();
  EXPECT_EQ((*overwritten)->field_ids(), (std::vector<int32_t>{4, 0, 5}));
  EXPECT_EQ((*overwritten)->CountRows(), 0u);
}

}  // namespace
}  // namespace tessera::dataset::dataset_test
