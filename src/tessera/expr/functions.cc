#include "tessera/expr/functions.h"

#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/scalar.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <type_traits>

#include "tessera/expr/compare_values.h"
#include "tessera/expr/diagnostics.h"
#include "tessera/expr/function_families.h"
#include "tessera/expr/like_pattern.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;
using arrow::Datum;
using TypePtr = std::shared_ptr<arrow::DataType>;
using Arguments = std::vector<Datum>;

bool IsInteger(const arrow::DataType& type) { return FamilyOf(type) == TypeFamily::kInteger; }
bool IsFloat(const arrow::DataType& type) { return FamilyOf(type) == TypeFamily::kFloat; }
bool IsNumber(const arrow::DataType& type) { return IsInteger(type) || IsFloat(type); }
bool IsString(const arrow::DataType& type) { return FamilyOf(type) == TypeFamily::kString; }

template <typename... Args>
arrow::Status Mismatch(Args&&... args) {
  return arrow::Status::TypeError(std::forward<Args>(args)...);
}

arrow::Status ExpectNumbers(std::string_view what, const TypeList& types) {
  for (const auto& type : types) {
    if (!IsNumber(*type)) return Mismatch(what, " takes numbers, not ", type->ToString());
  }
  return arrow::Status::OK();
}

arrow::Status ExpectStrings(std::string_view what, const TypeList& types) {
  for (const auto& type : types) {
    if (!IsString(*type)) {
      return Mismatch(what, " takes strings, not ", type->ToString(),
                      "; convert with CAST(... AS varchar)");
    }
  }
  return arrow::Status::OK();
}

Signature Uniform(const TypePtr& type, size_t count, TypePtr result = nullptr) {
  return Signature{TypeList(count, type), result ? result : type};
}

// --- arithmetic ---------------------------------------------------------------------------

// Dates and timestamps move by INTERVALs: ts + INTERVAL '1' DAY, ts - INTERVAL '2' HOUR.
arrow::Result<Signature> ResolveShift(const TypeList& types) {
  return FindFunction("date_add")->resolve(types);
}

bool IsShift(const TypeList& types) {
  return types.size() == 2 && FamilyOf(*types[0]) == TypeFamily::kTemporal &&
         types[1]->id() == arrow::Type::DURATION;
}

arrow::Result<Signature> ResolveArithmetic(const TypeList& types) {
  if (IsShift(types)) return ResolveShift(types);
  if (types.size() == 2 && IsShift({types[1], types[0]})) {
    return Mismatch("an INTERVAL is added to a date or timestamp, not subtracted from one");
  }
  RETURN_NOT_OK(ExpectNumbers("arithmetic", types));
  ARROW_ASSIGN_OR_RAISE(auto common, CommonValueType(types));
  return Uniform(common, types.size());
}

constexpr char kAddChecked[] = "add_checked";
constexpr char kAdd[] = "add";
constexpr char kSubtractChecked[] = "subtract_checked";
constexpr char kSubtract[] = "subtract";
constexpr char kMultiplyChecked[] = "multiply_checked";
constexpr char kMultiply[] = "multiply";
constexpr char kNegateChecked[] = "negate_checked";
constexpr char kNegate[] = "negate";
constexpr char kAbsChecked[] = "abs_checked";
constexpr char kAbs[] = "abs";

// Integer overflow is an error (checked kernels); floating point follows IEEE 754.
template <const char* kChecked, const char* kUnchecked>
arrow::Result<Datum> EvaluateArithmetic(const Arguments& arguments, const TypePtr& result,
                                        int64_t) {
  const bool checked = IsInteger(*result) || result->id() == arrow::Type::TIMESTAMP;
  return compute::CallFunction(checked ? kChecked : kUnchecked, arguments);
}

// INTERVAL + ts is ts + INTERVAL.
arrow::Result<Signature> ResolveAdd(const TypeList& types) {
  if (types.size() == 2 && IsShift({types[1], types[0]})) {
    ARROW_ASSIGN_OR_RAISE(auto signature, ResolveShift({types[1], types[0]}));
    std::swap(signature.arguments[0], signature.arguments[1]);
    return signature;
  }
  return ResolveArithmetic(types);
}

arrow::Result<Datum> EvaluateAdd(const Arguments& arguments, const TypePtr& result,
                                 int64_t length) {
  if (arguments[0].type()->id() == arrow::Type::DURATION) {
    return EvaluateArithmetic<kAddChecked, kAdd>({arguments[1], arguments[0]}, result, length);
  }
  return EvaluateArithmetic<kAddChecked, kAdd>(arguments, result, length);
}

// + and - of dates and timestamps with INTERVALs; * and % take numbers only.
arrow::Result<Signature> ResolveNumbers(const TypeList& types) {
  if (IsShift(types)) {
    return arrow::Status::TypeError("only + and - apply to dates and INTERVALs");
  }
  return ResolveArithmetic(types);
}

// `/` always divides exactly: integers are divided as float64, so 5 / 2 is 2.5 and 1 / 0 is
// inf, as in DuckDB and MySQL.
arrow::Result<Signature> ResolveDivide(const TypeList& types) {
  RETURN_NOT_OK(ExpectNumbers("/", types));
  ARROW_ASSIGN_OR_RAISE(auto common, CommonValueType(types));
  if (IsInteger(*common)) common = arrow::float64();
  return Uniform(common, 2);
}

arrow::Result<Datum> EvaluateDivide(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction("divide", arguments);
}

// Negation of an unsigned value needs a signed type: uint8 → int16 ... uint64 → int64.
arrow::Result<Signature> ResolveNegate(const TypeList& types) {
  RETURN_NOT_OK(ExpectNumbers("-", types));
  TypePtr type = types[0];
  switch (type->id()) {
    case arrow::Type::UINT8:
      type = arrow::int16();
      break;
    case arrow::Type::UINT16:
      type = arrow::int32();
      break;
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
      type = arrow::int64();
      break;
    case arrow::Type::HALF_FLOAT:
      type = arrow::float32();
      break;
    default:
      break;
  }
  return Uniform(type, 1);
}

