// Refinement: the candidates that approximate (quantized) segments return, by approximate
// distance, re-ranked by the exact distance of their raw vectors (NearestOptions::
// refine_factor).
//
// Invariants:
//  - Exact distances are index::vector::Distance on the raw vectors, as everywhere else; only
//    those in the distance range are kept, so a refined row is indistinguishable from one an
//    exact part scored.
//  - Batch-wide: the candidates of all the queries of a batch are visited together in row
//    address order (their union, grouped by fragment), so each raw vector is read once per
//    batch, not once per query, and reads are near each other on disk.
//  - A candidate row without a vector, or outside the refinable fragments, is Corrupt: the
//    index listed a row it cannot hold.
// Immutable once opened: Refine runs on many threads at once (and itself uses the pool).
#pragma once

#include <arrow/result.h>

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
  // `column_index` of `dataset`, of dimension `dim`. Opening reads only batch metadata.
  static arrow::Result<Refinement> Open(const dataset::Dataset& dataset, int column_index, int dim,
                                        index::vector::Metric metric, const DistanceRange& range,
                                        const std::vector<format::Fragment>& fragments);

  // For each query q (queries[q]: dim floats), candidates[q] scored exactly; those in range are
  // appended to rows[q], in row address order. Empties `candidates`.
  arrow::Status Refine(const float* const* queries,
                       std::vector<std::vector<index::ScoredRow>>& candidates,
                       std::vector<std::vector<index::ScoredRow>>& rows) const;

 private:
  Refinement(std::string column, int dim, index::vector::Metric metric, const DistanceRange& range,
             index::vector::RawVectors raw);

  std::string column_;  // "column 'v' of dataset D", for errors
  int dim_;
  index::vector::Metric metric_;
  DistanceRange range_;
  index::vector::RawVectors raw_;
};

}  // namespace tessera::query
