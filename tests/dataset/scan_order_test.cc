// A scan returns everything before a failure, then the failure, whatever the thread count: the
// scanner's windows of batches (dataset/scanner.h) span fragments, and a fragment that cannot be
// opened must fail after the batches of the fragments before it, as in a serial scan.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"

namespace tessera::dataset::scan_order_test {
namespace {

TEST(ScanOrder, AFragmentThatCannotBeOpenedFailsAfterTheRowsBeforeIt) {
  testing::TempDirectory directory;
  const std::string root = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto data, testing::CreateSimpleDataset(root, 3000, 1000));
  std::filesystem::remove(root + "/" + data->manifest().fragments(1).files(0).path());
  ScanOptions options;
  options.filter = "id >= 0";
  ASSERT_OK_AND_ASSIGN(auto reader, data->Scan(options));
  int64_t rows = 0;
  arrow::Status status;
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    status = reader->ReadNext(&batch);
    if (!status.ok() || batch == nullptr) break;
    rows += batch->num_rows();
  }
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(rows, 1000) << "every row of fragment 0 comes before the error";
}

}  // namespace
}  // namespace tessera::dataset::scan_order_test
