// Test support for the zone-based superset families (ZONEMAP, BLOOMFILTER): random one-column
// datasets of any indexable type, random value predicates (index/scalar/scalar_query.h) with
// their reference answers computed by Arrow compute on the raw column (the unindexed scan's
// kernels), and building, opening and merging segments of a family directly.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/scalar_family_testing.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/scalar_query.h"

namespace tessera::testing {

// Random values of `type` with nulls (`null_fraction`), duplicates and the type's extremes;
// floats also NaN, -0.0, 0.0 and ±inf; strings short, some non-ASCII. Throws on failure.
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

// BuildSegment and MergeSegments of scalar_family_testing.h that throw on failure.
BuiltSegment BuildSegmentOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                            const std::vector<format::Fragment>& fragments, index::Params params);
BuiltSegment MergeSegmentsOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                             const std::vector<BuiltSegment>& parts);

// Reads and counts `filter` through the planner (query::Read, query::Count) and through the
// unindexed scan (Dataset::ScanToTable, CountRows): empty when they agree, else what differs.
// `explain` gets the planner's explain text of the count.
std::string PlannerDisagreement(const std::shared_ptr<dataset::Dataset>& dataset,
                                const std::string& filter, std::string* explain);

// Whether every row of `expected` is in `answer` (both ascending).
bool Includes(const std::vector<uint64_t>& answer, const std::vector<uint64_t>& expected);

}  // namespace tessera::testing
