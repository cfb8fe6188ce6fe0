#include "tessera/expr/literal.h"

#include <arrow/buffer.h>
#include <arrow/type.h>
#include <arrow/util/float16.h>

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <string_view>

#include "tessera/expr/diagnostics.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

using Int128 = __int128;

struct IntegerRange {
  Int128 min;
  Int128 max;
};

IntegerRange RangeOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
      return {INT8_MIN, INT8_MAX};
    case arrow::Type::INT16:
      return {INT16_MIN, INT16_MAX};
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return {INT32_MIN, INT32_MAX};
    case arrow::Type::UINT8:
      return {0, UINT8_MAX};
    case arrow::Type::UINT16:
      return {0, UINT16_MAX};
    case arrow::Type::UINT32:
      return {0, UINT32_MAX};
    case arrow::Type::UINT64:
      return {0, UINT64_MAX};
    default:  // int64, date64, timestamp
      return {INT64_MIN, INT64_MAX};
  }
}

arrow::Result<std::shared_ptr<arrow::Scalar>> IntegerScalar(
    const std::shared_ptr<arrow::DataType>& type, Int128 value) {
  if (value > INT64_MAX) return arrow::MakeScalar(type, static_cast<uint64_t>(value));
  return arrow::MakeScalar(type, static_cast<int64_t>(value));
}

// A literal's place on the integer grid of a type's values: exactly on `floor`, or strictly
// between `floor` and `floor + 1`.
struct GridPlace {
  bool exact;
  Int128 floor;
};

arrow::Result<ResolvedLiteral> PlaceOnGrid(GridPlace place,
                                           const std::shared_ptr<arrow::DataType>& type) {
  const IntegerRange range = RangeOf(*type);
  ResolvedLiteral resolved;
  if (place.exact && place.floor >= range.min && place.floor <= range.max) {
    ARROW_ASSIGN_OR_RAISE(resolved.exact, IntegerScalar(type, place.floor));
    return resolved;
  }
  // The nearest grid points strictly below and above the literal, clamped into the range.
  const Int128 below = place.exact ? place.floor - 1 : place.floor;
  const Int128 above = place.floor + 1;
  if (below >= range.min) {
    ARROW_ASSIGN_OR_RAISE(resolved.below, IntegerScalar(type, std::min(below, range.max)));
  }
  if (above <= range.max) {
    ARROW_ASSIGN_OR_RAISE(resolved.above, IntegerScalar(type, std::max(above, range.min)));
  }
  return resolved;
}

Int128 FloorDivide(Int128 value, Int128 divisor) {
  Int128 quotient = value / divisor;
  if (value % divisor != 0 && value < 0) quotient -= 1;
  return quotient;
}

bool IsNumeric(LiteralValue::Kind kind) {
  return kind == LiteralValue::Kind::kInteger || kind == LiteralValue::Kind::kFloat;
}

long double NumericValue(const LiteralValue& literal) {
  // long double (x87, 64-bit mantissa) holds every literal integer (|v| < 2^64) and every
  // double exactly, so comparisons through it are exact.
  return literal.kind == LiteralValue::Kind::kInteger ? static_cast<long double>(literal.integer)
                                                      : static_cast<long double>(literal.real);
}

arrow::Result<ResolvedLiteral> ResolveInteger(const LiteralValue& literal,
                                              const std::shared_ptr<arrow::DataType>& type) {
  if (literal.kind == LiteralValue::Kind::kInteger) {
    return PlaceOnGrid({true, literal.integer}, type);
  }
  const IntegerRange range = RangeOf(*type);
  const long double value = literal.real;
  // Far outside the range: any point beyond the edge resolves the same way.
  if (value > static_cast<long double>(range.max) + 1)
    return PlaceOnGrid({true, range.max + 1}, type);
  if (value < static_cast<long double>(range.min) - 1)
    return PlaceOnGrid({true, range.min - 1}, type);
  const long double floor = std::floor(value);
  return PlaceOnGrid({floor == value, static_cast<Int128>(floor)}, type);
}

