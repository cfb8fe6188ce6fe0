// External columns: how a column of an external Parquet file (docs/external.md) becomes a column
// of the dataset's schema.
//
// A column the file holds with the dataset's type is taken as it is. A vector column of the
// dataset (fixed_size_list<float|float16, d>) also accepts a list<T> or large_list<T> of the
// same value type, the way Spark and most writers without a fixed-size list store embeddings:
// every non-null row must then hold exactly d values, none of them null. A null row is a null
// vector. Rows are checked when the file is registered and again whenever it is read (the file
// is not ours: it is untrusted input every time).
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string>

namespace tessera::dataset {

// True when a file column of `file_type` can be read as the dataset's `dataset_type`.
bool ExternalTypeAccepted(const arrow::DataType& file_type, const arrow::DataType& dataset_type);

// `file_schema` with every column whose type the dataset's field of that name accepts in
// another form (a list for a vector) retyped to the dataset's type: what CheckWriteSchema then
// compares.
std::shared_ptr<arrow::Schema> ConformExternalSchema(const arrow::Schema& file_schema,
                                                     const arrow::Schema& dataset_schema);

// `column` (rows [first_row, first_row + length) of column `name` of external file `path`) as
// `dataset_type`: the column itself when its type is that type, a fixed-size list over the same
// values (zero-copy when the rows are contiguous and non-null) for a list. A row of the wrong
// length or with a null value is InvalidArgument naming the file, the column and the row
// (counted from the file's first row), or, with `bad_as_null`, a null vector, counted in
// `*bad_rows` (when given).
arrow::Result<std::shared_ptr<arrow::Array>> ConformExternalColumn(
    const std::shared_ptr<arrow::Array>& column,
    const std::shared_ptr<arrow::DataType>& dataset_type, const std::string& path,
    const std::string& name, int64_t first_row, bool bad_as_null = false,
    int64_t* bad_rows = nullptr);

}  // namespace tessera::dataset
