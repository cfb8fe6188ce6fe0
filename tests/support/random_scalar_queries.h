// Random one-column data of any scalar type a family indexes, random value predicates on it
// (index::ScalarQuery of index/scalar/scalar_query.h) and their reference answers, computed by
// Arrow compute on the raw column with the unindexed scan's kernels: what the value-predicate
// families (BTREE, ZONEMAP, BLOOMFILTER) are checked against.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/scalar_family_testing.h"
#include "tessera/index/scalar/scalar_query.h"

namespace tessera::testing {

// Random values of `type` (integers, floats, booleans, strings, binaries, dates, timestamps) with
// nulls (`null_fraction`), duplicates and the type's extremes; floats also NaN, -0.0, 0.0 and ±inf;
// strings short, some non-ASCII. Throws on failure.
std::shared_ptr<arrow::Array> RandomValues(const std::shared_ptr<arrow::DataType>& type,
                                           int64_t rows, double null_fraction,
                                           std::mt19937_64& random);
// `values` sorted ascending (nulls last, NaN after numbers): clustered data zones narrow on.
std::shared_ptr<arrow::Array> SortedValues(const std::shared_ptr<arrow::Array>& values);

// A random query on the column: equality, IN (with nulls), ranges (when `ranges`), IS [NOT]
// NULL; values mostly of `column`, some of `others`, a few null.
index::ScalarQuery RandomQuery(const std::shared_ptr<arrow::Array>& column,
                               const std::shared_ptr<arrow::Array>& others, std::mt19937_64& random,
                               bool ranges);
std::string Describe(const index::ScalarQuery& query);
// The rows (addresses) where `query` is TRUE on `column`, ascending, as Arrow compute says.
std::vector<uint64_t> ReferenceRows(const ColumnDataset& table, const index::ScalarQuery& query);

}  // namespace tessera::testing
