// GatherRows: rows picked across several arrays come out as Arrow's take kernel would give them,
// for every layout it copies by type (fixed width, booleans, strings, fixed-size lists), for
// those it appends through builders (lists, fixed-size lists with null children) and for those
// only the kernel takes (extension types): sliced inputs, nulls, repeats and any order.
#include "tessera/dataset/gather_rows.h"

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>
#include <arrow/extension/uuid.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <random>

#include "support/status_assertions.h"

namespace tessera::dataset::gather_rows_test {
namespace {

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

// Picks 300 random rows (repeats likely) of three slices of `whole` and checks GatherRows
// against Arrow's take of `whole` at the same positions.
void ExpectGatheredLikeTaken(const std::shared_ptr<arrow::Array>& whole) {
  SCOPED_TRACE(whole->type()->ToString());
  // Three arrays with offsets: rows [1, 4), [4, 9) and [9, length) of `whole`.
  const std::vector<int64_t> starts = {1, 4, 9};
  std::vector<std::shared_ptr<arrow::Array>> pieces;
  std::vector<const arrow::ArrayData*> arrays;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t end = i + 1 < starts.size() ? starts[i + 1] : whole->length();
    pieces.push_back(whole->Slice(starts[i], end - starts[i]));
    arrays.push_back(pieces.back()->data().get());
  }
  std::mt19937 random(11);
  std::vector<RowOfBatches> rows;
  arrow::Int64Builder positions;
  for (int i = 0; i < 300; ++i) {
    const size_t piece = random() % pieces.size();
    const int64_t row = static_cast<int64_t>(random() % pieces[piece]->length());
    rows.push_back({piece, row});
    ASSERT_OK(positions.Append(starts[piece] + row));
  }
  ASSERT_OK_AND_ASSIGN(auto gathered, GatherRows(whole->type(), arrays, rows));
  ASSERT_OK(gathered->ValidateFull());
  ASSERT_OK_AND_ASSIGN(auto indices, positions.Finish());
  ASSERT_OK_AND_ASSIGN(auto expected, arrow::compute::Take(*whole, *indices));
  EXPECT_TRUE(gathered->Equals(*expected, arrow::EqualOptions::Defaults().nans_equal(true)))
      << gathered->ToString() << "\nvs\n"
      << expected->ToString();
  EXPECT_EQ(gathered->null_count(), expected->null_count());

  ASSERT_OK_AND_ASSIGN(auto none, GatherRows(whole->type(), arrays, {}));
  ASSERT_OK(none->ValidateFull());
  EXPECT_EQ(none->length(), 0);
}

TEST(GatherRows, EveryLayoutGivesWhatArrowsTakeGives) {
  const std::vector<std::pair<std::shared_ptr<arrow::DataType>, std::string>> columns = {
      {arrow::int8(), "[1, -128, null, 127, 0, 5, 6, 7, 8, 9, null, 11]"},
      {arrow::int64(), "[1, 9007199254740993, null, -5, 6, 7, 8, 9, 10, 11, 12, null]"},
      {arrow::uint16(), "[1, 65535, null, 1, 2, 3, 4, 5, 6, 7, 8, 9]"},
      {arrow::float64(), "[null, 3.5, Inf, -1e300, NaN, 1, 2, 3, 4, 5, 6, 7]"},
      {arrow::float32(), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"},  // no nulls: no bitmap
      {arrow::date32(), "[19723, null, 0, -1, 1, 2, 3, 4, 5, 6, 7, 8]"},
      {arrow::decimal128(20, 2), R"(["1.00", null, "-3.25", "4.50", "5.00", "6.00", "7.00",
                                     "8.00", "9.00", "10.00", "11.00", "12.00"])"},
      {arrow::fixed_size_binary(3),
       R"(["abc", null, "def", "ghi", "jkl", "mno", "pqr", "stu", "vwx", "yz0", "123", "456"])"},
      {arrow::boolean(),
       "[true, false, null, true, true, false, false, true, null, true, true, "
       "false]"},
      {arrow::utf8(), R"(["a", null, "", "é\n\"q\"", "bb", "ccc", "d", "", "eeee", null, "f",
                          "g"])"},
      {arrow::large_utf8(), R"([null, "x", "yy", "", "z", "zz", "zzz", "w", "ww", "www", "v",
                                "vv"])"},
      {arrow::binary(), R"(["AA", null, "", "B", "C", "D", "E", "F", "G", "H", "I", "J"])"},
      {arrow::fixed_size_list(arrow::float32(), 3),
       "[[1, 2, 3], null, [0.5, -1, 2], [0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4], "
       "[5, 5, 5], [6, 6, 6], [7, 7, 7], [8, 8, 8]]"},
      // A null inside a vector: appended through the builder, not copied as a run.
      {arrow::fixed_size_list(arrow::int32(), 2),
       "[[1, 2], [3, null], null, [5, 6], [7, 8], [9, 10], [11, 12], [13, 14], [15, 16], "
       "[17, 18], [19, 20], [21, 22]]"},
      {arrow::list(arrow::utf8()),
       R"([["a", "b"], [], null, ["c", null], ["d"], [], ["e"], ["f"], null, ["g"], ["h"],
           ["i"]])"},
  };
  for (const auto& [type, json] : columns) ExpectGatheredLikeTaken(FromJson(type, json));
}

// A type no builder can append (an extension type) is taken by Arrow's kernel.
TEST(GatherRows, TypesWithoutABuilderAreTakenByTheKernel) {
  auto storage = FromJson(arrow::fixed_size_binary(16),
                          R"(["0123456789abcdef", null, "fedcba9876543210", "aaaaaaaaaaaaaaaa",
                              "bbbbbbbbbbbbbbbb", "cccccccccccccccc", "dddddddddddddddd",
                              "eeeeeeeeeeeeeeee", "ffffffffffffffff", "gggggggggggggggg",
                              "hhhhhhhhhhhhhhhh", "iiiiiiiiiiiiiiii"])");
  auto uuids = arrow::ExtensionType::WrapArray(arrow::extension::uuid(), storage);
  ASSERT_FALSE(arrow::MakeBuilder(uuids->type()).ok());  // what makes this test mean something
  ExpectGatheredLikeTaken(uuids);
}

}  // namespace
}  // namespace tessera::dataset::gather_rows_test
