// Every supported column type, with nulls, survives create → scan and take unchanged.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/ipc/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <random>

#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"

namespace tessera::dataset::types_test {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

std::shared_ptr<arrow::RecordBatch> AllTypesBatch() {
  std::vector<std::pair<std::string, std::shared_ptr<arrow::Array>>> columns = {
      {"i8", FromJson(arrow::int8(), "[-128, null, 127, 0]")},
      {"i16", FromJson(arrow::int16(), "[1, 2, null, -3]")},
      {"i32", FromJson(arrow::int32(), "[null, 2147483647, 0, -1]")},
      {"i64", FromJson(arrow::int64(), "[9007199254740993, null, -5, 6]")},
      {"u8", FromJson(arrow::uint8(), "[255, 0, null, 7]")},
      {"u16", FromJson(arrow::uint16(), "[65535, null, 1, 2]")},
      {"u32", FromJson(arrow::uint32(), "[4294967295, 1, 2, null]")},
      {"u64", FromJson(arrow::uint64(), "[18446744073709551615, null, 3, 4]")},
      {"f16", FromJson(arrow::float16(), "[1.5, null, -2.0, 0.0]")},
      {"f32", FromJson(arrow::float32(), "[1.25, null, NaN, -0.0]")},
      {"f64", FromJson(arrow::float64(), "[null, 3.5, Inf, -1e300]")},
      {"flag", FromJson(arrow::boolean(), "[true, false, null, true]")},
      {"text", FromJson(arrow::utf8(), R"(["a", null, "", "é\n\"q\""])")},
      {"large_text", FromJson(arrow::large_utf8(), R"([null, "x", "yy", ""])")},
      {"blob", FromJson(arrow::binary(), R"(["AA", null, "", "B"])")},
      {"day", FromJson(arrow::date32(), "[19723, null, 0, -1]")},
      {"ts",
       FromJson(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1704103200000000, null, 0, 1]")},
      {"ts_ns", FromJson(arrow::timestamp(arrow::TimeUnit::NANO), "[1, 2, null, 3]")},
      {"vec32", FromJson(arrow::fixed_size_list(arrow::float32(), 3),
                         "[[1, 2, 3], null, [0.5, -1, 2], [0, 0, 0]]")},
      {"vec16",
       FromJson(arrow::fixed_size_list(arrow::float16(), 2), "[[1, 2], [3, 4], null, [0.5, -1]]")},
      {"tags", FromJson(arrow::list(arrow::utf8()), R"([["a", "b"], [], null, ["c", null]])")},
      {"numbers", FromJson(arrow::list(arrow::int64()), "[[1], null, [2, 3, null], []]")},
  };
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (auto& [name, array] : columns) {
    fields.push_back(arrow::field(name, array->type()));
    arrays.push_back(array);
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), 4, arrays);
}

const arrow::EqualOptions kNansEqual = arrow::EqualOptions::Defaults().nans_equal(true);

TEST(DatasetTypes, EverySupportedTypeRoundTripsWithNulls) {
  TempDirectory directory;
  auto batch = AllTypesBatch();
  WriteOptions options;
  options.rows_per_batch = 3;  // rows span two batches inside the data file
  auto dataset = Dataset::Create(directory.Child("ds"), ReaderOf(batch), options);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();

  auto opened = Dataset::Open(directory.Child("ds"));
  ASSERT_TRUE(opened.ok());
  EXPECT_TRUE((*opened)->schema()->Equals(*batch->schema()));
  auto table = (*opened)->ScanToTable({});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto combined = (*table)->CombineChunksToBatch().ValueOrDie();
  EXPECT_TRUE(combined->Equals(*batch, false, kNansEqual)) << combined->ToString() << "\nvs\n"
                                                           << batch->ToString();

  auto taken = (*opened)->Take({MakeRowAddress(0, 3), MakeRowAddress(0, 1)});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto taken_batch = (*taken)->CombineChunksToBatch().ValueOrDie();
  auto expected = arrow::RecordBatch::FromStructArray(
                      arrow::Concatenate({batch->ToStructArray().ValueOrDie()->Slice(3, 1),
                                          batch->ToStructArray().ValueOrDie()->Slice(1, 1)})
                          .ValueOrDie())
                      .ValueOrDie();
  EXPECT_TRUE(taken_batch->Equals(*expected, false, kNansEqual)) << taken_batch->ToString();
}

// A take copies few rows one by one and runs Arrow's take kernel for many (dataset/take.cc):
// both give the rows asked for, in the order asked, repeats and nulls included, for every type.
TEST(DatasetTypes, FewAndManyRowTakesGiveTheRowsAskedForOfEveryType) {
  TempDirectory directory;
  auto rows = AllTypesBatch();
  arrow::RecordBatchVector copies(100, rows);
  auto table = arrow::Table::FromRecordBatches(copies).ValueOrDie();
  auto batch = table->CombineChunksToBatch().ValueOrDie();
  WriteOptions options;
  options.rows_per_batch = 7;
  options.max_rows_per_file = 150;  // three fragments
  ASSERT_TRUE(Dataset::Create(directory.Child("ds"), ReaderOf(batch), options).ok());
  auto opened = Dataset::Open(directory.Child("ds")).ValueOrDie();
  ASSERT_EQ(opened->manifest().fragments_size(), 3);

  std::mt19937 random(7);
  for (size_t count : {size_t{1}, size_t{10}, size_t{256}, size_t{257}, size_t{1000}}) {
    std::vector<uint64_t> addresses;
    std::vector<int64_t> positions;
    for (size_t i = 0; i < count; ++i) {
      const int64_t row = static_cast<int64_t>(random() % 400);  // repeats when count > 20 or so
      positions.push_back(row);
      addresses.push_back(MakeRowAddress(opened->manifest().fragments(row / 150).id(),
                                         static_cast<uint32_t>(row % 150)));
    }
    auto taken = opened->Take(addresses);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    auto taken_batch = (*taken)->CombineChunksToBatch().ValueOrDie();
    arrow::Int64Builder indices;
    ASSERT_TRUE(indices.AppendValues(positions).ok());
    auto expected = arrow::compute::Take(batch, indices.Finish().ValueOrDie()).ValueOrDie();
    EXPECT_TRUE(taken_batch->Equals(*expected.record_batch(), false, kNansEqual))
        << count << " rows";
  }
}

}  // namespace
}  // namespace tessera::dataset::types_test
