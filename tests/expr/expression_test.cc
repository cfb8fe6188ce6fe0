// The expression language inside filters: arithmetic with SQL typing and checked integer
// overflow, CAST / TRY_CAST / ::, CASE, IS [NOT] DISTINCT FROM, IS [NOT] TRUE / FALSE /
// UNKNOWN, COALESCE / NULLIF / GREATEST / LEAST, string and math functions, IN with
// expressions, exact comparisons between columns of different types (issue 11, finding 3), and
// the rule that terms which can fail on data are evaluated only on the rows the rest of the
// filter keeps (finding 4).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/filter_test_util.h"
#include "tessera/expr/filter.h"

namespace tessera::expr::expression_test {
namespace {

using ::testing::HasSubstr;
using testing::kNull;
using testing::MakeBatch;
using testing::Values;

using testing::Truth;

std::shared_ptr<arrow::RecordBatch> Numbers() {
  return MakeBatch({
      {"i8", arrow::int8(), "[1, 127, -128, null, 0]"},
      {"i64", arrow::int64(),
       "[9007199254740993, 9223372036854775807, -9223372036854775808, 5, null]"},
      {"u64", arrow::uint64(), "[1, 18446744073709551615, 0, 7, 3]"},
      {"f", arrow::float64(), "[9007199254740992.0, 1.5, -0.0, NaN, 2.0]"},
      {"s", arrow::utf8(), R"(["abc", "Hello", "", null, " pad "])"},
      {"b", arrow::boolean(), "[true, false, null, true, false]"},
  });
}

Truth Select(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  return testing::SelectText(text, batch);
}

Truth Evaluate(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  return testing::EvaluateText(text, batch);
}

arrow::Status Fails(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  auto filter = Filter::Parse(text, batch->schema());
  if (!filter.ok()) return filter.status();
  auto selected = (*filter)->Select(*batch);
  EXPECT_FALSE(selected.ok()) << text << " selected rows";
  return selected.ok() ? arrow::Status::OK() : selected.status();
}

std::string Normalized(std::string_view text) {
  auto filter = Filter::Parse(text, Numbers()->schema());
  EXPECT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
  return filter.ok() ? (*filter)->ToString() : "";
}

TEST(Expressions, ArithmeticFollowsSqlTyping) {
  const auto batch = Numbers();
  // i8 + 1 adds int8s (the literal takes the column's type), as in DuckDB: 127 + 1 overflows.
  EXPECT_THAT(Fails("i8 + 1 > 0", batch).message(), HasSubstr("overflow"));
  // Widened explicitly, it does not.
  EXPECT_EQ(Select("CAST(i8 AS int16) + 1 > 100", batch),
            (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("i8::int32 * 2 = 254", batch), (Truth{false, true, false, false, false}));
  // / always divides exactly and never fails: 1 / 0 is inf.
  EXPECT_EQ(Select("u64 / 2 = 3.5", batch), (Truth{false, false, false, true, false}));
  EXPECT_EQ(Select("i8 / 0 > 1e308", batch), (Truth{true, true, false, false, false}));
  // % keeps the dividend's sign; modulo by zero fails.
  EXPECT_EQ(Select("i8::int16 % 3 = -2", batch), (Truth{false, false, true, false, false}));
  EXPECT_THAT(Fails("i8 % 0 = 1", batch).message(), HasSubstr("modulo by zero"));
  EXPECT_EQ(Select("-i8::int16 = 128", batch), (Truth{false, false, true, false, false}));
  EXPECT_EQ(Select("f * 2 - 1 = 2", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Normalized("i8 + 1 * 2 > 0"), "((i8 + 2) > 0)");
  EXPECT_EQ(Normalized("(i8 + 1) * 2 > 0"), "(((i8 + 1) * 2) > 0)");
}

// ToString shows the implicit casts and desugarings, and parses back to the same tree.
TEST(Expressions, NormalizedFormsParseBack) {
  const std::pair<const char*, const char*> kForms[] = {
      {"i8 IN (i64, 1)", "((i8 = i64) OR (i8 = 1))"},
      {"CASE i8 WHEN 1 THEN 'a' END = 'a'", "(CASE WHEN (i8 = 1) THEN 'a' ELSE NULL END = 'a')"},
      {"i8 + i64 > 0", "((CAST(i8 AS int64) + i64) > 0)"},
      {"-i8::int16 IS NOT DISTINCT FROM 3", "((-CAST(i8 AS int16)) IS NOT DISTINCT FROM 3)"},
      {"b IS NOT TRUE", "(b IS NOT TRUE)"},
      {"coalesce(f, 0) > 1 AND s || 'x' = 'ax'", "((coalesce(f, 0) > 1) AND ((s || 'x') = 'ax'))"},
      {"TRY_CAST(s AS bigint) = 5", "(TRY_CAST(s AS int64) = 5)"},
      {"s LIKE 'a' || '%'", "(s LIKE 'a%')"},
      {"1 * 0 - 1 = 2.5", "FALSE"},
      // Constants without a literal spelling render as the calls that make them (a fuzzer
      // finding: NaN rendered as `nan`, a column name).
      {"f IS DISTINCT FROM nan()", "(f IS DISTINCT FROM nan())"},
      {"f < -inf() OR f > inf()",
       "((f < -inf()) OR (f > inf()))"},  // a fuzzer finding: it rendered as ((-1 IS NULL) AND
                                          // NULL)
      {"upper(s) ILIKE 'h%' ESCAPE '#'", "(upper(s) ILIKE 'h%' ESCAPE '#')"},
      {"NOT lower(s) LIKE s", "(NOT (lower(s) LIKE s))"},
  };
  for (const auto& [text, normalized] : kForms) {
    EXPECT_EQ(Normalized(text), normalized) << text;
    EXPECT_EQ(Normalized(Normalized(text)), normalized) << text;
  }
}

TEST(Expressions, ConstantExpressionsFoldOrFailAtBindTime) {
  const auto batch = Numbers();
  EXPECT_EQ(Normalized("1 + 2 = 3"), "TRUE");
  auto overflow = Filter::Parse("127::tinyint + 1 > 0", batch->schema());
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(overflow.status().message(), HasSubstr("position 14"));
  EXPECT_THAT(overflow.status().message(), HasSubstr("overflow"));
  auto cast = Filter::Parse("CAST('abc' AS int) = 1", batch->schema());
  ASSERT_FALSE(cast.ok());
  EXPECT_THAT(cast.status().message(), HasSubstr("TRY_CAST"));
  EXPECT_EQ(Normalized("TRY_CAST('abc' AS int) IS NULL"), "TRUE");
  // A folded constant compares like a written literal, so an index can still answer it.
  EXPECT_EQ(Normalized("i64 > 2 * 3"), "(i64 > 6)");
}

TEST(Expressions, CastRoundsAndTryCastGivesNull) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("TRY_CAST(f AS int64) = 2", batch), (Truth{false, true, false, false, true}));
  EXPECT_THAT(
      Fails("CAST(f AS int64) = 2", MakeBatch({{"f", arrow::float64(), "[NaN]"}})).message(),
      HasSubstr("TRY_CAST"));
  EXPECT_EQ(Evaluate("TRY_CAST(f AS int8) IS NULL", batch),
            (Truth{true, false, false, true, false}));
  EXPECT_EQ(Select("CAST(s AS varchar) = 'abc'", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("TRY_CAST(s AS int64) IS NULL", batch), (Truth{true, true, true, true, true}));
  auto unknown = Filter::Parse("CAST(i8 AS integr) = 1", batch->schema());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("did you mean 'integer'"));
  // float16 too (Arrow's round has no float16 kernel).
  const auto halves = MakeBatch({{"f", arrow::float32(), "[2.5, -2.5, null]"}});
  EXPECT_EQ(Select("CAST(f::float16 AS int8) = 3 OR TRY_CAST(f::float16 AS int16) = -3", halves),
            (Truth{true, true, false}));
}

TEST(Expressions, CaseEvaluatesOnlyTheBranchItReturns) {
  const auto batch = Numbers();
  EXPECT_EQ(
      Select("CASE WHEN i8 > 0 THEN 'pos' WHEN i8 < 0 THEN 'neg' ELSE 'zero' END = 'zero'", batch),
      (Truth{false, false, false, true, true}));
  EXPECT_EQ(Evaluate("CASE i8 WHEN 1 THEN TRUE WHEN 127 THEN FALSE END", batch),
            (Truth{true, false, kNull, kNull, kNull}));
  // 127 + 1 would overflow int8, but that branch is never taken for 127.
  EXPECT_EQ(Select("CASE WHEN i8 < 100 THEN i8 + 1 ELSE i8 END > 1", batch),
            (Truth{true, true, false, false, false}));
}

TEST(Expressions, DistinctAndTruthTestsAreNeverUnknown) {
  const auto batch = Numbers();
  EXPECT_EQ(Evaluate("i8 IS DISTINCT FROM NULL", batch), (Truth{true, true, true, false, true}));
  EXPECT_EQ(Evaluate("i8 IS NOT DISTINCT FROM 0", batch),
            (Truth{false, false, false, false, true}));
  EXPECT_EQ(Evaluate("b IS TRUE", batch), (Truth{true, false, false, true, false}));
  EXPECT_EQ(Evaluate("b IS NOT FALSE", batch), (Truth{true, false, true, true, false}));
  EXPECT_EQ(Evaluate("b IS UNKNOWN", batch), (Truth{false, false, true, false, false}));
  EXPECT_EQ(Evaluate("(i8 > 0) IS NULL", batch), (Truth{false, false, false, true, false}));
}

TEST(Expressions, ConditionalFunctions) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("coalesce(i8, 42) = 42", batch), (Truth{false, false, false, true, false}));
  EXPECT_EQ(Evaluate("nullif(i8, 0) IS NULL", batch), (Truth{false, false, false, true, true}));
  EXPECT_EQ(Select("greatest(i8, 2) = 2", batch), (Truth{true, false, true, true, true}));
  EXPECT_EQ(Select("least(i8, 0) = 0", batch), (Truth{true, true, false, true, true}));
}

