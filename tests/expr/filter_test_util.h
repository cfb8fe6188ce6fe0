// Helpers shared by the filter tests: a schema with one column of every supported type, and
// batches built from JSON.
#pragma once

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/expr/filter.h"
#include "tessera/status.h"

namespace tessera::expr::testing {

inline std::shared_ptr<arrow::Schema> WideSchema() {
  return arrow::schema({
      arrow::field("i8", arrow::int8()),
      arrow::field("i64", arrow::int64()),
      arrow::field("u8", arrow::uint8()),
      arrow::field("u64", arrow::uint64()),
      arrow::field("f16", arrow::float16()),
      arrow::field("f32", arrow::float32()),
      arrow::field("price", arrow::float64()),
      arrow::field("flag", arrow::boolean()),
      arrow::field("category", arrow::utf8()),
      arrow::field("big_text", arrow::large_utf8()),
      arrow::field("blob", arrow::binary()),
      arrow::field("day", arrow::date32()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::SECOND)),
      arrow::field("ts_us_utc", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
      arrow::field("tags", arrow::list(arrow::utf8())),
      arrow::field("ids", arrow::list(arrow::int64())),
      arrow::field("vec", arrow::fixed_size_list(arrow::float32(), 4)),
      arrow::field("amount", arrow::decimal128(10, 2)),
      arrow::field("my col", arrow::int32()),
  });
}

// A batch of the named columns, each given as (type, JSON array); all of equal length.
inline std::shared_ptr<arrow::RecordBatch> MakeBatch(
    const std::vector<std::tuple<std::string, std::shared_ptr<arrow::DataType>, std::string>>&
        columns) {
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (const auto& [name, type, json] : columns) {
    auto array = arrow::json::ArrayFromJSONString(type, json);
    EXPECT_TRUE(array.ok()) << name << ": " << array.status().ToString();
    fields.push_back(arrow::field(name, type));
    arrays.push_back(*array);
  }
  const int64_t rows = arrays.empty() ? 0 : arrays[0]->length();
  return arrow::RecordBatch::Make(arrow::schema(fields), rows, arrays);
}

// The values of a boolean array as optionals (nullopt = null), for readable expectations.
inline std::vector<std::optional<bool>> Values(const arrow::BooleanArray& array) {
  std::vector<std::optional<bool>> values;
  for (int64_t i = 0; i < array.length(); ++i) {
    values.push_back(array.IsNull(i) ? std::nullopt : std::optional<bool>(array.Value(i)));
  }
  return values;
}

inline constexpr std::nullopt_t kNull = std::nullopt;

// One truth value per row: true, false or nullopt (unknown).
using Truth = std::vector<std::optional<bool>>;

// Evaluates `text` over `batch` (parsed against the batch's own schema): true / false /
// unknown per row; empty (and a test failure) when it does not parse or evaluate.
inline Truth EvaluateText(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  auto filter = Filter::Parse(text, batch->schema());
  EXPECT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
  if (!filter.ok()) return {};
  auto result = (*filter)->Evaluate(*batch);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().ToString();
  if (!result.ok()) return {};
  return Values(**result);
}

// The rows a WHERE `text` keeps over `batch` (Filter::Select).
inline Truth SelectText(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  auto filter = Filter::Parse(text, batch->schema());
  EXPECT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
  if (!filter.ok()) return {};
  auto selected = (*filter)->Select(*batch);
  EXPECT_TRUE(selected.ok()) << text << ": " << selected.status().ToString();
  if (!selected.ok()) return {};
  return Values(**selected);
}

}  // namespace tessera::expr::testing
