// GatherRows: rows picked from several arrays of one type (one column of several record
// batches) copied into one new array, in the order asked.
//
// This is what a take of scattered rows needs: the rows of one fragment lie in many batches,
// and Arrow's take works on one array (or concatenates a chunked array first, copying every
// batch touched whole). Per batch take kernels cost microseconds of dispatch each (a
// 1 %-selective read of 5M rows called one per touched batch and column: half its time), plus a
// concatenation of the pieces. Here each column is copied in one pass over the picked rows by a
// loop typed on the column's layout: fixed-width values (numbers, dates, decimals, fixed-size
// binary), booleans, strings and binaries (32- and 64-bit offsets) and fixed-size lists of
// fixed-width values without null children (embeddings). Other types are appended row by row
// through Arrow's builders, and where a builder cannot append slices, taken by Arrow's kernel.
//
// The arrays must already be verified (io/array_verification.h) for the rows picked: this
// copies, it does not check.
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::dataset {

// Row `row` (relative to the array's offset) of the array at position `batch` of a list.
struct RowOfBatches {
  size_t batch;
  int64_t row;
};

// Rows `rows` (any order, repeats allowed) of `arrays` (each of type `type`), copied.
arrow::Result<std::shared_ptr<arrow::Array>> GatherRows(
    const std::shared_ptr<arrow::DataType>& type,
    const std::vector<const arrow::ArrayData*>& arrays, const std::vector<RowOfBatches>& rows);

}  // namespace tessera::dataset