TEST(Expressions, StringFunctions) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("upper(s) = 'HELLO'", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("length(s) = 3", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("trim(s) = 'pad'", batch), (Truth{false, false, false, false, true}));
  EXPECT_EQ(Select("substr(s, 2, 2) = 'bc'", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("substr(s, -2) = 'lo'", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("s || '!' = 'abc!'", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("concat(s, NULL, 'x') = 'x'", batch), (Truth{false, false, true, true, false}));
  // A row where every argument is null is '' (Arrow's SKIP join would drop the row).
  EXPECT_EQ(Select("concat(s, NULL) = ''", batch), (Truth{false, false, true, true, false}));
  EXPECT_EQ(Select("starts_with(s, 'He')", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("contains(lower(s), 'ell')", batch), (Truth{false, true, false, false, false}));
  // LIKE over expressions, with constant or per-row patterns.
  EXPECT_EQ(Select("upper(s) LIKE 'H%'", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("trim(s) ILIKE 'P_D'", batch), (Truth{false, false, false, false, true}));
  EXPECT_EQ(Select("s || 'x' LIKE s || '%'", batch), (Truth{true, true, true, false, true}));
  auto column_pattern = Filter::Parse("starts_with(s, s)", batch->schema());
  ASSERT_FALSE(column_pattern.ok());
  EXPECT_THAT(column_pattern.status().message(), HasSubstr("must be a constant"));
}

// Findings of the differential test: round's digits stay an integer whatever x is; values
// beyond the precision are already round (no overflow error), subnormals round to zero;
// substr with a negative count takes the characters before start; IS DISTINCT FROM compares
// exactly, like =.
TEST(Expressions, DifferentialFindings) {
  const auto batch = MakeBatch({
      {"f", arrow::float64(), "[1.25, 1e300, 5e-324, -4.9, null]"},
      {"g", arrow::float32(), "[4294967296.0, 1.0, 2.5, 0.0, 3.0]"},
      {"u", arrow::uint32(), "[4294967295, 1, 3, 0, null]"},
      {"s", arrow::utf8(), R"(["hello", "hello", "hello", "hello", null])"},
  });
  EXPECT_EQ(Select("round(f, 1) = 1.3", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("round(f, 2) = 1e300", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("round(f, -1) = 0", batch), (Truth{true, false, true, true, false}));
  EXPECT_EQ(Select("round(CAST(u AS int64), -1) = 4294967300", batch),
            (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("round(CAST(u AS int64), -1) = 0", batch),
            (Truth{false, true, true, true, false}));
  EXPECT_EQ(Select("substr(s, 3, -1) = 'e' AND substr(s, -1, -1) = 'l'", batch),
            (Truth{true, true, true, true, false}));
  EXPECT_EQ(Evaluate("u IS NOT DISTINCT FROM g", batch), (Truth{false, true, false, true, false}));
  EXPECT_EQ(Evaluate("u IS DISTINCT FROM NULL", batch), (Truth{true, true, true, true, false}));
}

TEST(Expressions, MathFunctions) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("abs(f) = 0", batch), (Truth{false, false, true, false, false}));
  EXPECT_EQ(Select("round(f) = 2", batch), (Truth{false, true, false, false, true}));
  EXPECT_EQ(Select("floor(f) = 1 OR ceil(f) = 2", batch), (Truth{false, true, false, false, true}));
  EXPECT_EQ(Select("sqrt(f) = sqrt(2)", batch), (Truth{false, false, false, false, true}));
  EXPECT_EQ(Select("isnan(f)", batch), (Truth{false, false, false, true, false}));
  EXPECT_EQ(Select("f = nan()", batch), (Truth{false, false, false, false, false}));
  EXPECT_EQ(Select("f < inf()", batch), (Truth{true, true, true, false, true}));
  EXPECT_EQ(Select("power(u64, 2) = 49", batch), (Truth{false, false, false, true, false}));
  EXPECT_THAT(Fails("abs(i8) >= 0", batch).message(), HasSubstr("overflow"));
  auto unknown = Filter::Parse("sqr(f) > 1", batch->schema());
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("did you mean 'sqrt'"));
}

TEST(Expressions, InAcceptsExpressionsAndColumns) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("i8 IN (u64, 0)", batch), (Truth{true, false, false, false, true}));
  EXPECT_EQ(Select("i8 + 0 IN (1, 127)", batch), (Truth{true, true, false, false, false}));
  EXPECT_EQ(Evaluate("i8 NOT IN (u64, NULL)", batch), (Truth{false, kNull, kNull, kNull, kNull}));
}

// Finding 3: column-to-column comparisons answer exactly, never with a cast error.
TEST(Expressions, MixedColumnComparisonsAreExact) {
  const auto batch = Numbers();
  // 9007199254740993 and 9007199254740992.0 are the same float64, but not the same number.
  EXPECT_EQ(Evaluate("i64 > f", batch), (Truth{true, true, false, false, kNull}));
  EXPECT_EQ(Evaluate("i64 = f", batch), (Truth{false, false, false, false, kNull}));
  EXPECT_EQ(Evaluate("f < u64", batch), (Truth{false, true, false, false, true}));
  EXPECT_EQ(Evaluate("i64 != f", batch), (Truth{true, true, true, true, kNull}));
  EXPECT_EQ(Evaluate("u64 > i64", batch), (Truth{false, true, true, true, kNull}));

  const auto times = MakeBatch({
      {"day", arrow::date32(), "[-719162, 2932896, 19723]"},  // 0001-01-01, 9999-12-31
      {"ns", arrow::timestamp(arrow::TimeUnit::NANO), "[0, 0, 1704067200000000000]"},
      {"us", arrow::timestamp(arrow::TimeUnit::MICRO),
       "[-62135596800000000, 253402214400000000, 1704067200000001]"},
  });
  EXPECT_EQ(Evaluate("day < ns", times), (Truth{true, false, false}));
  EXPECT_EQ(Evaluate("day = us", times), (Truth{true, true, false}));
  EXPECT_EQ(Evaluate("us > ns", times), (Truth{false, true, true}));
}

// Finding 4: whether a filter fails does not depend on which rows an index lets through: a
// term that can fail is evaluated only where every other top-level term is true, and only on
// live rows.
TEST(Expressions, TermsThatCanFailRunOnlyOnTheRowsTheOthersKeep) {
  const auto batch = Numbers();
  // 127 + 1 overflows, but only row 0 has u64 = 1.
  EXPECT_EQ(Select("i8 + 1 > 0 AND u64 = 1", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("u64 = 1 AND i8 + 1 > 0", batch), (Truth{true, false, false, false, false}));
  EXPECT_THAT(Fails("i8 + 1 > 0 AND u64 > 0", batch).message(), HasSubstr("(i8 + 1)"));
  // Rows that are not live are never evaluated.
  auto filter = Filter::Parse("i8 + 1 > 0", batch->schema());
  ASSERT_TRUE(filter.ok());
  auto live = arrow::json::ArrayFromJSONString(arrow::boolean(), "[true, false, true, true, true]");
  ASSERT_TRUE(live.ok());
  auto selected = (*filter)->Select(*batch, static_cast<const arrow::BooleanArray*>(live->get()));
  ASSERT_TRUE(selected.ok()) << selected.status().ToString();
  EXPECT_EQ(Values(**selected), (Truth{true, false, false, false, true}));
  // The error names the filter, the expression and its position.
  const auto status = Fails("i8 + 1 > 0", batch);
  EXPECT_THAT(status.message(), HasSubstr("filter \"i8 + 1 > 0\""));
  EXPECT_THAT(status.message(), HasSubstr("(i8 + 1) at character 4"));
}

TEST(Expressions, TypeErrorsNameTheExpressionAndTypes) {
  const auto schema = Numbers()->schema();
  auto strings = Filter::Parse("s + 1 > 0", schema);
  ASSERT_FALSE(strings.ok());
  EXPECT_THAT(strings.status().message(), HasSubstr("position 3"));
  EXPECT_THAT(strings.status().message(), HasSubstr("arithmetic takes numbers, not string"));
  auto arity = Filter::Parse("abs(i8, 2) > 0", schema);
  ASSERT_FALSE(arity.ok());
  EXPECT_THAT(arity.status().message(), HasSubstr("abs takes 1 argument, not 2"));
  auto predicate = Filter::Parse("i8 + 1", schema);
  ASSERT_FALSE(predicate.ok());
  EXPECT_THAT(predicate.status().message(), HasSubstr("is not boolean"));
  auto mixed = Filter::Parse("CASE WHEN b THEN 1 ELSE 'x' END = 1", schema);
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("no common type"));
}

}  // namespace
}  // namespace tessera::expr::expression_test

namespace tessera::expr::expression_test {
namespace {

std::shared_ptr<arrow::RecordBatch> Times() {
  return MakeBatch({
      {"ts", arrow::timestamp(arrow::TimeUnit::SECOND),
       "[0, 86399, 1709208000, null]"},  // 1970-01-01 00:00:00, 23:59:59, 2024-02-29 12:00:00
      {"tz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
       "[0, 3600000000, 1709208000000000, null]"},
      {"day", arrow::date32(), "[0, 1, 19782, null]"},  // 2024-02-29 is day 19782
      {"tags", arrow::list(arrow::utf8()), R"([["a", "b"], ["c", null], [], null])"},
      {"ids", arrow::list(arrow::int64()), "[[1, 2], [3], null, [null]]"},
      {"n", arrow::int64(), "[2, 3, 1, null]"},
  });
}

TEST(Expressions, IntervalsShiftDatesAndTimestamps) {
  const auto batch = Times();
  EXPECT_EQ(Select("ts + INTERVAL '1' DAY = TIMESTAMP '1970-01-02 00:00:00'", batch),
            (Truth{true, false, false, false}));
  EXPECT_EQ(Select("ts - INTERVAL '1 second' = TIMESTAMP '1970-01-01 23:59:58'", batch),
            (Truth{false, true, false, false}));
  // A date plus hours is a timestamp.
  EXPECT_EQ(Select("day + INTERVAL '36' HOUR = TIMESTAMP '1970-01-03 12:00:00'", batch),
            (Truth{false, true, false, false}));
  EXPECT_EQ(Select("ts + INTERVAL '500' MILLISECOND > TIMESTAMP '1970-01-01 23:59:59'", batch),
            (Truth{false, true, true, false}));
  auto months = Filter::Parse("ts + INTERVAL '1' MONTH > ts", batch->schema());
  ASSERT_FALSE(months.ok());
  EXPECT_THAT(months.status().message(), HasSubstr("no fixed length"));
  auto unit = Filter::Parse("ts + INTERVAL '1' FORTNIGHT > ts", batch->schema());
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(unit.status().message(), HasSubstr("unknown INTERVAL unit"));
}

// Found by the SQL differential test: COALESCE (and CASE, GREATEST, ...) over a date and
// timestamps of other units takes the finest timestamp; zoned and unzoned still do not mix.
TEST(Expressions, DatesAndTimestampsOfOtherUnitsHaveACommonType) {
  const auto batch = Times();
  EXPECT_EQ(Select("coalesce(ts, TIMESTAMP '2000-01-01 00:00:00.5') = "
                   "TIMESTAMP '2000-01-01 00:00:00.5'",
                   batch),
            (Truth{false, false, false, true}));
  EXPECT_EQ(Select("coalesce(day, ts) = TIMESTAMP '1970-01-02 00:00:00'", batch),
            (Truth{false, true, false, false}));
  EXPECT_EQ(
      Select("greatest(day + INTERVAL '1' DAY, ts) >= TIMESTAMP '2024-03-01 00:00:00'", batch),
      (Truth{false, false, true, false}));
  auto zoned = Filter::Parse("coalesce(ts, tz) > ts", batch->schema());
  ASSERT_FALSE(zoned.ok());
  EXPECT_THAT(zoned.status().message(), HasSubstr("no common type"));
}

TEST(Expressions, DatePartAndDateTrunc) {
  const auto batch = Times();
  EXPECT_EQ(Select("extract(year FROM ts) = 2024", batch), (Truth{false, false, true, false}));
  EXPECT_EQ(Select("date_part('hour', ts) = 23", batch), (Truth{false, true, false, false}));
  EXPECT_EQ(Select("extract(month FROM day) = 2 AND extract(day FROM day) = 29", batch),
            (Truth{false, false, true, false}));
  // 1970-01-01 and 2024-02-29 were Thursdays: dow 4 (Sunday is 0); 1970-01-02 has isodow 5.
  EXPECT_EQ(Select("extract(dow FROM ts) = 4", batch), (Truth{true, true, true, false}));
  EXPECT_EQ(Select("extract(isodow FROM day) = 5", batch), (Truth{false, true, false, false}));
  EXPECT_EQ(Select("date_trunc('day', ts) = TIMESTAMP '1970-01-01'", batch),
            (Truth{true, true, false, false}));
  EXPECT_EQ(Select("date_trunc('month', ts) = TIMESTAMP '2024-02-01'", batch),
            (Truth{false, false, true, false}));
  auto field = Filter::Parse("extract(century FROM ts) = 1", batch->schema());
  ASSERT_FALSE(field.ok());
  EXPECT_THAT(field.status().message(), HasSubstr("unknown field 'century'"));
}

TEST(Expressions, TimestampLiteralsTakeUtcOffsets) {
  const auto batch = Times();
  EXPECT_EQ(Select("tz = TIMESTAMP '1970-01-01 02:00:00+01:00'", batch),
            (Truth{false, true, false, false}));
  EXPECT_EQ(Select("tz = TIMESTAMP '1969-12-31 19:00:00-05'", batch),
            (Truth{true, false, false, false}));
  EXPECT_EQ(Select("tz = TIMESTAMP '2024-02-29T12:00:00Z'", batch),
            (Truth{false, false, true, false}));
}

TEST(Expressions, TheCurrentTimeIsPinnedWhenTheFilterIsParsed) {
  const auto batch = Times();
  auto filter = Filter::Parse("now() > tz AND current_timestamp = now() AND current_date > day",
                              batch->schema());
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  // Folded into literals at parse time: every batch sees the same instant.
  EXPECT_THAT((*filter)->ToString(), ::testing::Not(HasSubstr("now")));
  auto selected = (*filter)->Select(*batch);
  ASSERT_TRUE(selected.ok());
  EXPECT_EQ(Values(**selected), (Truth{true, true, true, false}));
}

TEST(Expressions, ListFunctions) {
  const auto batch = Times();
  EXPECT_EQ(Evaluate("array_contains(tags, 'c')", batch), (Truth{false, true, false, kNull}));
  EXPECT_EQ(Evaluate("list_contains(ids, n)", batch), (Truth{true, true, kNull, kNull}));
  // = ANY is unknown where nothing matched but a null element might have.
  EXPECT_EQ(Evaluate("'z' = ANY(tags)", batch), (Truth{false, kNull, false, kNull}));
  EXPECT_EQ(Evaluate("3 = ANY(ids)", batch), (Truth{false, true, kNull, kNull}));
  EXPECT_EQ(Evaluate("array_length(tags) = 2", batch), (Truth{true, true, false, kNull}));
  EXPECT_EQ(Evaluate("cardinality(ids) = 1", batch), (Truth{false, true, kNull, true}));
  auto mismatch = Filter::Parse("array_contains(tags, 1)", batch->schema());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("cannot be compared"));
}

TEST(Expressions, RegularExpressions) {
  const auto batch = Numbers();
  EXPECT_EQ(Select("regexp_like(s, '^[a-z]+$')", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Select("s REGEXP 'l+o'", batch), (Truth{false, true, false, false, false}));
  EXPECT_EQ(Select("s NOT REGEXP 'l+o'", batch), (Truth{true, false, true, false, true}));
  auto invalid = Filter::Parse("regexp_like(s, '(')", batch->schema());
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(invalid.status().message(), HasSubstr("invalid regular expression '('"));
}

}  // namespace
}  // namespace tessera::expr::expression_test
