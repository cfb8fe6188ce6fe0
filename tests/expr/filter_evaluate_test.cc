// Evaluation of filters over Arrow batches: SQL three-valued logic, exact comparisons across
// types, every operator and column type.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/filter_test_util.h"
#include "tessera/expr/filter.h"

namespace tessera::expr::filter_evaluate_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kNull;
using testing::MakeBatch;
using testing::Truth;
using testing::Values;

Truth Eval(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  return testing::EvaluateText(text, batch);
}

std::shared_ptr<arrow::RecordBatch> Numbers() {
  return MakeBatch({
      {"x", arrow::int64(), "[1, 2, null, 4]"},
      {"u8", arrow::uint8(), "[0, 255, null, 7]"},
      {"u64", arrow::uint64(), "[0, 18446744073709551615, null, 9223372036854775808]"},
      {"i64", arrow::int64(), "[-1, 9223372036854775807, 5, -9223372036854775808]"},
      {"f", arrow::float64(), "[0.5, 2.0, null, -3.25]"},
      {"f32", arrow::float32(), "[0.1, 0.2, 1e38, null]"},
      {"f16", arrow::float16(), "[1.0, 0.5, null, 65504]"},
  });
}

TEST(FilterEvaluate, ThreeValuedLogic) {
  auto batch = Numbers();
  EXPECT_EQ(Eval("x > 1", batch), (Truth{false, true, kNull, true}));
  EXPECT_EQ(Eval("NOT x > 1", batch), (Truth{true, false, kNull, false}));
  EXPECT_EQ(Eval("x IS NULL", batch), (Truth{false, false, true, false}));
  EXPECT_EQ(Eval("x IS NOT NULL", batch), (Truth{true, true, false, true}));
  // Kleene: unknown AND false = false, unknown OR true = true.
  EXPECT_EQ(Eval("x > 1 AND FALSE", batch), (Truth{false, false, false, false}));
  EXPECT_EQ(Eval("x > 1 AND u8 < 100", batch), (Truth{false, false, kNull, true}));
  EXPECT_EQ(Eval("x > 1 OR TRUE", batch), (Truth{true, true, true, true}));
  EXPECT_EQ(Eval("x > 1 OR f < 0", batch), (Truth{false, true, kNull, true}));
  // SQL IN with NULL: a miss against a list holding NULL is unknown.
  EXPECT_EQ(Eval("x IN (1, NULL)", batch), (Truth{true, kNull, kNull, kNull}));
  EXPECT_EQ(Eval("x NOT IN (1, NULL)", batch), (Truth{false, kNull, kNull, kNull}));
  EXPECT_EQ(Eval("x IN (1, 4)", batch), (Truth{true, false, kNull, true}));
  EXPECT_EQ(Eval("x NOT IN (1, 4)", batch), (Truth{false, true, kNull, false}));
  // A comparison with NULL is unknown everywhere, and NOT keeps it unknown.
  EXPECT_EQ(Eval("x = NULL", batch), (Truth{kNull, kNull, kNull, kNull}));
  EXPECT_EQ(Eval("NOT (x = NULL)", batch), (Truth{kNull, kNull, kNull, kNull}));
}

TEST(FilterEvaluate, SelectTurnsUnknownIntoFalse) {
  auto batch = Numbers();
  auto filter = *Filter::Parse("x > 1 OR x IN (1, NULL)", batch->schema());
  auto truth = *filter->Evaluate(*batch);
  EXPECT_EQ(Values(*truth), (Truth{true, true, kNull, true}));
  auto selected = *filter->Select(*batch);
  EXPECT_EQ(selected->null_count(), 0);
  EXPECT_EQ(Values(*selected), (Truth{true, true, false, true}));
}

