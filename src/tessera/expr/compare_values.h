// Comparison of two value expressions of comparable types (types.h: ComparisonType), exact for
// every pair of types: the answer is the mathematical comparison of the two values, never that
// of values rounded or overflowed by a cast.
//
// - Integers of different types compare in a type holding both (int64 vs uint64 in
//   decimal128(20, 0)).
// - A 64-bit integer meets a float value by value: 9007199254740993 > 9007199254740992.0 is
//   true, although both are the same float64. NaN compares false with everything (!= true),
//   as IEEE 754 says and `=` does elsewhere in the language.
// - Dates and timestamps of different units compare as instants in nanoseconds held in 128
//   bits, so year 1 meets timestamp[ns] without the out-of-range error a cast would raise.
// - Strings compare by bytes (UTF-8 code point order).
//
// The result has one boolean per row, null where either side is null.
#pragma once

#include <arrow/datum.h>
#include <arrow/result.h>

#include "tessera/expr/ast.h"

namespace tessera::expr {

arrow::Result<arrow::Datum> CompareValues(CompareOp op, const arrow::Datum& left,
                                          const arrow::Datum& right, int64_t length);

// The Arrow kernel of a comparison: "equal", "less_equal", ...
const char* ComparisonKernel(CompareOp op);

}  // namespace tessera::expr
