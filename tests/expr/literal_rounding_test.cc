// Numeric literals at the edges of double (issue 11, finding 5): a literal is rounded to the
// nearest double, an underflowing one is ±0, an overflowing one is an error naming it; integer
// literals beyond 64 bits are floats, compared exactly with integer columns and rounded like any
// float literal for float columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "expr/filter_test_util.h"
#include "tessera/expr/filter.h"
#include "tessera/expr/literal.h"

namespace tessera::expr::literal_rounding_test {
namespace {

using ::testing::HasSubstr;
using testing::kNull;
using testing::MakeBatch;
using testing::Truth;
using testing::Values;

Truth Eval(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  return testing::EvaluateText(text, batch);
}
using testing::WideSchema;

std::string ParseFailure(std::string_view text) {
  auto filter = Filter::Parse(text, WideSchema());
  EXPECT_FALSE(filter.ok()) << text << " parsed as " << (*filter)->ToString();
  if (filter.ok()) return "";
  EXPECT_EQ(KindOf(filter.status()), ErrorKind::kInvalidArgument);
  return filter.status().message();
}

TEST(LiteralRounding, SpellingsRoundToTheNearestDoubleAndUnderflowToZero) {
  EXPECT_EQ(ParseFloatSpelling("1e-400"), 0.0);
  EXPECT_EQ(ParseFloatSpelling("0.0000001e-320"), 0.0);
  EXPECT_EQ(ParseFloatSpelling("1e-99999999999999999999"), 0.0);
  EXPECT_EQ(ParseFloatSpelling("1e-324"), 0.0);  // below half the least subnormal
  EXPECT_EQ(ParseFloatSpelling("2.4703282292062328e-324"),
            std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(ParseFloatSpelling("1e-310"), 1e-310);
  EXPECT_EQ(ParseFloatSpelling("100000000000000000000"), 1e20);
  EXPECT_EQ(ParseFloatSpelling("0e999999"), 0.0);
  EXPECT_EQ(ParseFloatSpelling("1e400"), std::nullopt);
  EXPECT_EQ(ParseFloatSpelling("1000e306"), std::nullopt);
  EXPECT_EQ(ParseFloatSpelling(std::string(400, '9')), std::nullopt);
}

TEST(LiteralRounding, AnUnderflowingLiteralIsZero) {
  auto batch = MakeBatch({
      {"f", arrow::float64(), "[0.0, -0.0, 1e-300, -1e-300, 5e-324, null]"},
      {"f32", arrow::float32(), "[0.0, -0.0, 1e-30, -1e-30, 1e-45, null]"},
      {"f16", arrow::float16(), "[0.0, -0.0, 0.5, -0.5, 0.0001, null]"},
  });
  for (const std::string column : {"f", "f32", "f16"}) {
    SCOPED_TRACE(column);
    EXPECT_EQ(Eval(column + " > 1e-400", batch), (Truth{false, false, true, false, true, kNull}));
    EXPECT_EQ(Eval(column + " = 1e-400", batch), (Truth{true, true, false, false, false, kNull}));
    EXPECT_EQ(Eval(column + " = -1e-400", batch), (Truth{true, true, false, false, false, kNull}));
    EXPECT_EQ(Eval(column + " < -1e-400", batch), (Truth{false, false, false, true, false, kNull}));
    EXPECT_EQ(Eval(column + " BETWEEN -1e-999 AND 1e-999", batch),
              (Truth{true, true, false, false, false, kNull}));
  }
  auto filter = Filter::Parse("f > 1e-400 AND f32 < -1e-400", batch->schema());
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  EXPECT_EQ((*filter)->ToString(), "((f > 0) AND (f32 < -0.0))");
  // Against an integer column too: 1e-400 is 0.
  auto integers = MakeBatch({{"i", arrow::int64(), "[-1, 0, 1, null]"}});
  EXPECT_EQ(Eval("i > 1e-400", integers), (Truth{false, false, true, kNull}));
  EXPECT_EQ(Eval("i >= -1e-400", integers), (Truth{false, true, true, kNull}));
}

TEST(LiteralRounding, IntegerLiteralsBeyond64BitsAgainstFloatColumnsAreFloats) {
  auto batch = MakeBatch({
      {"f", arrow::float64(), "[1e20, 1.0000000000000002e20, 1.8446744073709552e19, -1e20, null]"},
      {"f32", arrow::float32(), "[1e20, 1.0000001e20, 1.8446744073709552e19, -1e20, null]"},
  });
  EXPECT_EQ(Eval("f = 100000000000000000000", batch), (Truth{true, false, false, false, kNull}));
  EXPECT_EQ(Eval("f > 100000000000000000000", batch), (Truth{false, true, false, false, kNull}));
  EXPECT_EQ(Eval("f = 18446744073709551616", batch), (Truth{false, false, true, false, kNull}));
  EXPECT_EQ(Eval("f = -100000000000000000000", batch), (Truth{false, false, false, true, kNull}));
  EXPECT_EQ(Eval("f < - 100000000000000000000", batch), (Truth{false, false, false, false, kNull}));
  // Rounded to float32, like 1e20 is: the stored 1e20f matches.
  EXPECT_EQ(Eval("f32 = 100000000000000000000", batch), (Truth{true, false, false, false, kNull}));
  EXPECT_EQ(Eval("f32 = 1e20", batch), (Truth{true, false, false, false, kNull}));
  EXPECT_EQ(Eval("f32 IN (100000000000000000000, -100000000000000000000)", batch),
            (Truth{true, false, false, true, kNull}));
  // Beyond float32's range: between its largest value and infinity, as 1e50 is.
  auto huge = MakeBatch({{"f32", arrow::float32(), "[3.4028235e38, Infinity, null]"}});
  const std::string beyond = "1" + std::string(50, '0');
  EXPECT_EQ(Eval("f32 < " + beyond, huge), (Truth{true, false, kNull}));
  EXPECT_EQ(Eval("f32 = " + beyond, huge), (Truth{false, false, kNull}));
}

TEST(LiteralRounding, IntegerLiteralsBeyond64BitsAgainstIntegerColumnsAreExact) {
  auto batch = MakeBatch({
      {"i64", arrow::int64(), "[-9223372036854775808, 0, 9223372036854775807, null]"},
      {"u64", arrow::uint64(), "[0, 1, 18446744073709551615, null]"},
  });
  EXPECT_EQ(Eval("i64 < 100000000000000000000", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("i64 > -100000000000000000000", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("i64 = 100000000000000000000", batch), (Truth{false, false, false, kNull}));
  EXPECT_EQ(Eval("i64 != 100000000000000000000", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("u64 < 18446744073709551616", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("u64 >= 18446744073709551616", batch), (Truth{false, false, false, kNull}));
  EXPECT_EQ(Eval("u64 > -18446744073709551616", batch), (Truth{true, true, true, kNull}));
  EXPECT_EQ(Eval("u64 IN (1, 18446744073709551616)", batch), (Truth{false, true, false, kNull}));
  EXPECT_EQ(Eval("100000000000000000000 > 18446744073709551615", batch),
            (Truth{true, true, true, true}));
  // Two such literals compare exactly, though their doubles are equal.
  EXPECT_EQ(Eval("100000000000000000000 < 100000000000000000001", batch),
            (Truth{true, true, true, true}));
  EXPECT_EQ(Eval("-100000000000000000000 > -0100000000000000000001", batch),
            (Truth{true, true, true, true}));
  EXPECT_EQ(Eval("100000000000000000000 = 100000000000000000001", batch),
            (Truth{false, false, false, false}));
  // Against a float literal it is a double, as against a float column.
  EXPECT_EQ(Eval("100000000000000000001 = 1e20", batch), (Truth{true, true, true, true}));
}

TEST(LiteralRounding, OverflowIsAnErrorNamingTheLiteral) {
  EXPECT_THAT(ParseFailure("price > 1e999"),
              HasSubstr("position 9: float literal 1e999 is out of range"));
  EXPECT_THAT(ParseFailure("price > -1e999"),
              HasSubstr("position 9: float literal -1e999 is out of range"));
  const std::string digits = "1" + std::string(400, '0');
  EXPECT_THAT(ParseFailure("i64 < " + digits),
              HasSubstr("position 7: integer literal " + digits + " is out of range"));
  // A type mismatch shows the integer as written.
  EXPECT_THAT(ParseFailure("category = -100000000000000000000"),
              HasSubstr("with integer literal -100000000000000000000"));
}

}  // namespace
}  // namespace tessera::expr::literal_rounding_test
