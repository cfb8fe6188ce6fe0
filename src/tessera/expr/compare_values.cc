#include "tessera/expr/compare_values.h"

#include <arrow/array.h>
#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <cmath>
#include <vector>

#include "tessera/expr/evaluator.h"
#include "tessera/expr/function_families.h"
#include "tessera/expr/temporal.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;
using arrow::Datum;

arrow::Result<Datum> CastDatum(const Datum& datum, const std::shared_ptr<arrow::DataType>& type) {
  if (datum.type()->Equals(*type)) return datum;
  return compute::Cast(datum, type);
}

// -1, 0 or 1 as a < b, a == b, a > b; 2 when unordered (NaN).
template <typename Integer>
int CompareIntegerWithDouble(Integer a, double b) {
  if (std::isnan(b)) return 2;
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr double kTwo64 = 18446744073709551616.0;
  if constexpr (std::is_signed_v<Integer>) {
    if (b >= kTwo63) return -1;
    if (b < -kTwo63) return 1;
  } else {
    if (b >= kTwo64) return -1;
    if (b < 0) return 1;
  }
  const double whole = std::trunc(b);  // exact, and within Integer's range
  const auto truncated = static_cast<Integer>(whole);
  if (a < truncated) return -1;
  if (a > truncated) return 1;
  const double fraction = b - whole;  // exact
  return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0);
}

// A 64-bit integer column against a float64 one, value by value.
template <typename IntegerType>
arrow::Result<Datum> CompareIntegerFloat(CompareOp op, const arrow::Array& integers,
                                         const arrow::Array& floats, bool integer_on_left) {
  const auto& a = static_cast<const arrow::NumericArray<IntegerType>&>(integers);
  const auto& b = static_cast<const arrow::DoubleArray&>(floats);
  arrow::BooleanBuilder builder;
  RETURN_NOT_OK(builder.Reserve(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i) || b.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int order = CompareIntegerWithDouble(a.Value(i), b.Value(i));
    if (!integer_on_left && order != 2) order = -order;
    builder.UnsafeAppend(OrderSatisfies(op, order));
  }
  return Datum(*builder.Finish());
}

// Instants in nanoseconds, 128 bits wide; nullopt for nulls.
arrow::Result<std::vector<std::optional<Nanoseconds>>> Instants(const arrow::Array& array) {
  std::vector<std::optional<Nanoseconds>> instants(static_cast<size_t>(array.length()));
  Nanoseconds scale = 1;
  const int64_t* values64 = nullptr;
  const int32_t* values32 = nullptr;
  switch (array.type_id()) {
    case arrow::Type::DATE32:
      values32 = static_cast<const arrow::Date32Array&>(array).raw_values();
      scale = kNanosecondsPerDay;
      break;
    case arrow::Type::DATE64:
      values64 = static_cast<const arrow::Date64Array&>(array).raw_values();
      scale = 1'000'000;
      break;
    case arrow::Type::TIMESTAMP:
      values64 = static_cast<const arrow::TimestampArray&>(array).raw_values();
      scale = NanosecondsPerUnit(static_cast<const arrow::TimestampType&>(*array.type()).unit());
      break;
    default:
      return arrow::Status::TypeError("not a date or timestamp: ", array.type()->ToString());
  }
  for (int64_t i = 0; i < array.length(); ++i) {
    if (array.IsNull(i)) continue;
    const Nanoseconds value = values32 != nullptr ? values32[i] : values64[i];
    instants[static_cast<size_t>(i)] = value * scale;
  }
  return instants;
}

arrow::Result<Datum> CompareInstants(CompareOp op, const arrow::Array& left,
                                     const arrow::Array& right) {
  ARROW_ASSIGN_OR_RAISE(auto a, Instants(left));
  ARROW_ASSIGN_OR_RAISE(auto b, Instants(right));
  arrow::BooleanBuilder builder;
  RETURN_NOT_OK(builder.Reserve(left.length()));
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i] || !b[i]) {
      builder.UnsafeAppendNull();
      continue;
    }
    builder.UnsafeAppend(OrderSatisfies(op, *a[i] < *b[i] ? -1 : (*a[i] > *b[i] ? 1 : 0)));
  }
  return Datum(*builder.Finish());
}

bool IsWideInteger(const arrow::DataType& type) {
  return type.id() == arrow::Type::INT64 || type.id() == arrow::Type::UINT64;
}

}  // namespace

const char* ComparisonKernel(CompareOp op) {
  switch (op) {
    case CompareOp::kEqual:
      return "equal";
    case CompareOp::kNotEqual:
      return "not_equal";
    case CompareOp::kLess:
      return "less";
    case CompareOp::kLessEqual:
      return "less_equal";
    case CompareOp::kGreater:
      return "greater";
    case CompareOp::kGreaterEqual:
      return "greater_equal";
  }
  return "equal";
}

arrow::Result<Datum> CompareValues(CompareOp op, const Datum& left, const Datum& right,
                                   int64_t length) {
  RETURN_NOT_OK(EnsureComputeInitialized());  // callers outside evaluation (the planner) too
  const auto& left_type = left.type();
  const auto& right_type = right.type();
  const TypeFamily left_family = FamilyOf(*left_type);
  const TypeFamily right_family = FamilyOf(*right_type);
  const char* kernel = ComparisonKernel(op);

  // Integer against float, where a 64-bit integer would round in float64.
  const bool integer_float =
      (left_family == TypeFamily::kInteger && right_family == TypeFamily::kFloat) ||
      (left_family == TypeFamily::kFloat && right_family == TypeFamily::kInteger);
  if (integer_float) {
    const bool integer_on_left = left_family == TypeFamily::kInteger;
    const Datum& integers = integer_on_left ? left : right;
    const Datum& floats = integer_on_left ? right : left;
    ARROW_ASSIGN_OR_RAISE(auto as_double, CastDatum(floats, arrow::float64()));
    if (!IsWideInteger(*integers.type())) {
      ARROW_ASSIGN_OR_RAISE(auto widened, CastDatum(integers, arrow::float64()));
      return integer_on_left ? compute::CallFunction(kernel, {widened, as_double})
                             : compute::CallFunction(kernel, {as_double, widened});
    }
    ARROW_ASSIGN_OR_RAISE(auto integer_array, DatumToArray(integers, length));
    ARROW_ASSIGN_OR_RAISE(auto float_array, DatumToArray(as_double, length));
    if (integers.type()->id() == arrow::Type::INT64) {
      return CompareIntegerFloat<arrow::Int64Type>(op, *integer_array, *float_array,
                                                   integer_on_left);
    }
    return CompareIntegerFloat<arrow::UInt64Type>(op, *integer_array, *float_array,
                                                  integer_on_left);
  }
  // Dates and timestamps of different types: as instants, exactly.
  if (left_family == TypeFamily::kTemporal && right_family == TypeFamily::kTemporal &&
      !left_type->Equals(*right_type)) {
    ARROW_ASSIGN_OR_RAISE(auto left_array, DatumToArray(left, length));
    ARROW_ASSIGN_OR_RAISE(auto right_array, DatumToArray(right, length));
    return CompareInstants(op, *left_array, *right_array);
  }
  ARROW_ASSIGN_OR_RAISE(auto common, ComparisonType(left_type, right_type));
  ARROW_ASSIGN_OR_RAISE(auto left_value, CastDatum(left, common));
  ARROW_ASSIGN_OR_RAISE(auto right_value, CastDatum(right, common));
  return compute::CallFunction(kernel, {left_value, right_value});
}

}  // namespace tessera::expr
