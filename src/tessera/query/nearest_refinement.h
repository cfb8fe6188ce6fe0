// Refinement: the candidates that approximate (quantized) segments return, by approximate
// distance, re-scored with the exact distance of their raw vectors (NearestOptions::
// refine_factor), so that the merge ranks them like rows an exact part scored.
//
// Invariants:
//  - Exact distances are index::vector::Distance on the raw vectors, as everywhere else.
//  - Batch-wide: the candidates of all the queries of a batch are visited together in row
//    address order (their union, grouped by fragment), so each raw vector is read once per
//    batch, not once per query, and reads are near each other on disk.
//  - A candidate row without a vector, or outside the refinable fragments, is Corrupt: the
//    index listed a row it cannot hold.
//  - The distance range applies to exact distances only, after refinement (approximate ones
//    may fall on the other side of a bound). Since the candidates are the nearest by
//    approximate distance, a lower bound can exclude all of them while farther rows qualify:
//    MoreCandidatesNeeded says when a segment must be asked for more (see there).
// Immutable once opened: Rescore runs on many threads at once (and itself uses the pool).
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"
#include "tessera/index/vector/raw_vectors.h"
#include "tessera/query/nearest_merge.h"

namespace tessera::query {

class Refinement {
 public:
  // The raw vectors of `fragments` (those approximate segments serve) in vector column
  // `column_index` of `dataset`, of dimension `dim`. Opening reads only batch metadata, and
  // nothing of external fragments: Rescore reads the rows it needs of each file together.
  static arrow::Result<Refinement> Open(const dataset::Dataset& dataset, int column_index, int dim,
                                        index::vector::Metric metric,
                                        const std::vector<format::Fragment>& fragments);

  // Replaces the distance of every row of candidates[i] by its exact distance to queries[i]
  // (dim floats); rows stay where they are.
  arrow::Status Rescore(const float* const* queries,
                        std::vector<std::vector<index::ScoredRow>>& candidates) const;

 private:
  Refinement(std::string column, int dim, index::vector::Metric metric,
             index::vector::RawVectors raw);

  std::string column_;  // "column 'v' of dataset D", for errors
  int dim_;
  index::vector::Metric metric_;
  index::vector::RawVectors raw_;
};

// Whether a segment's rescored candidates leave the search short: fewer than `capacity` of them
// are in `range`, the segment has more rows (not `exhausted`), and none of them reached the
// upper bound (rows farther by approximate distance are then likely in range too). Without a
// lower bound this never holds: the candidates out of range are then beyond the upper bound.
bool MoreCandidatesNeeded(const std::vector<index::ScoredRow>& rescored, const DistanceRange& range,
                          size_t capacity, bool exhausted);

}  // namespace tessera::query
