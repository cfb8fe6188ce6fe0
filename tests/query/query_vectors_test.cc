// Query vectors read from a column (query/query_vectors.h): any list of numbers, compared as
// float32; a null row, a null value or a column of another kind is an error naming the row or
// the column.
#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/query/query_vectors.h"

namespace tessera::query::query_vectors_test {
namespace {

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type,
                                   const std::string& json) {
  return arrow::json::ArrayFromJSONString(type, json).ValueOrDie();
}

// The column's vectors, or the error's message.
std::string Read(const arrow::Array& column, std::vector<std::vector<float>>* vectors) {
  const arrow::Status status = ForEachVector(
      column, "q", [](int64_t row) { return "query " + std::to_string(row); },
      [&](int64_t, const float* values, int64_t length) {
        vectors->emplace_back(values, values + length);
        return arrow::Status::OK();
      });
  return status.ok() ? "" : status.message();
}

TEST(QueryVectors, AnyListOfNumbersIsReadAsFloats) {
  for (const auto& type : {arrow::fixed_size_list(arrow::float32(), 2),
                           arrow::list(arrow::float64()), arrow::large_list(arrow::int32())}) {
    SCOPED_TRACE(type->ToString());
    std::vector<std::vector<float>> vectors;
    EXPECT_EQ(Read(*Json(type, "[[1, 2], [3, -4]]"), &vectors), "");
    EXPECT_EQ(vectors, (std::vector<std::vector<float>>{{1, 2}, {3, -4}}));
    EXPECT_TRUE(IsVectorLike(*type));
  }
}

TEST(QueryVectors, NullsAndOtherColumnsAreErrorsNamingTheRowOrColumn) {
  std::vector<std::vector<float>> vectors;
  EXPECT_EQ(Read(*Json(arrow::list(arrow::float32()), "[[1, 2], null]"), &vectors),
            "query 1 has no vector in column 'q'");
  EXPECT_EQ(Read(*Json(arrow::list(arrow::float32()), "[[1, null]]"), &vectors),
            "query 0 has a null value in its vector in column 'q'");
  EXPECT_NE(Read(*Json(arrow::list(arrow::utf8()), "[[\"a\"]]"), &vectors)
                .find("column 'q' does not hold numbers"),
            std::string::npos);
  EXPECT_NE(Read(*Json(arrow::float32(), "[1]"), &vectors).find("is not a vector column"),
            std::string::npos);
  EXPECT_FALSE(IsVectorLike(*arrow::float32()));
  // The visitor's error stops the walk.
  int visited = 0;
  const arrow::Status stopped = ForEachVector(
      *Json(arrow::list(arrow::float32()), "[[1], [2], [3]]"), "q",
      [](int64_t) { return std::string(); },
      [&](int64_t row, const float*, int64_t) {
        ++visited;
        return row == 1 ? arrow::Status::Invalid("stop") : arrow::Status::OK();
      });
  EXPECT_FALSE(stopped.ok());
  EXPECT_EQ(visited, 2);
}

}  // namespace
}  // namespace tessera::query::query_vectors_test
