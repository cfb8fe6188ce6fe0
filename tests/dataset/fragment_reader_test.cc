// FragmentReader (dataset/fragment_reader.h): batches of a local data file are slices of its
// memory map, whichever columns are selected — never copies; each column of a batch is verified
// whole once per reader, and rows verified alone never count as the whole column.
#include "tessera/dataset/fragment_reader.h"

#include <gtest/gtest.h>

#include <cstring>

#include "support/ipc_file_surgery.h"
#include "support/mixed_rows.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset::fragment_reader_test {
namespace {

TEST(FragmentReader, SelectedColumnsOfALocalFileAreReadWithoutCopying) {
  testing::TempDirectory directory;
  WriteOptions options;
  options.rows_per_batch = 64;
  ASSERT_OK_AND_ASSIGN(
      auto data, Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 200, 8), options));
  const int vector_column = data->schema()->GetFieldIndex("vector");
  const int id_column = data->schema()->GetFieldIndex("id");
  ASSERT_OK_AND_ASSIGN(auto reader,
                       FragmentReader::Open(*data->storage(), data->manifest().fragments(0),
                                            data->schema(), {vector_column, id_column}));
  ASSERT_EQ(reader->schema()->field(0)->name(), "vector");
  ASSERT_EQ(reader->schema()->field(1)->name(), "id");
  ASSERT_OK_AND_ASSIGN(auto first, reader->ReadBatch(1));
  ASSERT_OK_AND_ASSIGN(auto second, reader->ReadBatch(1));
  ASSERT_EQ(first->num_columns(), 2);
  EXPECT_EQ(testing::Int64Column(*arrow::Table::FromRecordBatches({first}).ValueOrDie(), "id")[0],
            64);
  // A copy would land at a new address on every read; a slice of the map never moves.
  const auto values = [](const arrow::RecordBatch& batch) {
    return batch.column(0)->data()->child_data[0]->buffers[1]->data();
  };
  EXPECT_EQ(values(*first), values(*second));
  EXPECT_FALSE(first->column(0)->data()->child_data[0]->buffers[1]->is_mutable());
}

TEST(FragmentReader, EachColumnOfABatchIsVerifiedWholeOncePerReader) {
  testing::TempDirectory directory;
  WriteOptions options;
  options.rows_per_batch = 64;
  ASSERT_OK_AND_ASSIGN(
      auto data, Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 200, 8), options));
  const int id_column = data->schema()->GetFieldIndex("id");
  const int vector_column = data->schema()->GetFieldIndex("vector");
  ASSERT_OK_AND_ASSIGN(auto reader,
                       FragmentReader::Open(*data->storage(), data->manifest().fragments(0),
                                            data->schema(), {id_column, vector_column}));
  auto& statistics = GlobalReadStatistics();
  statistics.Reset();
  ASSERT_OK(reader->ReadRowsOfBatch(1, {3, 4}).status());
  EXPECT_EQ(statistics.columns_verified.load(), 0u);  // rows alone: no column whole
  ASSERT_OK(reader->ReadBatch(1).status());
  EXPECT_EQ(statistics.columns_verified.load(), 2u);
  ASSERT_OK(reader->ReadBatch(1).status());
  ASSERT_OK_AND_ASSIGN(auto batch, reader->ReadBatchUnverified(1));
  ASSERT_OK(reader->VerifyColumns(1, *batch, {0}));
  EXPECT_EQ(statistics.columns_verified.load(), 2u);  // nothing verified twice
  ASSERT_OK(reader->ReadBatch(2).status());
  EXPECT_EQ(statistics.columns_verified.load(), 4u);
}

TEST(FragmentReader, RowsVerifiedAloneLeaveTheRestOfTheColumnToBeVerified) {
  testing::TempDirectory directory;
  WriteOptions options;
  options.rows_per_batch = 256;
  const std::string root = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(
      auto data, Dataset::Create(root, testing::ReaderOf(testing::MixedRows(0, 512, 9)), options));
  const std::string path = root + "/" + data->manifest().fragments(0).files(0).path();
  // Offset 200 of the first batch's `text` column made to decrease, the checksums rewritten to
  // match: only the structural check can find it.
  auto ranges = testing::BufferRanges(
      path, 1, [](const std::string& name, const arrow::ArrayData&) { return name == "text"; });
  ASSERT_FALSE(ranges.empty());
  std::string bytes = testing::ReadBytes(path);
  const int32_t negative = -1;
  std::memcpy(bytes.data() + ranges[0].offset + 4 * 200, &negative, 4);
  testing::WriteBytes(path, bytes);
  testing::RewriteChecksums(path);

  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(root));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       FragmentReader::Open(*reopened->storage(), reopened->manifest().fragments(0),
                                            reopened->schema(), {}));
  ASSERT_OK(reader->ReadRowsOfBatch(0, {1, 2, 3}).status());
  const auto whole = reader->ReadBatch(0);
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(KindOf(whole.status()), ErrorKind::kCorrupt) << whole.status().ToString();
  EXPECT_FALSE(reader->ReadBatch(0).ok());  // a failed verification is not remembered as passed
  ASSERT_OK(reader->ReadBatch(1).status());
}

}  // namespace
}  // namespace tessera::dataset::fragment_reader_test
