// ZONEMAP values: which columns a ZONEMAP summarizes and in what type it stores their zones'
// minima and maxima.
//
// Values are compared as BTREE keys (btree_key.h), which order exactly as the scan's
// comparisons do: integers, dates and timestamps as int64 / uint64, floats as double (NaN kept
// out, -0.0 equal to 0.0), strings bytewise. Minima and maxima are stored in the column's own
// type (float16 widened to float32, exactly, as BTREE pages do), so zone files are
// self-describing. decimal128 is not offered: tessera datasets cannot store decimal columns
// (dataset writes refuse them), and filters do not compare them.
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string>
#include <string_view>

namespace tessera::index::scalar {

// The type zone minima and maxima of a column of `column_type` are stored as; Unsupported
// (naming `column` and the accepted types) for a type ZONEMAP cannot index.
arrow::Result<std::shared_ptr<arrow::DataType>> ZoneMapStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type);
std::string_view ZoneMapSupportedTypes();

}  // namespace tessera::index::scalar
