// How the filter language sees Arrow types: which family a column belongs to (what it can be
// compared with), and the common type two columns are compared in.
//
// Comparisons happen only within a family: numbers with numbers, strings with strings,
// dates/timestamps with dates/timestamps, booleans with booleans, binary with binary (= and !=
// only). Lists of strings or integers are queried with array_has_any / array_has_all; vectors
// (fixed_size_list) only with IS [NOT] NULL.
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>

namespace tessera::expr {

enum class TypeFamily {
  kInteger,  // int8..int64, uint8..uint64
  kFloat,    // float16, float32, float64
  kBoolean,
  kString,    // string, large_string (UTF-8)
  kBinary,    // binary, large_binary: = and != only
  kTemporal,  // date32, date64, timestamp (any unit, with or without time zone)
  kList,      // list / large_list of integers or strings: array_has_any / array_has_all
  kVector,    // fixed_size_list: not comparable
  kOther,     // not supported by filters (only IS [NOT] NULL applies)
};

TypeFamily FamilyOf(const arrow::DataType& type);

bool IsSignedInteger(const arrow::DataType& type);

// The element type of a kList column.
const std::shared_ptr<arrow::DataType>& ListElementType(const arrow::DataType& type);

// The type two columns are cast to before an Arrow comparison kernel sees them, chosen so the
// comparison is exact: int64 vs uint64 goes through decimal128(20, 0), int8 vs uint8 through
// int16. Integers against floats compare in float64 (inexact beyond 2^53). Fails when the two
// types are not comparable (different families, or timestamps with and without time zone).
arrow::Result<std::shared_ptr<arrow::DataType>> ComparisonType(
    const std::shared_ptr<arrow::DataType>& left, const std::shared_ptr<arrow::DataType>& right);

// The type a column (or literal of its type) is cast to before comparison kernels run, where
// Arrow has none for the column's own type: float16 → float32; itself otherwise.
std::shared_ptr<arrow::DataType> KernelType(const std::shared_ptr<arrow::DataType>& type);

}  // namespace tessera::expr
