// The scanner's late materialization and coalescing (dataset/scanner.cc): a filtered scan
// verifies and evaluates the filter's columns first and reads the other columns only for the
// rows it keeps; the few rows kept by many batches come back copied together, in batches that
// do not depend on how the scan was windowed.
#include <gtest/gtest.h>

#include "support/indexed_dataset.h"
#include "support/ipc_file_surgery.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

namespace tessera::dataset::late_materialization_test {
namespace {

constexpr int64_t kRows = 2048;
constexpr uint64_t kBatchRows = 256;
// Batches whose bodies exceed what a read verifies eagerly (io::VerifiedFile::kEagerReadBytes),
// so that their columns are verified only when used.
constexpr int64_t kLargeRows = 16384;
constexpr uint64_t kLargeBatchRows = 4096;

struct Scanned {
  arrow::Status status;
  std::vector<int64_t> ids;
  int batches = 0;
};

Scanned ScanAll(const Dataset& data, const std::string& filter,
                std::optional<uint64_t> limit = std::nullopt) {
  ScanOptions options;
  options.filter = filter;
  options.limit = limit;
  Scanned scanned;
  auto reader = data.Scan(options);
  if (!reader.ok()) {
    scanned.status = reader.status();
    return scanned;
  }
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    scanned.status = (*reader)->ReadNext(&batch);
    if (!scanned.status.ok() || batch == nullptr) break;
    ++scanned.batches;
    auto table = arrow::Table::FromRecordBatches({batch}).ValueOrDie();
    for (int64_t id : testing::Int64Column(*table, "id")) scanned.ids.push_back(id);
  }
  return scanned;
}

// A dataset of one fragment of four large batches whose last batch has the last byte of its
// `name` strings damaged (a block that holds no byte of the `id` column).
class LateMaterialization : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        data_, Dataset::Create(directory_.Child("ds"), testing::SimpleReader(0, kLargeRows, 2),
                               testing::FragmentsOf(kLargeRows, kLargeBatchRows)));
    const std::string path =
        data_->storage()->AbsolutePath(data_->manifest().fragments(0).files(0).path());
    const auto named = [](const std::string& wanted) {
      return
          [wanted](const std::string& column, const arrow::ArrayData&) { return column == wanted; };
    };
    const auto names = testing::BufferRanges(path, 2, named("name"));
    const auto ids = testing::BufferRanges(path, 1, named("id"));
    ASSERT_EQ(names.size(), kLargeRows / kLargeBatchRows);
    ASSERT_EQ(ids.size(), kLargeRows / kLargeBatchRows);
    const size_t damaged = names.back().offset + names.back().length - 1;
    constexpr size_t kBlock = 4096;
    ASSERT_LT((ids.back().offset + ids.back().length - 1) / kBlock, damaged / kBlock)
        << "the damaged block must hold no id of the batch";
    std::string bytes = testing::ReadBytes(path);
    bytes[damaged] = static_cast<char>(bytes[damaged] ^ 0x5a);
    testing::WriteBytes(path, bytes);
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Dataset> data_;
};

TEST_F(LateMaterialization, ABatchTheFilterRejectsWholeNeverReadsItsOtherColumns) {
  const Scanned scanned = ScanAll(*data_, "id < 10");
  ASSERT_OK(scanned.status);
  EXPECT_EQ(scanned.ids.size(), 10u);
}

TEST_F(LateMaterialization, TheRowsKeptAreVerifiedInEveryColumn) {
  // The last rows of the damaged batch (few: verified row by row): their strings' bytes end
  // with the damaged one.
  const Scanned kept = ScanAll(*data_, "id >= " + std::to_string(kLargeRows - 20));
  EXPECT_EQ(KindOf(kept.status), ErrorKind::kCorrupt) << kept.status.ToString();
  const Scanned unfiltered = ScanAll(*data_, "");
  EXPECT_EQ(KindOf(unfiltered.status), ErrorKind::kCorrupt) << unfiltered.status.ToString();
  EXPECT_EQ(unfiltered.ids.size(), static_cast<size_t>(kLargeRows - kLargeBatchRows))
      << "every batch before the damaged one comes first";
}

TEST(ScanCoalescing, FewRowsOfManyBatchesComeBackInOneBatch) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data,
                       Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, kRows, 2),
                                       testing::FragmentsOf(kRows / 2, kBatchRows)));
  // One row of each batch, over two fragments.
  const Scanned sparse = ScanAll(*data, "id % 256 = 5");
  ASSERT_OK(sparse.status);
  std::vector<int64_t> expected;
  for (int64_t id = 5; id < kRows; id += 256) expected.push_back(id);
  EXPECT_EQ(sparse.ids, expected);
  EXPECT_EQ(sparse.batches, 1) << "eight batches' single rows, copied together";

  // Batches keeping no row in between do not separate the rows held.
  const Scanned gaps = ScanAll(*data, "id % 512 = 5");
  ASSERT_OK(gaps.status);
  EXPECT_EQ(gaps.ids, (std::vector<int64_t>{5, 517, 1029, 1541}));
  EXPECT_EQ(gaps.batches, 1) << "four batches' single rows, with empty batches between them";

  // A limit is met without reading ahead: each batch's rows come as soon as they are found.
  const Scanned limited = ScanAll(*data, "id % 256 = 5", 3);
  ASSERT_OK(limited.status);
  EXPECT_EQ(limited.ids, std::vector<int64_t>(expected.begin(), expected.begin() + 3));
  EXPECT_EQ(limited.batches, 3);

  // Batches that keep many rows come back as they are, between the copied ones, in order.
  const Scanned mixed = ScanAll(*data, "id % 256 = 5 OR (id >= 1024 AND id < 1300)");
  ASSERT_OK(mixed.status);
  std::vector<int64_t> mixed_expected;
  for (int64_t id = 0; id < kRows; ++id) {
    if (id % 256 == 5 || (id >= 1024 && id < 1300)) mixed_expected.push_back(id);
  }
  EXPECT_EQ(mixed.ids, mixed_expected);
}

}  // namespace
}  // namespace tessera::dataset::late_materialization_test
