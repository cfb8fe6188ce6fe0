// Creating and appending from Parquet and Arrow IPC files.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/api.h>
#include <gtest/gtest.h>
#include <fstream>

#include "support/ipc_file_surgery.h"
#include "support/parquet_files.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

namespace tessera::dataset::file_source_test {
namespace {

using testing::Int64Column;
using testing::SimpleBatch;
using testing::TempDirectory;

void WriteIpcFile(const std::string& path, const std::shared_ptr<arrow::RecordBatch>& batch) {
  auto out = arrow::io::FileOutputStream::Open(path).ValueOrDie();
  auto writer = arrow::ipc::MakeFileWriter(out, batch->schema()).ValueOrDie();
  ASSERT_TRUE(writer->WriteRecordBatch(*batch).ok());
  ASSERT_TRUE(writer->Close().ok());
  ASSERT_TRUE(out->Close().ok());
}

// Row groups of 16 rows, the Arrow schema stored (fixed_size_list stays one, as pyarrow writes).
void WriteParquetFile(const std::string& path, const std::shared_ptr<arrow::RecordBatch>& batch) {
  testing::WriteParquet(path, batch, {.row_group_rows = 16});
}

TEST(DatasetFiles, CreateFromParquetAndAppendFromIpc) {
  TempDirectory directory;
  WriteParquetFile(directory.Child("a.parquet"), SimpleBatch(0, 40));
  WriteParquetFile(directory.Child("b.parquet"), SimpleBatch(40, 10));
  WriteIpcFile(directory.Child("c.arrow"), SimpleBatch(50, 5));

  auto source = OpenFilesAsReader({directory.Child("a.parquet"), directory.Child("b.parquet")});
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto dataset = Dataset::Create(directory.Child("ds"), *source);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  auto more = OpenFilesAsReader({directory.Child("c.arrow")});
  ASSERT_TRUE(more.ok());
  auto appended = (*dataset)->Append(*more);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  auto table = (*appended)->ScanToTable({});
  ASSERT_TRUE(table.ok());
  std::vector<int64_t> expected(55);
  for (int i = 0; i < 55; ++i) expected[i] = i;
  EXPECT_EQ(Int64Column(**table, "id"), expected);
}

TEST(DatasetFiles, BadInputFilesAreClearErrors) {
  TempDirectory directory;
  auto missing = OpenFilesAsReader({directory.Child("missing.parquet")});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound);

  { std::ofstream(directory.Child("junk.parquet")) << "not parquet"; }
  auto junk = OpenFilesAsReader({directory.Child("junk.parquet")});
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(KindOf(junk.status()), ErrorKind::kInvalidArgument);

  { std::ofstream(directory.Child("data.csv")) << "a,b\n1,2\n"; }
  auto csv = OpenFilesAsReader({directory.Child("data.csv")});
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(KindOf(csv.status()), ErrorKind::kInvalidArgument);

  // Files of differing schemas.
  WriteIpcFile(directory.Child("a.arrow"), SimpleBatch(0, 3));
  WriteIpcFile(directory.Child("b.arrow"), SimpleBatch(0, 3, /*dim=*/2));
  auto mixed = OpenFilesAsReader({directory.Child("a.arrow"), directory.Child("b.arrow")});
  ASSERT_TRUE(mixed.ok());
  auto created = Dataset::Create(directory.Child("ds"), *mixed);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(created.status().message().find("b.arrow"), std::string::npos);
  EXPECT_FALSE(Dataset::Open(directory.Child("ds")).ok());
}

// A damaged input file (string offsets pointing outside their data) is an error of the input,
// before any batch of it reaches a kernel or a data file.
TEST(DatasetFiles, AMalformedInputBatchIsInvalidArgumentNamingTheFile) {
  TempDirectory directory;
  const std::string path = directory.Child("damaged.arrow");
  WriteIpcFile(path, SimpleBatch(0, 50));
  const auto offsets = testing::BufferRanges(
      path, 1, [](const std::string& name, const arrow::ArrayData&) { return name == "name"; });
  ASSERT_EQ(offsets.size(), 1u);
  std::string bytes = testing::ReadBytes(path);
  const int32_t past_the_data = 1 << 20;
  std::memcpy(bytes.data() + offsets[0].offset + 4 * 10, &past_the_data, 4);
  testing::WriteBytes(path, bytes);

  ASSERT_OK_AND_ASSIGN(auto reader, OpenFilesAsReader({path}));
  std::shared_ptr<arrow::RecordBatch> batch;
  const arrow::Status read = reader->ReadNext(&batch);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(KindOf(read), ErrorKind::kInvalidArgument) << read.ToString();
  EXPECT_NE(read.message().find("damaged.arrow"), std::string::npos) << read.ToString();
  ASSERT_OK_AND_ASSIGN(auto again, OpenFilesAsReader({path}));
  EXPECT_EQ(KindOf(Dataset::Create(directory.Child("ds"), again).status()),
            ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::dataset::file_source_test