template <typename T>
arrow::Result<std::shared_ptr<arrow::Array>> ModuloOf(const arrow::Array& left,
                                                      const arrow::Array& right) {
  using ArrayType = arrow::NumericArray<T>;
  using Value = typename T::c_type;
  const auto& a = static_cast<const ArrayType&>(left);
  const auto& b = static_cast<const ArrayType&>(right);
  arrow::NumericBuilder<T> builder;
  RETURN_NOT_OK(builder.Reserve(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i) || b.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    const Value x = a.Value(i);
    const Value y = b.Value(i);
    if constexpr (std::is_floating_point_v<Value>) {
      builder.UnsafeAppend(std::fmod(x, y));
    } else {
      if (y == 0) return arrow::Status::Invalid("modulo by zero");
      // The remainder has the sign of the dividend (C and SQL); MIN % -1 is 0, not a trap.
      if constexpr (std::is_signed_v<Value>) {
        if (y == -1) {
          builder.UnsafeAppend(0);
          continue;
        }
      }
      builder.UnsafeAppend(static_cast<Value>(x % y));
    }
  }
  return builder.Finish();
}

arrow::Result<Datum> EvaluateModulo(const Arguments& arguments, const TypePtr& result,
                                    int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto left, DatumToArray(arguments[0], length));
  ARROW_ASSIGN_OR_RAISE(auto right, DatumToArray(arguments[1], length));
  switch (result->id()) {
    case arrow::Type::INT8:
      return ModuloOf<arrow::Int8Type>(*left, *right);
    case arrow::Type::INT16:
      return ModuloOf<arrow::Int16Type>(*left, *right);
    case arrow::Type::INT32:
      return ModuloOf<arrow::Int32Type>(*left, *right);
    case arrow::Type::INT64:
      return ModuloOf<arrow::Int64Type>(*left, *right);
    case arrow::Type::UINT8:
      return ModuloOf<arrow::UInt8Type>(*left, *right);
    case arrow::Type::UINT16:
      return ModuloOf<arrow::UInt16Type>(*left, *right);
    case arrow::Type::UINT32:
      return ModuloOf<arrow::UInt32Type>(*left, *right);
    case arrow::Type::UINT64:
      return ModuloOf<arrow::UInt64Type>(*left, *right);
    case arrow::Type::FLOAT:
      return ModuloOf<arrow::FloatType>(*left, *right);
    case arrow::Type::DOUBLE:
      return ModuloOf<arrow::DoubleType>(*left, *right);
    default:
      return arrow::Status::TypeError("% on ", result->ToString());
  }
}

// --- strings --------------------------------------------------------------------------------

arrow::Result<Signature> ResolveStrings(const TypeList& types) {
  RETURN_NOT_OK(ExpectStrings("this function", types));
  ARROW_ASSIGN_OR_RAISE(auto common, CommonValueType(types));
  return Uniform(common, types.size());
}

arrow::Result<Datum> EvaluateConcatOperator(const Arguments& arguments, const TypePtr& result,
                                            int64_t) {
  // A null operand makes || null (SQL); concat() skips nulls instead.
  compute::JoinOptions options(compute::JoinOptions::EMIT_NULL);
  Arguments with_separator = arguments;
  with_separator.push_back(arrow::MakeScalar(result, std::string()).ValueOr(nullptr));
  return compute::CallFunction("binary_join_element_wise", with_separator, &options);
}

// concat() skips nulls: each null becomes '' (so concat(NULL, NULL) is '', as in DuckDB).
// Not JoinOptions::SKIP: Arrow's kernel drops the rows where every argument is null, returning
// a shorter array.
arrow::Result<Datum> EvaluateConcat(const Arguments& arguments, const TypePtr& result, int64_t) {
  ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeScalar(result, std::string()));
  Arguments with_separator;
  for (const auto& argument : arguments) {
    ARROW_ASSIGN_OR_RAISE(auto filled, compute::CallFunction("coalesce", {argument, empty}));
    with_separator.push_back(std::move(filled));
  }
  with_separator.push_back(empty);
  compute::JoinOptions options(compute::JoinOptions::EMIT_NULL);
  return compute::CallFunction("binary_join_element_wise", with_separator, &options);
}

template <const char* kKernel>
arrow::Result<Datum> EvaluateUnary(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction(kKernel, {arguments[0]});
}

constexpr char kLower[] = "utf8_lower";
constexpr char kUpper[] = "utf8_upper";
constexpr char kSqrt[] = "sqrt";
constexpr char kLn[] = "ln";
constexpr char kExp[] = "exp";
constexpr char kIsNan[] = "is_nan";
constexpr char kIsInf[] = "is_inf";
constexpr char kIsFinite[] = "is_finite";

arrow::Result<Signature> ResolveLength(const TypeList& types) {
  RETURN_NOT_OK(ExpectStrings("length", types));
  return Signature{types, arrow::int64()};
}

arrow::Result<Datum> EvaluateLength(const Arguments& arguments, const TypePtr& result, int64_t) {
  ARROW_ASSIGN_OR_RAISE(auto length, compute::CallFunction("utf8_length", {arguments[0]}));
  return compute::Cast(length, result);
}

int64_t IntegerArgument(const Datum& datum) {
  return static_cast<const arrow::Int64Scalar&>(*datum.scalar()).value;
}

// A null constant argument (starts_with(s, NULL)) makes the result null on every row.
arrow::Result<std::optional<Datum>> NullIfConstantIsNull(const Arguments& arguments,
                                                         const TypePtr& result, int64_t length) {
  for (const auto& argument : arguments) {
    if (argument.is_scalar() && !argument.scalar()->is_valid) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(result, length));
      return Datum(std::move(nulls));
    }
  }
  return std::nullopt;
}

arrow::Result<Signature> ResolveStringPredicate(const TypeList& types) {
  RETURN_NOT_OK(ExpectStrings("this function", types));
  return Signature{{types[0], arrow::utf8()}, arrow::boolean()};
}