TEST(FilterEvaluate, IntegerLiteralsOutsideTheColumnRangeAreExact) {
  auto batch = Numbers();
  EXPECT_EQ(Eval("u8 < 300", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u8 > 300", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("u8 = 300", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("NOT u8 = 300", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u8 != 300", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u8 > -1", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u8 <= -1", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("u8 IN (-1, 255, 256)", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("u8 BETWEEN -5 AND 7", batch), (Truth{true, false, kNull, true}));
  EXPECT_EQ(Eval("u64 = 18446744073709551615", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("u64 > 9223372036854775807", batch), (Truth{false, true, kNull, true}));
  EXPECT_EQ(Eval("u64 > -1", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("i64 < 9223372036854775808", batch), (Truth{true, true, true, true}));
  EXPECT_EQ(Eval("i64 >= -9223372036854775808", batch), (Truth{true, true, true, true}));
  // Float literals against integer columns, and the other way round.
  EXPECT_EQ(Eval("x > 1.5", batch), (Truth{false, true, kNull, true}));
  EXPECT_EQ(Eval("x = 2.0", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("x != 2.5", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("x <= 1e300", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("f > 1", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("f = 2", batch), (Truth{false, true, kNull, false}));
}

TEST(FilterEvaluate, ColumnAgainstColumn) {
  auto batch = Numbers();
  // int64 vs uint64 must not overflow: 9223372036854775807 < 18446744073709551615.
  EXPECT_EQ(Eval("i64 < u64", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u64 > i64", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("u8 = x", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("u8 > x", batch), (Truth{false, true, kNull, true}));
  EXPECT_EQ(Eval("x < f", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("f16 < f", batch), (Truth{false, true, kNull, false}));
}

TEST(FilterEvaluate, FloatColumns) {
  auto batch = Numbers();
  // The literal is rounded to the column's precision, so the stored 0.1f matches 0.1.
  EXPECT_EQ(Eval("f32 = 0.1", batch), (Truth{true, false, false, kNull}));
  EXPECT_EQ(Eval("f32 IN (0.2, 7)", batch), (Truth{false, true, false, kNull}));
  EXPECT_EQ(Eval("f32 < 1e50", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("f32 = 1e50", batch), (Truth{false, false, false, kNull}));
  EXPECT_EQ(Eval("f16 = 1", batch), (Truth{true, false, kNull, false}));
  EXPECT_EQ(Eval("f16 >= 0.5", batch), (Truth{true, true, kNull, true}));
  EXPECT_EQ(Eval("f16 BETWEEN 0.4 AND 0.6", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("f16 IN (0.5, 65504)", batch), (Truth{false, true, kNull, true}));
  EXPECT_EQ(Eval("f16 > 70000", batch), (Truth{false, false, kNull, false}));
  EXPECT_EQ(Eval("f16 < 70000", batch), (Truth{true, true, kNull, true}));
}

// Issue 11, finding 1 (a DuckDB differential test): IN told -0.0 from 0.0 (Arrow's is_in
// hashes bits) while `=` does not. IN is `= ANY`, on every float width, NULL in the list kept.
TEST(FilterEvaluate, InIsEqualsAny) {
  for (const auto& type : {arrow::float16(), arrow::float32(), arrow::float64()}) {
    auto batch = MakeBatch({{"z", type, "[0.0, -0.0, 1.0, null, NaN]"}});
    EXPECT_EQ(Eval("z IN (-0.0)", batch), Eval("z = -0.0", batch)) << type->ToString();
    EXPECT_EQ(Eval("z IN (0.0)", batch), (Truth{true, true, false, kNull, false}))
        << type->ToString();
    EXPECT_EQ(Eval("z IN (-0.0, 0.0)", batch), (Truth{true, true, false, kNull, false}));
    EXPECT_EQ(Eval("z NOT IN (0.0)", batch), (Truth{false, false, true, kNull, true}));
    EXPECT_EQ(Eval("z IN (0.0, NULL)", batch), (Truth{true, true, kNull, kNull, kNull}));
    EXPECT_EQ(Eval("z NOT IN (-0.0, 1)", batch), (Truth{false, false, false, kNull, true}));
  }
}

std::shared_ptr<arrow::RecordBatch> Strings() {
  return MakeBatch({
      {"s", arrow::utf8(), R"(["apple", "it's", null, "100%", "a\\b", "héllo", ""])"},
      {"ls", arrow::large_utf8(), R"(["apple", "b", "c", null, "e", "f", "g"])"},
      {"b", arrow::binary(), R"(["apple", "x", null, "y", "z", "w", "v"])"},
      {"flag", arrow::boolean(), "[true, false, null, true, false, true, false]"},
  });
}

TEST(FilterEvaluate, StringsBinaryAndBooleans) {
  auto batch = Strings();
  EXPECT_EQ(Eval("s = 'apple'", batch), (Truth{true, false, kNull, false, false, false, false}));
  EXPECT_EQ(Eval("s = 'it''s' OR s = 'a\\\\b'", batch),
            (Truth{false, true, kNull, false, true, false, false}));
  EXPECT_EQ(Eval("s < 'b'", batch), (Truth{true, false, kNull, true, true, false, true}));
  EXPECT_EQ(Eval("ls >= 'c'", batch), (Truth{false, false, true, kNull, true, true, true}));
  EXPECT_EQ(Eval("s = ls", batch), (Truth{true, false, kNull, kNull, false, false, false}));
  EXPECT_EQ(Eval("b = 'apple'", batch), (Truth{true, false, kNull, false, false, false, false}));
  EXPECT_EQ(Eval("b IN ('x', 'y')", batch), (Truth{false, true, kNull, true, false, false, false}));
  EXPECT_EQ(Eval("flag", batch), (Truth{true, false, kNull, true, false, true, false}));
  EXPECT_EQ(Eval("NOT flag", batch), (Truth{false, true, kNull, false, true, false, true}));
  EXPECT_EQ(Eval("flag = false", batch), (Truth{false, true, kNull, false, true, false, true}));
  EXPECT_EQ(Eval("flag < true", batch), (Truth{false, true, kNull, false, true, false, true}));
}

TEST(FilterEvaluate, Like) {
  auto batch = Strings();
  EXPECT_EQ(Eval("s LIKE 'a%'", batch), (Truth{true, false, kNull, false, true, false, false}));
  EXPECT_EQ(Eval("s NOT LIKE 'a%'", batch), (Truth{false, true, kNull, true, false, true, true}));
  EXPECT_EQ(Eval("s LIKE '%'", batch), (Truth{true, true, kNull, true, true, true, true}));
  // _ is one character, even a multi-byte one.
  EXPECT_EQ(Eval("s LIKE 'h_llo'", batch), (Truth{false, false, kNull, false, false, true, false}));
  EXPECT_EQ(Eval("s LIKE '___'", batch), (Truth{false, false, kNull, false, true, false, false}));
  // Escaped wildcards match themselves; '\\' in the filter text is one backslash.
  EXPECT_EQ(Eval("s LIKE '%\\%'", batch), (Truth{false, false, kNull, true, false, false, false}));
  EXPECT_EQ(Eval("s LIKE '%\\\\%'", batch),
            (Truth{false, false, kNull, true, false, false, false}));
  EXPECT_EQ(Eval("s LIKE 'a\\\\\\\\b'", batch),
            (Truth{false, false, kNull, false, true, false, false}));
  EXPECT_EQ(Eval("ls LIKE 'a%'", batch), (Truth{true, false, false, kNull, false, false, false}));
  EXPECT_EQ(Eval("s LIKE NULL", batch), (Truth(7, kNull)));
}

TEST(FilterEvaluate, DatesAndTimestamps) {
  auto batch = MakeBatch({
      {"d", arrow::date32(), "[19723, 19724, null, -1]"},  // 2024-01-01, 2024-01-02, 1969-12-31
      {"ts", arrow::timestamp(arrow::TimeUnit::SECOND),
       R"(["2024-01-01 10:00:00", "2024-01-01 10:00:01", null, "1969-12-31 23:59:59"])"},
      {"tz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
       R"(["2024-01-01 00:00:00.5", "2024-01-02 00:00:00", "2024-01-03 00:00:00", null])"},
      {"ns", arrow::timestamp(arrow::TimeUnit::NANO),
       "[1704067200000000001, null, 9223372036854775807, -9223372036854775808]"},
  });
  EXPECT_EQ(Eval("d = DATE '2024-01-01'", batch), (Truth{true, false, kNull, false}));
  EXPECT_EQ(Eval("d = '2024-01-01'", batch), (Truth{true, false, kNull, false}));
  EXPECT_EQ(Eval("d < DATE '1970-01-01'", batch), (Truth{false, false, kNull, true}));
  EXPECT_EQ(Eval("d > TIMESTAMP '2024-01-01 00:00:00'", batch), (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("d >= TIMESTAMP '2024-01-01 00:00:01'", batch),
            (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("d BETWEEN '2024-01-01' AND '2024-01-01 23:00'", batch),
            (Truth{true, false, kNull, false}));
  EXPECT_EQ(Eval("ts > TIMESTAMP '2024-01-01 10:00:00'", batch),
            (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("ts >= TIMESTAMP '2024-01-01 10:00:00.5'", batch),
            (Truth{false, true, kNull, false}));
  EXPECT_EQ(Eval("ts < DATE '1970-01-01'", batch), (Truth{false, false, kNull, true}));
  EXPECT_EQ(Eval("tz > DATE '2024-01-01'", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("tz = '2024-01-01 00:00:00.5'", batch), (Truth{true, false, false, kNull}));
  EXPECT_EQ(Eval("tz IN (DATE '2024-01-02', TIMESTAMP '2024-01-03 00:00:00')", batch),
            (Truth{false, true, true, kNull}));
  // Literals beyond the nanosecond range (years 1677-2262) still compare exactly.
  EXPECT_EQ(Eval("ns < DATE '3000-01-01'", batch), (Truth{true, kNull, true, true}));
  EXPECT_EQ(Eval("ns > DATE '1000-01-01'", batch), (Truth{true, kNull, true, true}));
  EXPECT_EQ(Eval("ns = DATE '3000-01-01'", batch), (Truth{false, kNull, false, false}));
  EXPECT_EQ(Eval("ns > TIMESTAMP '2024-01-01 00:00:00'", batch), (Truth{true, kNull, true, false}));
  // Dates against timestamps, column against column.
  EXPECT_EQ(Eval("d < ts", batch), (Truth{true, false, kNull, true}));
  EXPECT_EQ(Eval("d = tz", MakeBatch({{"d", arrow::date32(), "[19724]"},
                                      {"tz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                       R"(["2024-01-02 00:00:00"])"}})),
            (Truth{true}));
}

std::shared_ptr<arrow::RecordBatch> Lists() {
  return MakeBatch({
      {"tags", arrow::list(arrow::utf8()),
       R"([["a", "b"], [], null, ["b", null, "c"], ["c", "c"], [null], ["a", "b", "c"]])"},
      {"ids", arrow::large_list(arrow::int64()),
       "[[1, 2], [3], [1, null], null, [], [2, 2, 1], [5]]"},
      {"small", arrow::list(arrow::uint8()), "[[1], [255], null, [], [0], [2], [3]]"},
  });
}

TEST(FilterEvaluate, ArrayHasAnyAndAll) {
  auto batch = Lists();
  EXPECT_EQ(Eval("array_has_any(tags, ['a', 'c'])", batch),
            (Truth{true, false, kNull, true, true, false, true}));
  EXPECT_EQ(Eval("array_has_all(tags, ['b', 'c'])", batch),
            (Truth{false, false, kNull, true, false, false, true}));
  EXPECT_EQ(Eval("array_has_all(tags, ['c', 'c'])", batch),
            (Truth{false, false, kNull, true, true, false, true}));
  EXPECT_EQ(Eval("NOT array_has_any(tags, ['b'])", batch),
            (Truth{false, true, kNull, false, true, true, false}));
  EXPECT_EQ(Eval("array_has_any(tags, [])", batch),
            (Truth{false, false, kNull, false, false, false, false}));
  EXPECT_EQ(Eval("array_has_all(tags, [])", batch),
            (Truth{true, true, kNull, true, true, true, true}));
  EXPECT_EQ(Eval("array_has_any(ids, [1])", batch),
            (Truth{true, false, true, kNull, false, true, false}));
  EXPECT_EQ(Eval("array_has_all(ids, [1, 2])", batch),
            (Truth{true, false, false, kNull, false, true, false}));
  EXPECT_EQ(Eval("array_has_any(small, [255, 256, -1])", batch),
            (Truth{false, true, kNull, false, false, false, false}));
  EXPECT_EQ(Eval("array_has_all(small, [1, 256])", batch),
            (Truth{false, false, kNull, false, false, false, false}));
  EXPECT_EQ(Eval("tags IS NULL", batch), (Truth{false, false, true, false, false, false, false}));

  // A slice starts mid-way through the child arrays: offsets must be honoured.
  auto filter =
      *Filter::Parse("array_has_all(tags, ['c']) AND array_has_any(ids, [2, 5])", batch->schema());
  auto sliced = batch->Slice(3, 4);
  EXPECT_EQ(Values(**filter->Evaluate(*sliced)), (Truth{kNull, false, false, true}));
}

TEST(FilterEvaluate, BatchesAreMatchedByName) {
  auto schema =
      arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8())});
  auto filter = *Filter::Parse("a > 1 AND b = 'x'", schema);
  // Other columns, other order: fine.
  auto batch = MakeBatch({{"z", arrow::float64(), "[1, 2]"},
                          {"b", arrow::utf8(), R"(["x", "x"])"},
                          {"a", arrow::int64(), "[1, 2]"}});
  EXPECT_EQ(Values(**filter->Evaluate(*batch)), (Truth{false, true}));

  auto missing = filter->Evaluate(*MakeBatch({{"a", arrow::int64(), "[1]"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("no column 'b'"));

  auto retyped = filter->Evaluate(
      *MakeBatch({{"a", arrow::int32(), "[1]"}, {"b", arrow::utf8(), R"(["x"])"}}));
  ASSERT_FALSE(retyped.ok());
  EXPECT_EQ(KindOf(retyped.status()), ErrorKind::kInvalidArgument);
  EXPECT_THAT(retyped.status().message(), HasSubstr("column 'a' is int32 in the batch"));

  // Lists match by element type, whatever their child field is called.
  auto list_schema = arrow::schema({arrow::field("l", arrow::list(arrow::utf8()))});
  auto list_filter = *Filter::Parse("array_has_any(l, ['x'])", list_schema);
  auto parquet_style =
      MakeBatch({{"l", arrow::list(arrow::field("element", arrow::utf8())), R"([["x"], ["y"]])"}});
  EXPECT_EQ(Values(**list_filter->Evaluate(*parquet_style)), (Truth{true, false}));

  // Empty batches give empty answers.
  auto empty = MakeBatch({{"a", arrow::int64(), "[]"}, {"b", arrow::utf8(), "[]"}});
  EXPECT_EQ((*filter->Evaluate(*empty))->length(), 0);
  auto constant = *Filter::Parse("TRUE", schema);
  EXPECT_EQ(Values(**constant->Evaluate(*batch)), (Truth{true, true}));
}

}  // namespace
}  // namespace tessera::expr::filter_evaluate_test