arrow::Result<ResolvedLiteral> ResolveFloat(const LiteralValue& literal,
                                            const std::shared_ptr<arrow::DataType>& type) {
  const long double value = NumericValue(literal);
  long double max = DBL_MAX;
  if (type->id() == arrow::Type::FLOAT) max = FLT_MAX;
  if (type->id() == arrow::Type::HALF_FLOAT) max = 65504;
  auto make = [&](long double v) -> std::shared_ptr<arrow::Scalar> {
    switch (type->id()) {
      case arrow::Type::HALF_FLOAT:
        return std::make_shared<arrow::HalfFloatScalar>(
            arrow::util::Float16::FromDouble(static_cast<double>(v)));
      case arrow::Type::FLOAT:
        return std::make_shared<arrow::FloatScalar>(static_cast<float>(v));
      default:
        return std::make_shared<arrow::DoubleScalar>(static_cast<double>(v));
    }
  };
  ResolvedLiteral resolved;
  // Beyond the largest finite value the literal lies between it and infinity; rounding would
  // turn it into infinity and make `f32 = 1e50` match infinite rows.
  if (value > max) {
    resolved.below = make(max);
  } else if (value < -max) {
    resolved.above = make(-max);
  } else {
    resolved.exact = make(value);
  }
  return resolved;
}

arrow::Result<Nanoseconds> TemporalValue(const LiteralValue& literal) {
  switch (literal.kind) {
    case LiteralValue::Kind::kDate:
      return literal.integer * kNanosecondsPerDay;
    case LiteralValue::Kind::kTimestamp:
      return literal.integer;
    case LiteralValue::Kind::kString: {
      if (auto days = ParseDate(literal.string))
        return static_cast<Nanoseconds>(*days) * kNanosecondsPerDay;
      if (auto value = ParseTimestamp(literal.string)) return *value;
      return arrow::Status::Invalid(
          "string literal ", QuoteForMessage(literal.string),
          " is not a date or timestamp; write 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS[.fffffffff]'");
    }
    default:
      return arrow::Status::TypeError("not temporal");
  }
}

arrow::Result<ResolvedLiteral> ResolveTemporal(const LiteralValue& literal,
                                               const std::shared_ptr<arrow::DataType>& type) {
  ARROW_ASSIGN_OR_RAISE(const Nanoseconds value, TemporalValue(literal));
  int64_t per_tick = kNanosecondsPerDay;
  if (type->id() == arrow::Type::DATE64) per_tick = 1'000'000;
  if (type->id() == arrow::Type::TIMESTAMP) {
    per_tick = NanosecondsPerUnit(static_cast<const arrow::TimestampType&>(*type).unit());
  }
  return PlaceOnGrid({value % per_tick == 0, FloorDivide(value, per_tick)}, type);
}

// The power of ten of the leading digit of a decimal spelling (0 for "5.2", -3 for "0.001",
// 21 for "1e21"), saturated far beyond any double's range; nullopt when every digit is 0.
std::optional<int64_t> DecimalExponent(std::string_view spelling) {
  const size_t exponent_at = spelling.find_first_of("eE");
  const std::string_view digits = spelling.substr(0, exponent_at);
  const size_t point = std::min(digits.find('.'), digits.size());
  const size_t first = digits.find_first_of("123456789");
  if (first == std::string_view::npos) return std::nullopt;
  int64_t exponent = first < point ? static_cast<int64_t>(point - first) - 1
                                   : -static_cast<int64_t>(first - point);
  if (exponent_at != std::string_view::npos) {
    std::string_view written = spelling.substr(exponent_at + 1);
    const bool negative = !written.empty() && written[0] == '-';
    if (!written.empty() && (written[0] == '-' || written[0] == '+')) written.remove_prefix(1);
    int64_t value = 0;
    for (char c : written) value = std::min<int64_t>(value * 10 + (c - '0'), 1'000'000'000);
    exponent += negative ? -value : value;
  }
  return exponent;
}

// An integer literal beyond 64 bits, read as a float but spelled in `string` (syntax.h).
bool IsWideInteger(const LiteralValue& literal) {
  return literal.kind == LiteralValue::Kind::kFloat && !literal.string.empty();
}

// Orders two such spellings exactly (-1, 0, 1), where their doubles may be equal:
// 100000000000000000000 < 100000000000000000001.
int CompareWideIntegers(std::string_view a, std::string_view b) {
  const bool a_negative = a.front() == '-';
  const bool b_negative = b.front() == '-';
  if (a_negative != b_negative) return a_negative ? -1 : 1;
  const auto magnitude = [](std::string_view text) {
    text.remove_prefix(std::min(text.find_first_not_of("-0"), text.size()));
    return text;
  };
  const std::string_view x = magnitude(a);
  const std::string_view y = magnitude(b);
  int order = x.size() != y.size() ? (x.size() < y.size() ? -1 : 1) : x.compare(y);
  order = order < 0 ? -1 : (order > 0 ? 1 : 0);
  return a_negative ? -order : order;
}

}  // namespace