template <const char* kKernel>
arrow::Result<Datum> EvaluateStringPredicate(const Arguments& arguments, const TypePtr& result,
                                             int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto null, NullIfConstantIsNull(arguments, result, length));
  if (null) return *null;
  compute::MatchSubstringOptions options(ConstantString(arguments[1]));
  return compute::CallFunction(kKernel, {arguments[0]}, &options);
}

constexpr char kStartsWith[] = "starts_with";
constexpr char kEndsWith[] = "ends_with";
constexpr char kMatchSubstring[] = "match_substring";

// substr(s, start[, count]): 1-based, counting code points; start 0 is the position before
// the first, a negative start counts from the end (-1 is the last), as in DuckDB.
arrow::Result<Signature> ResolveSubstr(const TypeList& types) {
  RETURN_NOT_OK(ExpectStrings("substr", {types[0]}));
  for (size_t i = 1; i < types.size(); ++i) {
    if (!IsInteger(*types[i])) {
      return Mismatch("substr takes integer positions, not ", types[i]->ToString());
    }
  }
  TypeList arguments = {types[0]};
  for (size_t i = 1; i < types.size(); ++i) arguments.push_back(arrow::int64());
  return Signature{arguments, types[0]};
}

arrow::Result<Datum> EvaluateSubstr(const Arguments& arguments, const TypePtr& result,
                                    int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto null, NullIfConstantIsNull(arguments, result, length));
  if (null) return *null;
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max() / 2;
  const int64_t start = std::clamp(IntegerArgument(arguments[1]), -kEnd, kEnd);
  const std::optional<int64_t> count =
      arguments.size() > 2
          ? std::optional<int64_t>(std::clamp(IntegerArgument(arguments[2]), -kEnd, kEnd))
          : std::nullopt;
  // The characters at 1-based positions [low, high); a negative count takes the characters
  // before `start` (substr('hello', 3, -1) is 'e'), a negative start counts from the end.
  const int64_t low = count && *count < 0 ? start + *count : start;
  const int64_t high = !count ? kEnd : (*count < 0 ? start : start + *count);
  int64_t begin = 0;
  int64_t stop = kEnd;
  bool empty = false;
  if (start > 0 || (start == 0 && (!count || *count >= 0))) {
    // Positions from the start: 1-based position p is index p - 1.
    begin = std::max<int64_t>(low - 1, 0);
    stop = high == kEnd ? kEnd : std::max<int64_t>(high - 1, 0);
    empty = stop <= begin;
  } else if (start < 0) {
    // Positions from the end: -1 is the last character, Arrow's index -1.
    begin = low;
    stop = high >= 0 ? kEnd : high;
    empty = stop != kEnd && stop <= begin;
  } else {
    empty = true;  // start 0 with a negative count: before the first character
  }
  if (empty) {
    ARROW_ASSIGN_OR_RAISE(auto blank, arrow::MakeScalar(result, std::string()));
    ARROW_ASSIGN_OR_RAISE(auto is_null, compute::CallFunction("is_null", {arguments[0]}));
    return compute::IfElse(is_null, arrow::MakeNullScalar(result), blank);
  }
  compute::SliceOptions options(begin, stop);
  return compute::CallFunction("utf8_slice_codeunits", {arguments[0]}, &options);
}

// trim / ltrim / rtrim remove spaces (U+0020), as in DuckDB and PostgreSQL.
template <const char* kKernel>
arrow::Result<Datum> EvaluateTrim(const Arguments& arguments, const TypePtr&, int64_t) {
  compute::TrimOptions options(" ");
  return compute::CallFunction(kKernel, {arguments[0]}, &options);
}

constexpr char kTrim[] = "utf8_trim";
constexpr char kLtrim[] = "utf8_ltrim";
constexpr char kRtrim[] = "utf8_rtrim";

// LIKE / ILIKE over an expression (a column's LIKE is a Like node, which planners know):
// arguments value, pattern (a constant, or a value per row) and the escape (a constant).
arrow::Result<Signature> ResolveLike(const TypeList& types) {
  for (const auto& type : types) {
    if (!IsString(*type) && type->id() != arrow::Type::NA) {
      return Mismatch("LIKE applies to strings, not ", type->ToString());
    }
  }
  TypeList arguments = types;
  for (auto& type : arguments) {
    if (type->id() == arrow::Type::NA) type = arrow::utf8();
  }
  return Signature{arguments, arrow::boolean()};
}

arrow::Status CheckLike(const std::vector<std::shared_ptr<arrow::Scalar>>& constants) {
  const auto text = [](const std::shared_ptr<arrow::Scalar>& scalar) {
    return std::string(static_cast<const arrow::BaseBinaryScalar&>(*scalar).view());
  };
  if (constants[2] == nullptr) return arrow::Status::Invalid("ESCAPE takes a string literal");
  if (!constants[2]->is_valid) return arrow::Status::OK();
  RETURN_NOT_OK(CheckLikeEscape(text(constants[2])));
  if (constants[1] == nullptr || !constants[1]->is_valid) return arrow::Status::OK();
  const auto checked = CheckLikePattern(text(constants[1]), text(constants[2]));
  if (!checked.ok()) return arrow::Status::Invalid("the pattern ", checked.message());
  return arrow::Status::OK();
}

template <bool kCaseInsensitive>
arrow::Result<Datum> EvaluateLike(const Arguments& arguments, const TypePtr& result,
                                  int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto null, NullIfConstantIsNull(arguments, result, length));
  if (null) return *null;
  ARROW_ASSIGN_OR_RAISE(auto strings, DatumToArray(arguments[0], length));
  const std::string escape = ConstantString(arguments[2]);
  if (arguments[1].is_scalar()) {
    ARROW_ASSIGN_OR_RAISE(auto matcher,
                          TranslateLike(ConstantString(arguments[1]), escape, kCaseInsensitive));
    return MatchLike(strings, matcher);
  }
  ARROW_ASSIGN_OR_RAISE(auto patterns, DatumToArray(arguments[1], length));
  return MatchLikeRows(strings, patterns, "the pattern", escape, kCaseInsensitive);
}

