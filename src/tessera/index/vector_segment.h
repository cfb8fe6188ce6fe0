// VectorSegmentReader: a segment of a vector family (IVF_FLAT, IVF_PQ, ...) answering
// nearest-neighbour queries with scored row addresses.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"

namespace tessera::index {

struct VectorQuery {
  const float* vector = nullptr;  // dim floats
  int dim = 0;
  int k = 10;
  int nprobes = 1;
  // IVF_HNSW_* segments: the candidates each probed partition's graph search keeps (HNSW's ef);
  // 0 means vector::kDefaultHnswEf. A search keeps at least k. Other families ignore it.
  int ef = 0;
  // Rows for which this returns false are skipped inside the search (deleted rows, rows failing
  // a prefilter), so they do not take places in the top k. Null: accept every row.
  const std::function<bool(uint64_t)>* accept = nullptr;
  // Half-open distance range [lower, upper) applied inside the search.
  std::optional<float> lower_distance;
  std::optional<float> upper_distance;
};

class VectorSegmentReader : public SegmentReader {
 public:
  VectorSegmentReader* AsVector() override { return this; }
  virtual vector::Metric metric() const = 0;
  virtual int dim() const = 0;
  // Partitions of the segment's IVF model: an nprobes at least this probes everything.
  virtual int num_partitions() const = 0;
  // True where reported distances are computed from quantized codes (IVF_SQ, IVF_PQ, IVF_RQ): they
  // order rows approximately, and the planner re-ranks candidates by exact distances when asked
  // to (NearestOptions::refine_factor). False where they are vector::Distance itself.
  virtual bool approximate() const { return false; }
  // At most query.k rows, ordered by (distance, row address).
  virtual arrow::Result<std::vector<ScoredRow>> Search(const VectorQuery& query) const = 0;
  // For each of the `count` queries what Search(queries[i]) returns, bit for bit; where queries
  // fail, the error of one of them. `accept` callbacks may be called from several threads at
  // once, and which rows they are asked about may differ from the searches alone (only rows
  // that would enter a top k are). This default runs the searches in parallel over the queries;
  // a family may share work between queries instead (IVF segments read each probed partition
  // once per block of queries, index/vector/ivf_search.h).
  virtual arrow::Result<std::vector<std::vector<ScoredRow>>> SearchBatch(const VectorQuery* queries,
                                                                         int64_t count) const;
};

}  // namespace tessera::index
