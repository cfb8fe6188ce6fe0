// Page-level reads of external Parquet files (dataset/external_pages.h): rows taken from files
// with an offset index come from the pages holding them, equal to the same rows read whole,
// whatever the writer's layout (fixed-size or plain lists, dictionary-encoded strings, nulls,
// compression); files without one decode the row groups, as before.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/parquet_files.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/external_pages.h"
#include "tessera/dataset/external_parquet.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset::external_pages_test {
namespace {

using testing::ParquetLayout;
using testing::TempDirectory;

constexpr int kDim = 4;
constexpr int64_t kRows = 3000;
constexpr int64_t kGroupRows = 1000;
constexpr int64_t kPageRows = 32;

// SimpleBatch rows (id, a double with nulls, a string of five values, a vector) with null
// vectors where id % 9 == 5.
std::shared_ptr<arrow::RecordBatch> Rows() {
  return testing::SimpleBatchWithNullVectors(0, kRows, kDim);
}

struct Layout {
  std::string name;
  bool lists;  // vectors as plain lists (Spark), else fixed-size lists (pyarrow)
  ParquetLayout parquet;
};

std::vector<Layout> Layouts(bool page_index) {
  const ParquetLayout base{
      .row_group_rows = kGroupRows, .page_index = page_index, .max_rows_per_page = kPageRows};
  ParquetLayout spark = base;
  spark.store_schema = false;
  ParquetLayout plain = base;
  plain.uncompressed = true;
  plain.dictionary = false;
  return {{"pyarrow", false, base},
          {"spark", true, spark},
          {"uncompressed lists without dictionaries", true, plain}};
}

WriteOptions Batches() {
  WriteOptions options;
  options.rows_per_batch = kGroupRows;
  return options;
}

ExternalOptions Vectors() {
  ExternalOptions options;
  options.vector_dimensions["vector"] = kDim;
  return options;
}

// Sparse addresses (fragment 0), unsorted, with a duplicate.
std::vector<uint64_t> SparseAddresses() {
  std::mt19937_64 random(3);
  std::vector<uint64_t> addresses;
  for (int i = 0; i < 12; ++i) addresses.push_back(random() % kRows);
  addresses.push_back(addresses[3]);
  addresses.push_back(kRows - 1);
  addresses.push_back(0);
  return addresses;
}

TEST(ExternalPages, TakenRowsEqualTheSameRowsOfANativeDataset) {
  TempDirectory directory;
  const auto rows = Rows();
  ASSERT_OK_AND_ASSIGN(
      auto native, Dataset::Create(directory.Child("native"), testing::ReaderOf(rows), Batches()));
  const auto addresses = SparseAddresses();
  ASSERT_OK_AND_ASSIGN(auto expected, native->Take(addresses));
  for (bool page_index : {true, false}) {
    for (const auto& layout : Layouts(page_index)) {
      SCOPED_TRACE(layout.name + (page_index ? " with" : " without") + " a page index");
      const std::string stem = layout.name + (page_index ? "-paged" : "");
      const std::string path = directory.Child(stem + ".parquet");
      testing::WriteParquet(path, layout.lists ? testing::VectorsAsLists(rows, "vector") : rows,
                            layout.parquet);
      ASSERT_OK_AND_ASSIGN(auto external, Dataset::CreateExternal(directory.Child(stem), {path},
                                                                  Vectors(), Batches()));
      GlobalReadStatistics().Reset();
      ASSERT_OK_AND_ASSIGN(auto taken, external->Take(addresses));
      EXPECT_TRUE(taken->Equals(*expected)) << taken->ToString() << "\n" << expected->ToString();
      const uint64_t decoded = GlobalReadStatistics().external_rows_decoded.load();
      if (page_index && !layout.parquet.dictionary) {
        // At most one page per address, for the column whose pages hold the most rows.
        EXPECT_LE(decoded, addresses.size() * kPageRows);
      } else if (page_index) {
        // Reading several runs of pages repeats a chunk's dictionary page: where that costs more
        // than the chunk, its row group is decoded instead.
        EXPECT_LE(decoded, static_cast<uint64_t>(kRows));
      } else {
        EXPECT_EQ(decoded, static_cast<uint64_t>(kRows));  // every row group, whole
      }
      // One column, a few rows: one run of pages in each of two row groups, a dictionary or not.
      GlobalReadStatistics().Reset();
      ASSERT_OK_AND_ASSIGN(auto names, external->Take({5, 6, 2999}, {"name"}));
      ASSERT_OK_AND_ASSIGN(auto expected_names, native->Take({5, 6, 2999}, {"name"}));
      EXPECT_TRUE(names->Equals(*expected_names));
      if (page_index) {
        EXPECT_LE(GlobalReadStatistics().external_rows_decoded.load(), 2u * kPageRows);
      }
    }
  }
}

TEST(ExternalPages, ReadPagesHoldingGivesRunsOfWholePages) {
  TempDirectory directory;
  const auto rows = Rows();
  const std::string path = directory.Child("paged.parquet");
  testing::WriteParquet(path, testing::VectorsAsLists(rows, "vector"),
                        {.row_group_rows = kGroupRows,
                         .store_schema = false,
                         .page_index = true,
                         .max_rows_per_page = kPageRows,
                         .dictionary = false});
  ASSERT_OK_AND_ASSIGN(auto file, ExternalParquetFile::Open(path));
  const int id = file->schema()->GetFieldIndex("id");
  const int vector = file->schema()->GetFieldIndex("vector");
  // Rows of row group 1: two in one page, one in the next page, one far away.
  const std::vector<int64_t> wanted = {3, 10, kPageRows + 7, 900};
  for (int field : {id, vector}) {
    ASSERT_OK_AND_ASSIGN(auto runs, ReadPagesHolding(*file, 1, field, wanted, kGroupRows));
    ASSERT_TRUE(runs.has_value());
    ASSERT_EQ(runs->size(), 2u);  // pages 0 and 1 together, then the one holding row 900
    EXPECT_EQ((*runs)[0].first_row, 0);
    EXPECT_EQ((*runs)[0].values->length(), 2 * kPageRows);
    EXPECT_EQ((*runs)[1].first_row, 900 / kPageRows * kPageRows);
    EXPECT_EQ((*runs)[1].values->length(), kPageRows);
    for (const auto& run : *runs) {
      const auto whole = rows->column(field == id ? rows->schema()->GetFieldIndex("id")
                                                  : rows->schema()->GetFieldIndex("vector"));
      const auto slice = whole->Slice(kGroupRows + run.first_row, run.values->length());
      if (field == id) {
        EXPECT_TRUE(run.values->Equals(*slice)) << run.values->ToString();
      } else {
        // Plain lists as written: the same values per row.
        EXPECT_EQ(run.values->type_id(), arrow::Type::LIST);
        EXPECT_EQ(run.values->null_count(), slice->null_count());
      }
    }
  }
  // Too many rows for the share asked: the caller decodes the row group.
  ASSERT_OK_AND_ASSIGN(auto too_many, ReadPagesHolding(*file, 1, id, wanted, 2 * kPageRows));
  EXPECT_FALSE(too_many.has_value());
  // A file without an offset index: not applicable.
  const std::string plain = directory.Child("plain.parquet");
  testing::WriteParquet(plain, rows, {.row_group_rows = kGroupRows});
  ASSERT_OK_AND_ASSIGN(auto plain_file, ExternalParquetFile::Open(plain));
  ASSERT_OK_AND_ASSIGN(auto none, ReadPagesHolding(*plain_file, 0, id, wanted, kGroupRows));
  EXPECT_FALSE(none.has_value());
}

// Offset indexes are read once per process: two readers of a registered file share them, with
// its footer.
TEST(ExternalPages, OffsetIndexesAreSharedByTheReadersOfAProcess) {
  TempDirectory directory;
  const std::string path = directory.Child("paged.parquet");
  testing::WriteParquet(
      path, Rows(),
      {.row_group_rows = kGroupRows, .page_index = true, .max_rows_per_page = kPageRows});
  ASSERT_OK_AND_ASSIGN(
      auto data, Dataset::CreateExternal(directory.Child("ds"), {path}, Vectors(), Batches()));
  const format::DataFile& registered = data->manifest().fragments(0).files(0);
  ASSERT_OK_AND_ASSIGN(auto first, ExternalParquetFile::Open(path, &registered));
  ASSERT_OK_AND_ASSIGN(auto second, ExternalParquetFile::Open(path, &registered));
  const auto index = first->OffsetIndex(2, 0);
  ASSERT_NE(index, nullptr);
  const auto again = second->OffsetIndex(2, 0);
  EXPECT_EQ(again, index);
  EXPECT_EQ(&first->metadata(), &second->metadata());
}

// Bytes of a row group's offset indexes damaged in turn (the footer, and so the registration,
// untouched): a take through those pages still returns the right rows. An offset index that
// cannot be parsed or contradicts the footer is ignored, and pages that do not decode as it
// says are left to the row group's own decoding; the file's data is intact.
TEST(ExternalPages, ADamagedOffsetIndexStillGivesTheRightRows) {
  TempDirectory directory;
  const auto rows = Rows();
  const std::string good = directory.Child("good.parquet");
  testing::WriteParquet(good, testing::VectorsAsLists(rows, "vector"),
                        {.row_group_rows = kGroupRows,
                         .store_schema = false,
                         .page_index = true,
                         .max_rows_per_page = kPageRows});
  ASSERT_OK_AND_ASSIGN(
      auto native, Dataset::Create(directory.Child("native"), testing::ReaderOf(rows), Batches()));
  const std::vector<uint64_t> addresses = {1003, 1100, 1101, 1500, 1999};
  ASSERT_OK_AND_ASSIGN(auto expected, native->Take(addresses));
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_OK_AND_ASSIGN(auto file, ExternalParquetFile::Open(good));
  std::vector<int64_t> positions;
  const auto group = file->metadata().RowGroup(1);
  for (int column = 0; column < group->num_columns(); ++column) {
    const auto location = group->ColumnChunk(column)->GetOffsetIndexLocation();
    ASSERT_TRUE(location.has_value());
    for (int64_t at = location->offset; at < location->offset + location->length; ++at) {
      positions.push_back(at);
    }
  }
  ASSERT_GT(positions.size(), 20u);
  // Every other byte: a damaged varint shows in both halves.
  for (size_t i = 0; i < positions.size(); i += 2) {
    const int64_t at = positions[i];
    SCOPED_TRACE("byte " + std::to_string(at));
    std::string damaged = bytes;
    damaged[static_cast<size_t>(at)] = static_cast<char>(damaged[static_cast<size_t>(at)] ^ 0x5a);
    const std::string path = directory.Child("damaged-" + std::to_string(i) + ".parquet");
    {
      std::ofstream out(path, std::ios::binary);
      out << damaged;
    }
    ASSERT_OK_AND_ASSIGN(auto external,
                         Dataset::CreateExternal(directory.Child("ds-" + std::to_string(i)), {path},
                                                 Vectors(), Batches()));
    ASSERT_OK_AND_ASSIGN(auto taken, external->Take(addresses));
    EXPECT_TRUE(taken->Equals(*expected)) << taken->ToString();
  }
}

}  // namespace
}  // namespace tessera::dataset::external_pages_test