// regexp_like(s, 'pattern'): RE2 syntax as Arrow uses it, matched anywhere in the value
// (anchor with ^ and $).
arrow::Status CheckRegex(const std::vector<std::shared_ptr<arrow::Scalar>>& constants) {
  if (constants[1] == nullptr || !constants[1]->is_valid) return arrow::Status::OK();
  const auto pattern =
      std::string(static_cast<const arrow::BaseBinaryScalar&>(*constants[1]).view());
  // Arrow compiles the pattern when the kernel runs; one empty string makes it run.
  ARROW_ASSIGN_OR_RAISE(auto probe,
                        arrow::MakeArrayFromScalar(arrow::StringScalar(std::string()), 1));
  compute::MatchSubstringOptions options(pattern);
  auto compiled = compute::CallFunction("match_substring_regex", {probe}, &options);
  if (!compiled.ok()) {
    return arrow::Status::Invalid("invalid regular expression ", QuoteForMessage(pattern), ": ",
                                  compiled.status().message());
  }
  return arrow::Status::OK();
}

constexpr char kMatchRegex[] = "match_substring_regex";

// --- math -----------------------------------------------------------------------------------

arrow::Result<Signature> ResolveSameNumber(const TypeList& types) {
  RETURN_NOT_OK(ExpectNumbers("this function", types));
  const TypePtr type = types[0]->id() == arrow::Type::HALF_FLOAT ? arrow::float32() : types[0];
  return Uniform(type, 1);
}

arrow::Result<Signature> ResolveDouble(const TypeList& types) {
  RETURN_NOT_OK(ExpectNumbers("this function", types));
  return Uniform(arrow::float64(), types.size());
}

arrow::Result<Signature> ResolveFloatTest(const TypeList& types) {
  RETURN_NOT_OK(ExpectNumbers("this function", types));
  const TypePtr type = IsFloat(*types[0]) ? KernelType(types[0]) : arrow::float64();
  return Signature{{type}, arrow::boolean()};
}

template <const char* kChecked, const char* kUnchecked>
arrow::Result<Datum> EvaluateUnaryNumber(const Arguments& arguments, const TypePtr& result,
                                         int64_t) {
  return compute::CallFunction(IsInteger(*result) ? kChecked : kUnchecked, {arguments[0]});
}

// round(x[, digits]) rounds half away from zero (2.5 → 3, -2.5 → -3); floor and ceil. Integers
// are already whole.
template <compute::RoundMode kMode>
arrow::Result<Datum> EvaluateRounding(const Arguments& arguments, const TypePtr& result,
                                      int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto null, NullIfConstantIsNull(arguments, result, length));
  if (null) return *null;
  const int64_t digits = arguments.size() > 1 ? IntegerArgument(arguments[1]) : 0;
  if (IsInteger(*result) && digits >= 0) return arguments[0];
  if (IsInteger(*result)) {
    // round(i, -1): through float64, exact below 2^53.
    ARROW_ASSIGN_OR_RAISE(auto real, compute::Cast(arguments[0], arrow::float64()));
    ARROW_ASSIGN_OR_RAISE(auto rounded,
                          EvaluateRounding<kMode>({real, arguments[1]}, arrow::float64(), length));
    return compute::Cast(rounded, result);
  }
  if (digits == 0) {
    compute::RoundOptions options(0, kMode);
    return compute::CallFunction("round", {arguments[0]}, &options);
  }
  // Arrow scales by 10^digits, which overflows for large values (an error) and leaves
  // subnormals unrounded; values beyond the precision are already round, values below half a
  // unit round to a zero of their sign.
  if (digits > 30) return arguments[0];
  const double whole = result->id() == arrow::Type::DOUBLE ? 4503599627370496.0 : 8388608.0;
  ARROW_ASSIGN_OR_RAISE(auto magnitude, compute::CallFunction("abs", {arguments[0]}));
  Datum keep(false);
  if (digits > 0) {
    ARROW_ASSIGN_OR_RAISE(keep, compute::CallFunction("greater_equal", {magnitude, Datum(whole)}));
  }
  Datum tiny(false);
  if (digits < 0) {
    const double half_unit = 0.5 * std::pow(10.0, static_cast<double>(-digits));
    ARROW_ASSIGN_OR_RAISE(tiny, compute::CallFunction("less", {magnitude, Datum(half_unit)}));
  }
  ARROW_ASSIGN_OR_RAISE(auto special, compute::CallFunction("or", {keep, tiny}));
  ARROW_ASSIGN_OR_RAISE(auto zero, arrow::MakeScalar(result, 0));
  ARROW_ASSIGN_OR_RAISE(auto safe, compute::IfElse(special, zero, arguments[0]));
  compute::RoundOptions options(digits, kMode);
  ARROW_ASSIGN_OR_RAISE(auto rounded, compute::CallFunction("round", {safe}, &options));
  ARROW_ASSIGN_OR_RAISE(auto signed_zero, compute::CallFunction("multiply", {arguments[0], zero}));
  ARROW_ASSIGN_OR_RAISE(auto small, compute::IfElse(tiny, signed_zero, rounded));
  return compute::IfElse(keep, arguments[0], small);
}

arrow::Result<Signature> ResolveRound(const TypeList& types) {
  ARROW_ASSIGN_OR_RAISE(auto signature, ResolveSameNumber({types[0]}));
  if (types.size() > 1) {
    if (!IsInteger(*types[1])) {
      return Mismatch("round takes an integer number of digits, not ", types[1]->ToString());
    }
    signature.arguments.push_back(arrow::int64());
  }
  return signature;
}

arrow::Result<Datum> EvaluatePower(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction("power", arguments);
}

template <bool kInfinity>
arrow::Result<Signature> ResolveConstantDouble(const TypeList&) {
  return Signature{{}, arrow::float64()};
}

