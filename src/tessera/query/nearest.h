// Nearest-neighbour search over a vector column (docs/design.md, "Query semantics").
//
// Fragments covered by a segment of a vector index on the column (IVF_FLAT, ...) whose metric
// is the query's are searched through that segment (probing `nprobes` partitions); the other
// fragments are scanned with exact distances (index::vector::Distance, the function the index
// uses too, so equal vectors give bit-equal distances). Deletions always apply: they are passed
// to the segments as an accept callback, so deleted rows never take a place in the top k.
// Results of all parts are merged by (distance, row address), ascending; with nprobes at least
// the partition count of every segment, the answer is exactly the brute-force one.
//
// Filters:
//  - prefilter = true: the rows passing the filter are computed first (through scalar indexes
//    where they answer, see filtered_scan.h) and become an allow-list inside the search, so k
//    rows are returned whenever k rows with a vector pass. When the `nprobes` partitions
//    probed in a segment hold fewer than k qualifying rows while the segment's fragments hold
//    more (a selective prefilter, many deletions), the segment is searched again with twice
//    the probes, up to all of its partitions; explain says so. A segment whose fragments hold
//    fewer passing rows than its probed partitions would scan (rows × nprobes / partitions) is
//    not searched at all: the passing rows are read by address and scored exactly.
//  - prefilter = false (post-filter): the search finds the rows [offset, offset + k) of the
//    unfiltered order first, then drops those failing the filter, so it may return fewer than
//    k rows, even none.
// The distance range [lower_distance, upper_distance) and the offset are applied inside the
// search: rows outside the range never count, and the first `offset` rows of the order are
// skipped. Refined candidates (refine_factor > 1) are ranged by their exact distances; when a
// lower bound leaves too few of a segment's candidates in range, the segment is asked for twice
// as many until enough are (query/nearest_refinement.h).
//
// The result holds the projected columns, then `_distance` (float32, smaller is closer: l2 is
// the squared Euclidean distance, cosine 1 − cosine similarity, dot the negated inner product),
// then `_rowaddr` (uint64) when asked for; rows in (distance, row address) order.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/explain.h"

namespace tessera::query {

// The name of the distance column Nearest adds.
inline constexpr const char* kDistanceColumn = "_distance";

inline constexpr int kDefaultNprobes = 20;

struct NearestOptions {
  // A fixed_size_list<float32|float16> column.
  std::string column;
  // As many floats as the column's dimension; all finite.
  std::vector<float> query;
  // Rows to return (after `offset`); at least 1. Any larger value is legal: k, offset, nprobes
  // and refine_factor are capped by what the data can return (rows, partitions) before anything
  // is sized by them, so k = INT64_MAX returns every row.
  int64_t k = 10;
  // Partitions probed in each IVF segment (capped by the segment's partition count). Higher is
  // slower and more exact; at the partition count the search is exact.
  int nprobes = kDefaultNprobes;
  // Quantized indexes (IVF_SQ, IVF_PQ, IVF_RQ): each segment keeps k × refine_factor candidates by
  // their approximate distance, then re-ranks them by the exact distance of their raw vectors
  // (read through Take). 1 (the default): no re-ranking; the reported distances of such
  // segments are then approximate. Ignored by IVF_FLAT, whose distances are exact.
  int refine_factor = 1;
  // IVF_HNSW_* indexes: the candidates each probed partition's graph search keeps (HNSW's ef;
  // at least k × refine_factor). 0 (the default): 64. Higher is slower and more exact.
  // Ignored by the other families.
  int ef = 0;
  // Absent: the metric of the first vector index on the column (manifest order) if there is
  // one, else l2. Indexes of another metric are not used.
  std::optional<index::vector::Metric> metric;
  // SQL-like predicate (docs/filters.md); empty means none.
  std::string filter;
  bool prefilter = false;
  // Half-open distance range [lower_distance, upper_distance); either side may be absent.
  std::optional<float> lower_distance;
  std::optional<float> upper_distance;
  // Rows of the order to skip before the k returned.
  int64_t offset = 0;
  // Columns to return, in this order; empty means all columns of the schema.
  std::vector<std::string> columns;
  // Append a uint64 column `_rowaddr` with each row's address.
  bool with_row_address = false;
  // False: no index is used, every fragment is scanned with exact distances (explain says so).
  bool use_index = true;
};

// InvalidArgument (naming the column and the dataset) for an unknown column, a column that is
// not a vector column, a query of another dimension or with non-finite values, k < 1,
// offset < 0, nprobes < 1, a NaN distance bound, or projected columns that are unknown or named
// `_distance`; filter errors as Filter::Parse reports them. ResourceExhausted ("out of memory
// while searching ...") when memory runs out, on any thread of the search.
arrow::Result<std::shared_ptr<arrow::Table>> Nearest(const dataset::Dataset& dataset,
                                                     const NearestOptions& options,
                                                     Explain* explain = nullptr);

}  // namespace tessera::query
