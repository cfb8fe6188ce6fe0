// The functions and operators of the expression language (docs/filters.md, "Expressions"):
// their names, how argument types decide the result type, and how they evaluate over Arrow
// arrays with Arrow compute kernels.
//
// One FunctionSpec per name. The binder looks a name up (FindFunction), asks the spec for the
// Signature of the argument types it has bound (Resolve), casts each argument to the
// signature's type, and builds a Call node; the evaluator hands the evaluated arguments to
// Evaluate. Operators are functions named by their symbol ("+", "||", "negate").
//
// Invariants: Resolve either fails with a TypeError whose message describes the mismatch in
// words (the binder adds the position and the expression), or returns a signature whose
// argument types can be reached from the given ones by CastIsImplicit; Evaluate receives
// arguments of exactly those types, arrays of the batch's length or scalars, and returns an
// array of the batch's length of exactly the result type. `can_fail` says whether Evaluate can
// fail on some data (integer overflow, modulo by zero); every other spec never fails on data.
#pragma once

#include <arrow/compute/api.h>
#include <arrow/datum.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::expr {

using TypeList = std::vector<std::shared_ptr<arrow::DataType>>;

struct Signature {
  TypeList arguments;  // one per argument
  std::shared_ptr<arrow::DataType> result;
};

struct FunctionSpec {
  enum class Style {
    kFunction,  // name(a, b)
    kInfix,     // (a symbol b)
    kPrefix,    // (symbol a)
    kPostfix,   // (a symbol), e.g. IS NULL
    kAny,       // (a symbol(b)), e.g. = ANY
    kLike,      // (a symbol b [ESCAPE c]), LIKE / ILIKE over an expression
  };
  using ResolveFunction = arrow::Result<Signature> (*)(const TypeList& arguments);
  using EvaluateFunction = arrow::Result<arrow::Datum> (*)(
      const std::vector<arrow::Datum>& arguments, const std::shared_ptr<arrow::DataType>& result,
      int64_t length);

  std::string_view name;    // as looked up: "abs", "+", "negate"
  std::string_view symbol;  // as rendered: "abs", "+", "-", "IS NULL"
  Style style;
  int min_arguments;
  int max_arguments;  // -1: any number
  bool can_fail;
  // Bit i set: argument i must be a literal (the digits of round, the pattern of starts_with),
  // checked by the binder.
  uint32_t constant_arguments;
  std::string_view usage;  // "abs(number)", shown with arity and type errors
  ResolveFunction resolve;
  EvaluateFunction evaluate;
  // Checks the constant arguments (null where an argument is not constant) once, at bind
  // time, so that a bad regular expression or date_part field fails before any row is read.
  using CheckFunction = arrow::Status (*)(const std::vector<std::shared_ptr<arrow::Scalar>>&);
  CheckFunction check = nullptr;
};

// The spec of a function or operator name (lower case); nullptr when there is none.
const FunctionSpec* FindFunction(std::string_view name);
// Every function name a user can call (not the operators), for suggestions.
const std::vector<std::string>& FunctionNames();

// The type a set of values of these types is brought to (CASE branches, COALESCE, IN, the
// operands of + - * %): integers widen to an integer type holding both (int64 when a uint64
// meets a signed type), integers meeting floats become that float, float16 becomes float32;
// strings become the widest string type; anything else must be equal. TypeError otherwise.
arrow::Result<std::shared_ptr<arrow::DataType>> CommonValueType(const TypeList& types);

// Whether the binder may convert `from` to `to` without the user writing CAST: between
// numbers, between string types, and from a type to itself.
bool CastIsImplicit(const arrow::DataType& from, const arrow::DataType& to);

// Whether a CAST from `from` to `to` can fail on some value (narrowing, strings to numbers...).
bool CastCanFail(const arrow::DataType& from, const arrow::DataType& to);

// Evaluates CAST / TRY_CAST: numbers to integers round half away from zero (2.5 → 3) and fail
// (CAST) or give null (TRY_CAST) when out of range or NaN; strings parse; values format as
// strings. Failures name the first value that does not convert.
arrow::Result<arrow::Datum> CastValues(const arrow::Datum& value,
                                       const std::shared_ptr<arrow::DataType>& type, bool try_cast,
                                       int64_t length);

// The type named in CAST(x AS name) / x::name: SQL names (tinyint, smallint, int, integer,
// bigint, real, float, double, double precision, varchar, text, string, boolean, date,
// timestamp, timestamptz, ...) and Arrow's (int8, uint32, float32, float64, utf8, large_utf8,
// timestamp_ns, ...). InvalidArgument naming the closest names otherwise.
arrow::Result<std::shared_ptr<arrow::DataType>> TypeNamed(std::string_view name);

// The name TypeNamed reads back as `type` (CAST rendering): int8, float64, varchar, date,
// timestamp_ns, timestamptz...
std::string TypeName(const arrow::DataType& type);

}  // namespace tessera::expr