template <bool kInfinity>
arrow::Result<Datum> EvaluateConstantDouble(const Arguments&, const TypePtr&, int64_t) {
  return Datum(
      std::make_shared<arrow::DoubleScalar>(kInfinity ? std::numeric_limits<double>::infinity()
                                                      : std::numeric_limits<double>::quiet_NaN()));
}

// --- conditionals ---------------------------------------------------------------------------

arrow::Result<Signature> ResolveCommon(const TypeList& types) {
  ARROW_ASSIGN_OR_RAISE(auto common, CommonValueType(types));
  return Uniform(common, types.size());
}

arrow::Result<Datum> EvaluateCoalesce(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction("coalesce", arguments);
}

arrow::Result<Datum> EvaluateNullIf(const Arguments& arguments, const TypePtr& result,
                                    int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto equal, compute::CallFunction("equal", arguments));
  ARROW_ASSIGN_OR_RAISE(auto decided, compute::CallFunction("coalesce", {equal, Datum(false)}));
  ARROW_ASSIGN_OR_RAISE(auto value, DatumToArray(arguments[0], length));
  return compute::IfElse(decided, arrow::MakeNullScalar(result), value);
}

// greatest / least skip nulls (null only when every argument is null), as in DuckDB.
template <const char* kKernel>
arrow::Result<Datum> EvaluateExtreme(const Arguments& arguments, const TypePtr&, int64_t) {
  compute::ElementWiseAggregateOptions options(/*skip_nulls=*/true);
  return compute::CallFunction(kKernel, arguments, &options);
}

constexpr char kMaxElementWise[] = "max_element_wise";
constexpr char kMinElementWise[] = "min_element_wise";

// --- IS forms (not callable by name: the names hold spaces) --------------------------------

arrow::Result<Signature> ResolveAny(const TypeList& types) {
  return Signature{types, arrow::boolean()};
}

arrow::Result<Datum> EvaluateIsNull(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction("is_null", {arguments[0]});
}

arrow::Result<Datum> Distinct(const Arguments& arguments, int64_t length) {
  if (arguments[0].type()->id() == arrow::Type::NA) return Datum(false);  // NULL vs NULL
  ARROW_ASSIGN_OR_RAISE(auto left_valid, compute::CallFunction("is_valid", {arguments[0]}));
  ARROW_ASSIGN_OR_RAISE(auto right_valid, compute::CallFunction("is_valid", {arguments[1]}));
  ARROW_ASSIGN_OR_RAISE(auto one_null, compute::CallFunction("xor", {left_valid, right_valid}));
  ARROW_ASSIGN_OR_RAISE(auto differ,
                        CompareValues(CompareOp::kNotEqual, arguments[0], arguments[1], length));
  return compute::CallFunction("coalesce", {differ, one_null});
}

template <bool kNegated>
arrow::Result<Datum> EvaluateDistinct(const Arguments& arguments, const TypePtr&, int64_t length) {
  ARROW_ASSIGN_OR_RAISE(auto distinct, Distinct(arguments, length));
  if (!kNegated) return distinct;
  return compute::CallFunction("invert", {distinct});
}

// IS TRUE / IS FALSE (kValue), negated by IS NOT: unknown counts as neither.
template <bool kValue, bool kNegated>
arrow::Result<Datum> EvaluateIsTruth(const Arguments& arguments, const TypePtr&, int64_t) {
  Datum value = arguments[0];
  if (!kValue) {
    ARROW_ASSIGN_OR_RAISE(value, compute::CallFunction("invert", {value}));
  }
  ARROW_ASSIGN_OR_RAISE(auto decided, compute::CallFunction("coalesce", {value, Datum(false)}));
  if (!kNegated) return decided;
  return compute::CallFunction("invert", {decided});
}

template <bool kNegated>
arrow::Result<Datum> EvaluateIsUnknown(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction(kNegated ? "is_valid" : "is_null", {arguments[0]});
}

// --- the registry ---------------------------------------------------------------------------

using Style = FunctionSpec::Style;

