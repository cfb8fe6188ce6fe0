// TakeFromFragment: the rows at given offsets of one fragment, in order, from dense batches
// (most rows of a batch wanted) and sparse ones (a few), repeated offsets repeated, reading only
// the batches holding them.
#include "tessera/dataset/take.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"

namespace tessera::dataset::take_test {
namespace {

using testing::TempDirectory;

constexpr uint64_t kRows = 1000;  // one fragment, batches of 256 rows (the last holds 232)

class TakeFromFragmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(data_, testing::CreateSimpleDataset(directory_.Child("ds"), kRows, kRows));
    ASSERT_EQ(data_->manifest().fragments_size(), 1);
  }

  // A reader of the fragment decoding `columns` (schema indices).
  std::unique_ptr<FragmentReader> ReaderOf(const std::vector<int>& columns) {
    auto reader = FragmentReader::Open(*data_->storage(), data_->manifest().fragments(0),
                                       data_->schema(), columns);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    return reader.ok() ? std::move(reader).ValueUnsafe() : nullptr;
  }

  // Takes `offsets` and checks the rows are those offsets' (id = offset), counting reads.
  void ExpectTaken(const std::vector<uint32_t>& offsets, uint64_t batches) {
    auto reader = ReaderOf({0, 2});
    ASSERT_NE(reader, nullptr);
    ASSERT_EQ(reader->rows_per_batch(), 256u);
    auto& statistics = GlobalReadStatistics();
    statistics.Reset();
    ASSERT_OK_AND_ASSIGN(auto batch, TakeFromFragment(*reader, offsets));
    EXPECT_EQ(statistics.rows_taken.load(), offsets.size());
    EXPECT_EQ(statistics.batches_opened.load(), batches);
    EXPECT_EQ(statistics.rows_scanned.load(), 0u);
    ASSERT_TRUE(batch->schema()->Equals(*reader->schema()));
    ASSERT_EQ(batch->num_rows(), static_cast<int64_t>(offsets.size()));
    ASSERT_OK(batch->ValidateFull());
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const auto& names = static_cast<const arrow::StringArray&>(*batch->column(1));
    for (size_t row = 0; row < offsets.size(); ++row) {
      const int64_t id = offsets[row];
      ASSERT_EQ(ids.Value(static_cast<int64_t>(row)), id) << "row " << row;
      if (id % 11 == 4) {
        EXPECT_TRUE(names.IsNull(static_cast<int64_t>(row))) << "row " << row;
      } else {
        EXPECT_EQ(names.GetString(static_cast<int64_t>(row)), "name" + std::to_string(id % 5));
      }
    }
  }

  TempDirectory directory_;
  std::shared_ptr<Dataset> data_;
};

TEST_F(TakeFromFragmentTest, SparseOffsetsReadOnlyTheirBatches) {
  ASSERT_NO_FATAL_FAILURE(ExpectTaken({3}, 1));
  ASSERT_NO_FATAL_FAILURE(ExpectTaken({0, 255, 256, 999}, 3));  // batch edges, the last row
  ASSERT_NO_FATAL_FAILURE(ExpectTaken({600, 601, 700}, 1));
}

TEST_F(TakeFromFragmentTest, DenseOffsetsOverSeveralBatches) {
  std::vector<uint32_t> every_other;
  for (uint32_t offset = 100; offset < 900; offset += 2) every_other.push_back(offset);
  ASSERT_NO_FATAL_FAILURE(ExpectTaken(every_other, 4));
  std::vector<uint32_t> all(kRows);
  for (uint32_t offset = 0; offset < kRows; ++offset) all[offset] = offset;
  ASSERT_NO_FATAL_FAILURE(ExpectTaken(all, 4));
  // Dense in one batch, sparse in the next.
  std::vector<uint32_t> mixed;
  for (uint32_t offset = 0; offset < 200; ++offset) mixed.push_back(offset);
  mixed.push_back(300);
  mixed.push_back(511);
  ASSERT_NO_FATAL_FAILURE(ExpectTaken(mixed, 2));
}

TEST_F(TakeFromFragmentTest, RepeatedOffsetsRepeatTheirRows) {
  ASSERT_NO_FATAL_FAILURE(ExpectTaken({5, 5, 5, 300, 300, 999, 999}, 3));
  std::vector<uint32_t> dense_repeated;
  for (uint32_t offset = 0; offset < 64; ++offset) {
    dense_repeated.push_back(offset);
    dense_repeated.push_back(offset);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectTaken(dense_repeated, 1));
}

TEST_F(TakeFromFragmentTest, NoOffsetsIsAnEmptyBatchOfTheColumns) {
  ASSERT_NO_FATAL_FAILURE(ExpectTaken({}, 0));
}

TEST_F(TakeFromFragmentTest, ColumnsComeInTheReadersOrder) {
  auto reader = ReaderOf({2, 1, 0});
  ASSERT_NE(reader, nullptr);
  ASSERT_OK_AND_ASSIGN(auto batch, TakeFromFragment(*reader, {7, 10, 12}));
  ASSERT_EQ(batch->num_columns(), 3);
  EXPECT_EQ(batch->schema()->field(0)->name(), "name");
  EXPECT_EQ(batch->schema()->field(1)->name(), "value");
  EXPECT_EQ(batch->schema()->field(2)->name(), "id");
  const auto& values = static_cast<const arrow::DoubleArray&>(*batch->column(1));
  EXPECT_TRUE(values.IsNull(1));  // id 10 % 7 == 3
  EXPECT_EQ(values.Value(0), 3.5);
  EXPECT_EQ(values.Value(2), 6.0);
}

// Offsets past the fragment's rows are an error, never a crash or a wrong row.
TEST_F(TakeFromFragmentTest, AnOffsetPastTheRowsIsAnError) {
  auto reader = ReaderOf({0});
  ASSERT_NE(reader, nullptr);
  for (const std::vector<uint32_t>& offsets : std::vector<std::vector<uint32_t>>{
           {static_cast<uint32_t>(kRows)}, {1, 2, 5000}, {990, 1010}}) {
    EXPECT_FALSE(TakeFromFragment(*reader, offsets).ok()) << offsets.back();
  }
}

}  // namespace
}  // namespace tessera::dataset::take_test