std::optional<double> ParseFloatSpelling(std::string_view spelling) {
  double value = 0;
  const auto result = std::from_chars(spelling.data(), spelling.data() + spelling.size(), value,
                                      std::chars_format::general);
  if (result.ec == std::errc() && result.ptr == spelling.data() + spelling.size()) {
    if (!std::isfinite(value)) return std::nullopt;
    return value;
  }
  // from_chars leaves the value alone when it is out of range, in either direction: tell
  // underflow (round to 0) from overflow by the magnitude the spelling writes.
  if (result.ec == std::errc::result_out_of_range) {
    const auto exponent = DecimalExponent(spelling);
    if (exponent && *exponent < 0) return 0.0;
  }
  return std::nullopt;
}

arrow::Result<ResolvedLiteral> ResolveLiteral(const LiteralValue& literal,
                                              const std::shared_ptr<arrow::DataType>& type) {
  const auto mismatch = [] { return arrow::Status::TypeError("literal does not fit the type"); };
  switch (FamilyOf(*type)) {
    case TypeFamily::kInteger:
      if (!IsNumeric(literal.kind)) return mismatch();
      return ResolveInteger(literal, type);
    case TypeFamily::kFloat:
      if (!IsNumeric(literal.kind)) return mismatch();
      return ResolveFloat(literal, type);
    case TypeFamily::kBoolean:
      if (literal.kind != LiteralValue::Kind::kBoolean) return mismatch();
      return ResolvedLiteral{std::make_shared<arrow::BooleanScalar>(literal.boolean), {}, {}};
    case TypeFamily::kString:
      if (literal.kind != LiteralValue::Kind::kString) return mismatch();
      if (type->id() == arrow::Type::LARGE_STRING) {
        return ResolvedLiteral{std::make_shared<arrow::LargeStringScalar>(literal.string), {}, {}};
      }
      return ResolvedLiteral{std::make_shared<arrow::StringScalar>(literal.string), {}, {}};
    case TypeFamily::kBinary: {
      if (literal.kind != LiteralValue::Kind::kString) return mismatch();
      auto buffer = arrow::Buffer::FromString(literal.string);
      if (type->id() == arrow::Type::LARGE_BINARY) {
        return ResolvedLiteral{
            std::make_shared<arrow::LargeBinaryScalar>(std::move(buffer)), {}, {}};
      }
      return ResolvedLiteral{std::make_shared<arrow::BinaryScalar>(std::move(buffer)), {}, {}};
    }
    case TypeFamily::kTemporal:
      if (literal.kind != LiteralValue::Kind::kDate &&
          literal.kind != LiteralValue::Kind::kTimestamp &&
          literal.kind != LiteralValue::Kind::kString) {
        return mismatch();
      }
      return ResolveTemporal(literal, type);
    default:
      return mismatch();
  }
}

arrow::Result<bool> CompareLiterals(const LiteralValue& left, CompareOp op,
                                    const LiteralValue& right) {
  // -1, 0, 1 like strcmp.
  int order = 0;
  const auto sign = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
  using Kind = LiteralValue::Kind;
  const bool left_temporal = left.kind == Kind::kDate || left.kind == Kind::kTimestamp;
  const bool right_temporal = right.kind == Kind::kDate || right.kind == Kind::kTimestamp;
  if (IsWideInteger(left) && IsWideInteger(right)) {
    order = CompareWideIntegers(left.string, right.string);
  } else if (IsNumeric(left.kind) && IsNumeric(right.kind)) {
    order = sign(NumericValue(left), NumericValue(right));
  } else if (left.kind == Kind::kBoolean && right.kind == Kind::kBoolean) {
    order = sign(left.boolean, right.boolean);
  } else if (left.kind == Kind::kString && right.kind == Kind::kString) {
    order = sign(std::string_view(left.string).compare(right.string), 0);
  } else if ((left_temporal && (right_temporal || right.kind == Kind::kString)) ||
             (right_temporal && left.kind == Kind::kString)) {
    ARROW_ASSIGN_OR_RAISE(const Nanoseconds a, TemporalValue(left));
    ARROW_ASSIGN_OR_RAISE(const Nanoseconds b, TemporalValue(right));
    order = sign(a, b);
  } else {
    return arrow::Status::TypeError("literals are not comparable");
  }
  return OrderSatisfies(op, order);
}

}  // namespace tessera::expr