const std::vector<FunctionSpec>& Specs() {
  static const std::vector<FunctionSpec> specs = {
      {"+", "+", Style::kInfix, 2, 2, true, 0, "a + b", ResolveAdd, EvaluateAdd},
      {"-", "-", Style::kInfix, 2, 2, true, 0, "a - b", ResolveArithmetic,
       EvaluateArithmetic<kSubtractChecked, kSubtract>},
      {"*", "*", Style::kInfix, 2, 2, true, 0, "a * b", ResolveNumbers,
       EvaluateArithmetic<kMultiplyChecked, kMultiply>},
      {"/", "/", Style::kInfix, 2, 2, false, 0, "a / b", ResolveDivide, EvaluateDivide},
      {"%", "%", Style::kInfix, 2, 2, true, 0, "a % b", ResolveNumbers, EvaluateModulo},
      {"negate", "-", Style::kPrefix, 1, 1, true, 0, "-a", ResolveNegate,
       EvaluateUnaryNumber<kNegateChecked, kNegate>},
      {"||", "||", Style::kInfix, 2, 2, false, 0, "a || b", ResolveStrings, EvaluateConcatOperator},
      {"concat", "concat", Style::kFunction, 1, -1, false, 0, "concat(string, ...)", ResolveStrings,
       EvaluateConcat},
      {"lower", "lower", Style::kFunction, 1, 1, false, 0, "lower(string)", ResolveStrings,
       EvaluateUnary<kLower>},
      {"upper", "upper", Style::kFunction, 1, 1, false, 0, "upper(string)", ResolveStrings,
       EvaluateUnary<kUpper>},
      {"length", "length", Style::kFunction, 1, 1, false, 0, "length(string)", ResolveLength,
       EvaluateLength},
      {"substr", "substr", Style::kFunction, 2, 3, false, 0b110,
       "substr(string, start[, count]) with constant start and count", ResolveSubstr,
       EvaluateSubstr},
      {"trim", "trim", Style::kFunction, 1, 1, false, 0, "trim(string)", ResolveStrings,
       EvaluateTrim<kTrim>},
      {"ltrim", "ltrim", Style::kFunction, 1, 1, false, 0, "ltrim(string)", ResolveStrings,
       EvaluateTrim<kLtrim>},
      {"rtrim", "rtrim", Style::kFunction, 1, 1, false, 0, "rtrim(string)", ResolveStrings,
       EvaluateTrim<kRtrim>},
      {"starts_with", "starts_with", Style::kFunction, 2, 2, false, 0b10,
       "starts_with(string, 'constant')", ResolveStringPredicate,
       EvaluateStringPredicate<kStartsWith>},
      {"ends_with", "ends_with", Style::kFunction, 2, 2, false, 0b10,
       "ends_with(string, 'constant')", ResolveStringPredicate, EvaluateStringPredicate<kEndsWith>},
      {"contains", "contains", Style::kFunction, 2, 2, false, 0b10, "contains(string, 'constant')",
       ResolveStringPredicate, EvaluateStringPredicate<kMatchSubstring>},
      {"like operator", "LIKE", Style::kLike, 3, 3, false, 0b100, "value LIKE pattern [ESCAPE 'c']",
       ResolveLike, EvaluateLike<false>, CheckLike},
      {"ilike operator", "ILIKE", Style::kLike, 3, 3, false, 0b100,
       "value ILIKE pattern [ESCAPE 'c']", ResolveLike, EvaluateLike<true>, CheckLike},
      {"regexp_like", "regexp_like", Style::kFunction, 2, 2, false, 0b10,
       "regexp_like(string, 'constant RE2 pattern')", ResolveStringPredicate,
       EvaluateStringPredicate<kMatchRegex>, CheckRegex},
      {"abs", "abs", Style::kFunction, 1, 1, true, 0, "abs(number)", ResolveSameNumber,
       EvaluateUnaryNumber<kAbsChecked, kAbs>},
      {"round", "round", Style::kFunction, 1, 2, false, 0b10, "round(number[, constant digits])",
       ResolveRound, EvaluateRounding<compute::RoundMode::HALF_TOWARDS_INFINITY>},
      {"floor", "floor", Style::kFunction, 1, 1, false, 0, "floor(number)", ResolveSameNumber,
       EvaluateRounding<compute::RoundMode::DOWN>},
      {"ceil", "ceil", Style::kFunction, 1, 1, false, 0, "ceil(number)", ResolveSameNumber,
       EvaluateRounding<compute::RoundMode::UP>},
      {"sqrt", "sqrt", Style::kFunction, 1, 1, false, 0, "sqrt(number)", ResolveDouble,
       EvaluateUnary<kSqrt>},
      {"ln", "ln", Style::kFunction, 1, 1, false, 0, "ln(number)", ResolveDouble,
       EvaluateUnary<kLn>},
      {"exp", "exp", Style::kFunction, 1, 1, false, 0, "exp(number)", ResolveDouble,
       EvaluateUnary<kExp>},
      {"power", "power", Style::kFunction, 2, 2, false, 0, "power(base, exponent)", ResolveDouble,
       EvaluatePower},
      {"isnan", "isnan", Style::kFunction, 1, 1, false, 0, "isnan(number)", ResolveFloatTest,
       EvaluateUnary<kIsNan>},
      {"isinf", "isinf", Style::kFunction, 1, 1, false, 0, "isinf(number)", ResolveFloatTest,
       EvaluateUnary<kIsInf>},
      {"isfinite", "isfinite", Style::kFunction, 1, 1, false, 0, "isfinite(number)",
       ResolveFloatTest, EvaluateUnary<kIsFinite>},
      {"nan", "nan", Style::kFunction, 0, 0, false, 0, "nan()", ResolveConstantDouble<false>,
       EvaluateConstantDouble<false>},
      {"inf", "inf", Style::kFunction, 0, 0, false, 0, "inf()", ResolveConstantDouble<true>,
       EvaluateConstantDouble<true>},
      {"coalesce", "coalesce", Style::kFunction, 1, -1, false, 0, "coalesce(value, ...)",
       ResolveCommon, EvaluateCoalesce},
      {"nullif", "nullif", Style::kFunction, 2, 2, false, 0, "nullif(value, value)", ResolveCommon,
       EvaluateNullIf},
      {"greatest", "greatest", Style::kFunction, 1, -1, false, 0, "greatest(value, ...)",
       ResolveCommon, EvaluateExtreme<kMaxElementWise>},
      {"least", "least", Style::kFunction, 1, -1, false, 0, "least(value, ...)", ResolveCommon,
       EvaluateExtreme<kMinElementWise>},
      {"is null", "IS NULL", Style::kPostfix, 1, 1, false, 0, "x IS NULL", ResolveAny,
       EvaluateIsNull},
      {"is distinct from", "IS DISTINCT FROM", Style::kInfix, 2, 2, false, 0,
       "a IS DISTINCT FROM b", ResolveAny, EvaluateDistinct<false>},
      {"is not distinct from", "IS NOT DISTINCT FROM", Style::kInfix, 2, 2, false, 0,
       "a IS NOT DISTINCT FROM b", ResolveAny, EvaluateDistinct<true>},
      {"is true", "IS TRUE", Style::kPostfix, 1, 1, false, 0, "p IS TRUE", ResolveAny,
       EvaluateIsTruth<true, false>},
      {"is not true", "IS NOT TRUE", Style::kPostfix, 1, 1, false, 0, "p IS NOT TRUE", ResolveAny,
       EvaluateIsTruth<true, true>},
      {"is false", "IS FALSE", Style::kPostfix, 1, 1, false, 0, "p IS FALSE", ResolveAny,
       EvaluateIsTruth<false, false>},
      {"is not false", "IS NOT FALSE", Style::kPostfix, 1, 1, false, 0, "p IS NOT FALSE",
       ResolveAny, EvaluateIsTruth<false, true>},
      {"is unknown", "IS UNKNOWN", Style::kPostfix, 1, 1, false, 0, "p IS UNKNOWN", ResolveAny,
       EvaluateIsUnknown<false>},
      {"is not unknown", "IS NOT UNKNOWN", Style::kPostfix, 1, 1, false, 0, "p IS NOT UNKNOWN",
       ResolveAny, EvaluateIsUnknown<true>},
  };
  return specs;
}

