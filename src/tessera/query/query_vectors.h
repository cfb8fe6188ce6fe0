// Query vectors read from a column of someone's file: a fixed_size_list, list or large_list of
// numbers per row (float32, float16, float64, integers), compared as float32. Shared by the
// searches of a file of queries and the k-nearest-neighbour join's left input.
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <cstdint>
#include <functional>
#include <string>

namespace tessera::query {

// True for the column types a query vector may come in (lists of any kind).
bool IsVectorLike(const arrow::DataType& type);

// Calls visit(row, values, length) for each row of `column` (its `length` values as float32),
// in order, stopping at visit's first error. InvalidArgument for a column not of numbers
// (naming `column_name`), a null row or a null value, each naming the row as `row_name(row)`
// does ("left row 7", "query 7 of q.parquet").
arrow::Status ForEachVector(
    const arrow::Array& column, const std::string& column_name,
    const std::function<std::string(int64_t)>& row_name,
    const std::function<arrow::Status(int64_t row, const float* values, int64_t length)>& visit);

}  // namespace tessera::query
