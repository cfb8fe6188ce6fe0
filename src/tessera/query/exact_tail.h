// ExactTail: the fragments of a nearest-neighbour search that no usable segment serves
// (unindexed, indexed under another metric, or with too few prefiltered rows to probe), scored
// with exact distances on their own vectors.
//
// Invariants:
//  - Distances are index::vector::Distance, the function the segments use, so equal vectors
//    give bit-equal distances whichever part scores them.
//  - Only rows EligibleRows accepts and rows with a vector (not null) are scored; only distances
//    in the range are kept; the `capacity` best are returned, by (distance, row address).
//  - A fragment whose allow-list holds fewer than 1 / kTakeFraction of its rows is read by row
//    address (Dataset::Take of the allowed rows); any other is read whole, its vector column
//    only. Either way the answer is the same.
// Immutable once made: Search runs on many threads at once.
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/eligible_rows.h"
#include "tessera/query/nearest_merge.h"

namespace tessera::query {

class ExactTail {
 public:
  static constexpr uint64_t kTakeFraction = 4;

  // `fragments` of `dataset` (its vector column `column_index`, of dimension `dim`), in
  // manifest order. `dataset` and the fragments must outlive this.
  ExactTail(const dataset::Dataset& dataset, int column_index, int dim,
            index::vector::Metric metric, const DistanceRange& range,
            std::vector<const EligibleFragment*> fragments);

  bool empty() const { return fragments_.empty(); }

  // The `capacity` best rows of the fragments for `query` (dim floats), best first: SearchBatch
  // of one query (its batches scored in parallel, or serially inside a parallel loop).
  arrow::Result<std::vector<index::ScoredRow>> Search(const float* query, size_t capacity) const;
  // The same for `count` queries at once, result i for queries[i]: each batch of the fragments
  // is read once for all of them (in parallel over batches), not once per query, so a batch of
  // queries costs one pass over the vectors, and an external file is decoded once.
  arrow::Result<std::vector<std::vector<index::ScoredRow>>> SearchBatch(const float* const* queries,
                                                                        size_t count,
                                                                        size_t capacity) const;

 private:
  class Scorer;

  // Each scores rows for every scorer (one per query).
  arrow::Status ScanBatch(const EligibleFragment& fragment, const dataset::FragmentReader& reader,
                          int index, std::vector<Scorer>& scorers) const;
  arrow::Status TakeAllowed(const EligibleFragment& fragment, std::vector<Scorer>& scorers) const;

  const dataset::Dataset& dataset_;
  int column_index_;
  int dim_;
  index::vector::Metric metric_;
  DistanceRange range_;
  std::vector<const EligibleFragment*> fragments_;
};

}  // namespace tessera::query