const std::map<std::string, const FunctionSpec*, std::less<>>& SpecsByName() {
  static const auto* by_name = [] {
    auto* map = new std::map<std::string, const FunctionSpec*, std::less<>>();
    for (const auto* family : {&Specs(), &TemporalFunctionSpecs(), &ListFunctionSpecs()}) {
      for (const auto& spec : *family) (*map)[std::string(spec.name)] = &spec;
    }
    // Other spellings of the same functions.
    (*map)["substring"] = (*map)["substr"];
    (*map)["ceiling"] = (*map)["ceil"];
    (*map)["pow"] = (*map)["power"];
    (*map)["char_length"] = (*map)["length"];
    (*map)["list_contains"] = (*map)["array_contains"];
    (*map)["cardinality"] = (*map)["array_length"];
    (*map)["current_timestamp"] = (*map)["now"];
    (*map)["datepart"] = (*map)["date_part"];
    return map;
  }();
  return *by_name;
}

}  // namespace

const FunctionSpec* FindFunction(std::string_view name) {
  const auto& by_name = SpecsByName();
  auto found = by_name.find(name);
  return found == by_name.end() ? nullptr : found->second;
}

const std::vector<std::string>& FunctionNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const auto& [name, spec] : SpecsByName()) {
      if (spec->style == Style::kFunction) result.push_back(name);
    }
    result.push_back("array_has_any");
    result.push_back("array_has_all");
    return result;
  }();
  return names;
}

arrow::Result<std::shared_ptr<arrow::Array>> DatumToArray(const Datum& datum, int64_t length) {
  if (datum.is_array()) return datum.make_array();
  return arrow::MakeArrayFromScalar(*datum.scalar(), length);
}

std::string ConstantString(const Datum& datum) {
  const auto& scalar = static_cast<const arrow::BaseBinaryScalar&>(*datum.scalar());
  return scalar.is_valid ? std::string(scalar.view()) : std::string();
}

arrow::Result<std::shared_ptr<arrow::DataType>> CommonValueType(const TypeList& types) {
  TypePtr common;
  for (const auto& type : types) {
    if (type->id() == arrow::Type::NA) continue;
    const TypePtr next = KernelType(type);
    if (!common) {
      common = next;
      continue;
    }
    if (common->Equals(*next)) continue;
    if (IsNumber(*common) && IsNumber(*next)) {
      if (IsFloat(*common) || IsFloat(*next)) {
        // An integer meeting a float becomes that float (int32 + float32 is float32).
        const bool wide = common->id() == arrow::Type::DOUBLE || next->id() == arrow::Type::DOUBLE;
        common = wide ? arrow::float64() : arrow::float32();
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto integer, ComparisonType(common, next));
      // int64 meeting uint64: no integer type holds both; int64 (values beyond fail to cast).
      common = integer->id() == arrow::Type::DECIMAL128 ? arrow::int64() : integer;
      continue;
    }
    if (IsString(*common) && IsString(*next)) {
      common = arrow::large_utf8();
      continue;
    }
    // A date meeting a timestamp, or timestamps of two units: the timestamp of the finer unit
    // (both cast to it implicitly; a time zone must agree).
    if (FamilyOf(*common) == TypeFamily::kTemporal && FamilyOf(*next) == TypeFamily::kTemporal &&
        (common->id() == arrow::Type::TIMESTAMP || next->id() == arrow::Type::TIMESTAMP)) {
      auto timestamp = ComparisonType(common, next);
      if (timestamp.ok()) {
        common = *timestamp;
        continue;
      }
    }
    return Mismatch(common->ToString(), " and ", next->ToString(), " have no common type");
  }
  if (!common) return arrow::null();
  return common;
}

bool CastIsImplicit(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.Equals(to) || from.id() == arrow::Type::NA) return true;
  if (IsNumber(from) && IsNumber(to)) return true;
  // Dates to timestamps and timestamps or durations to finer units (date/interval arithmetic).
  if (FamilyOf(from) == TypeFamily::kTemporal && to.id() == arrow::Type::TIMESTAMP) return true;
  if (from.id() == arrow::Type::DURATION && to.id() == arrow::Type::DURATION) return true;
  return IsString(from) && IsString(to);
}

bool CastCanFail(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.Equals(to) || from.id() == arrow::Type::NA) return false;
  if (to.id() == arrow::Type::STRING || to.id() == arrow::Type::LARGE_STRING) return false;
  if (IsFloat(to) && (IsNumber(from) || from.id() == arrow::Type::BOOL)) return false;
  if (IsInteger(from) && IsInteger(to)) {
    if (IsSignedInteger(from) && !IsSignedInteger(to)) return true;
    const int from_bits = static_cast<const arrow::FixedWidthType&>(from).bit_width();
    const int to_bits = static_cast<const arrow::FixedWidthType&>(to).bit_width();
    return IsSignedInteger(from) == IsSignedInteger(to) ? to_bits < from_bits
                                                        : to_bits <= from_bits;
  }
  return true;
}

namespace {

// Casts value by value, null where one does not convert (TRY_CAST), or fails naming it (CAST).
arrow::Result<Datum> CastEach(const std::shared_ptr<arrow::Array>& values, const TypePtr& type,
                              bool try_cast) {
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  for (int64_t i = 0; i < values->length(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto scalar, values->GetScalar(i));
    if (!scalar->is_valid) {
      RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    auto cast = compute::Cast(Datum(scalar), type);
    if (!cast.ok()) {
      if (try_cast) {
        RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      return arrow::Status::Invalid("cannot cast ", values->type()->ToString(), " value ",
                                    scalar->ToString(), " to ", type->ToString(),
                                    "; use TRY_CAST to get NULL for such values");
    }
    RETURN_NOT_OK(builder->AppendScalar(*cast->scalar()));
  }
  return builder->Finish();
}

}  // namespace

namespace {

arrow::Result<Datum> CastArray(const Datum& value, const TypePtr& type, bool try_cast,
                               int64_t length);

}  // namespace

arrow::Result<Datum> CastValues(const Datum& value, const TypePtr& type, bool try_cast,
                                int64_t length) {
  if (value.type()->Equals(*type)) return value;
  if (!value.is_scalar()) return CastArray(value, type, try_cast, length);
  // A constant is cast once, as a one-element array, and stays a scalar.
  ARROW_ASSIGN_OR_RAISE(auto cast, CastArray(value, type, try_cast, 1));
  ARROW_ASSIGN_OR_RAISE(auto scalar, cast.make_array()->GetScalar(0));
  return Datum(std::move(scalar));
}

namespace {

arrow::Result<Datum> CastArray(const Datum& value, const TypePtr& type, bool try_cast,
                               int64_t length) {
  const auto& from = *value.type();
  ARROW_ASSIGN_OR_RAISE(auto values, DatumToArray(value, length));
  if (IsFloat(from) && IsInteger(*type)) {
    // SQL rounds a float cast to an integer; Arrow would truncate (or refuse).
    compute::RoundOptions round(0, compute::RoundMode::HALF_TOWARDS_INFINITY);
    if (from.id() == arrow::Type::HALF_FLOAT) {
      // Arrow's round has no float16 kernel; float32 holds every float16 exactly.
      ARROW_ASSIGN_OR_RAISE(auto widened, compute::Cast(Datum(values), arrow::float32()));
      values = widened.make_array();
    }
    ARROW_ASSIGN_OR_RAISE(auto rounded, compute::CallFunction("round", {Datum(values)}, &round));
    values = rounded.make_array();
  }
  // Numbers become floats by rounding to the nearest (as SQL does); every other conversion
  // must be exact.
  const bool to_float = IsFloat(*type) && IsNumber(from);
  auto cast =
      compute::Cast(Datum(values), type,
                    to_float ? compute::CastOptions::Unsafe() : compute::CastOptions::Safe());
  if (cast.ok()) return cast;
  return CastEach(values, type, try_cast);
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::DataType>> TypeNamed(std::string_view name) {
  static const std::map<std::string, TypePtr, std::less<>> kTypes = {
      {"boolean", arrow::boolean()},
      {"bool", arrow::boolean()},
      {"tinyint", arrow::int8()},
      {"smallint", arrow::int16()},
      {"int", arrow::int32()},
      {"integer", arrow::int32()},
      {"bigint", arrow::int64()},
      {"utinyint", arrow::uint8()},
      {"usmallint", arrow::uint16()},
      {"uinteger", arrow::uint32()},
      {"ubigint", arrow::uint64()},
      {"int8", arrow::int8()},
      {"int16", arrow::int16()},
      {"int32", arrow::int32()},
      {"int64", arrow::int64()},
      {"uint8", arrow::uint8()},
      {"uint16", arrow::uint16()},
      {"uint32", arrow::uint32()},
      {"uint64", arrow::uint64()},
      {"float16", arrow::float16()},
      {"halffloat", arrow::float16()},
      {"real", arrow::float32()},
      {"float", arrow::float32()},
      {"float4", arrow::float32()},
      {"float32", arrow::float32()},
      {"double", arrow::float64()},
      {"double precision", arrow::float64()},
      {"float8", arrow::float64()},
      {"float64", arrow::float64()},
      {"varchar", arrow::utf8()},
      {"character varying", arrow::utf8()},
      {"text", arrow::utf8()},
      {"string", arrow::utf8()},
      {"utf8", arrow::utf8()},
      {"large_utf8", arrow::large_utf8()},
      {"large_string", arrow::large_utf8()},
      {"date", arrow::date32()},
      {"date32", arrow::date32()},
      {"timestamp", arrow::timestamp(arrow::TimeUnit::MICRO)},
      {"timestamp without time zone", arrow::timestamp(arrow::TimeUnit::MICRO)},
      {"timestamp_s", arrow::timestamp(arrow::TimeUnit::SECOND)},
      {"timestamp_ms", arrow::timestamp(arrow::TimeUnit::MILLI)},
      {"timestamp_us", arrow::timestamp(arrow::TimeUnit::MICRO)},
      {"timestamp_ns", arrow::timestamp(arrow::TimeUnit::NANO)},
      {"timestamptz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")},
      {"timestamp with time zone", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")},
  };
  auto found = kTypes.find(name);
  if (found != kTypes.end()) return found->second;
  std::vector<std::string> names;
  for (const auto& [known, type] : kTypes) names.push_back(known);
  const auto suggestions = ClosestNames(std::string(name), names);
  return arrow::Status::Invalid("unknown type '", name, "'",
                                suggestions.empty() ? "" : "; " + DidYouMean(suggestions));
}

std::string TypeName(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::HALF_FLOAT:
      return "float16";
    case arrow::Type::FLOAT:
      return "float32";
    case arrow::Type::DOUBLE:
      return "float64";
    case arrow::Type::STRING:
      return "varchar";
    case arrow::Type::LARGE_STRING:
      return "large_utf8";
    case arrow::Type::DATE32:
      return "date";
    case arrow::Type::TIMESTAMP: {
      const auto& timestamp = static_cast<const arrow::TimestampType&>(type);
      if (!timestamp.timezone().empty()) return "timestamptz";
      switch (timestamp.unit()) {
        case arrow::TimeUnit::SECOND:
          return "timestamp_s";
        case arrow::TimeUnit::MILLI:
          return "timestamp_ms";
        case arrow::TimeUnit::MICRO:
          return "timestamp_us";
        case arrow::TimeUnit::NANO:
          return "timestamp_ns";
      }
      return "timestamp";
    }
    default:
      return type.ToString();  // bool, int8 ... uint64
  }
}

}  // namespace tessera::expr
