// What every IVF segment reader shares when it answers a VectorQuery: checking the query and
// keeping the k best rows of the partitions it probes.
//
// Rows outside [lower, upper), rows rejected by query.accept and rows whose distance is NaN are
// skipped as they are offered, so they never take a place in the top k; ties break by row
// address.
#pragma once

#include <arrow/status.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector_segment.h"

namespace tessera::index::vector {

// InvalidArgument for a missing query vector, a query of another dimension than `dim`, with a
// non-finite element, k < 0, nprobes < 1 or a NaN range bound.
arrow::Status CheckVectorQuery(const VectorQuery& query, int dim, const std::string& index_name);

// The order of results everywhere: by distance, then by row address (distances are not NaN).
struct NearerFirst {
  bool operator()(const ScoredRow& a, const ScoredRow& b) const {
    return a.distance < b.distance || (a.distance == b.distance && a.row_address < b.row_address);
  }
};

// The `capacity` best rows added, by NearerFirst. Memory grows with the rows kept, not with the
// capacity: a huge capacity (k = 2^31 - 1 over a small segment) costs only what is added.
class BestRows {
 public:
  explicit BestRows(size_t capacity) : capacity_(capacity) {
    heap_.reserve(std::min(capacity, kInitialReserve));
  }

  bool full() const { return heap_.size() == capacity_; }
  // The worst row kept; only when full() and capacity > 0.
  const ScoredRow& worst() const { return heap_.front(); }
  // Whether Add(row) would keep `row`.
  bool Improves(const ScoredRow& row) const {
    return capacity_ > 0 && (!full() || NearerFirst()(row, worst()));
  }
  void Add(const ScoredRow& row);
  // The rows kept, best first.
  std::vector<ScoredRow> Take() &&;

 private:
  // Enough for the usual k without a reallocation.
  static constexpr size_t kInitialReserve = 1024;
  size_t capacity_;
  std::vector<ScoredRow> heap_;  // a max-heap under NearerFirst: the worst kept row on top
};

// The query.k best rows offered, by NearerFirst, with the query's range and accept rules.
class TopRows {
 public:
  explicit TopRows(const VectorQuery& query);

  // `count` rows with their distances.
  void Offer(const uint64_t* row_addresses, const float* distances, int64_t count);
  // The rows kept, best first.
  std::vector<ScoredRow> Finish() &&;

 private:
  const VectorQuery& query_;
  const std::function<bool(uint64_t)>* accept_;
  BestRows best_;
};

// The answers of `count` queries over an IVF segment, each equal to a search of its own
// partitions, with every partition visited once per block of queries for all the queries of
// the block that probe it (so its rows are read from memory once per block, not once per
// query). probes[i] lists query i's partitions (distinct). Blocks of queries run in parallel;
// each calls make_visit() once for a visit of its own (which may keep per-query state, such
// as prepared scorers: every query belongs to one block), then visits the partitions its
// queries probe in increasing order: visit(partition, queries, tops) offers the partition's
// rows to tops[q] for every q in `queries` (the block's queries that probe it, increasing).
// The answer is the search's exactly: the k best by NearerFirst do not depend on the order
// rows are offered in.
using PartitionVisit =
    std::function<arrow::Status(int partition, const std::vector<int64_t>& queries,
                                std::vector<std::unique_ptr<TopRows>>& tops)>;
arrow::Result<std::vector<std::vector<ScoredRow>>> SearchByPartition(
    const VectorQuery* queries, int64_t count, const std::vector<std::vector<int>>& probes,
    int num_partitions, const std::function<PartitionVisit()>& make_visit);

// The partitions each query probes, by one batch probe (IvfModel::ProbeBatch) at the largest
// nprobes, each list cut to its query's own (a prefix: the lists are in probe order).
arrow::Result<std::vector<std::vector<int>>> ProbeQueries(const IvfModel& model,
                                                          const VectorQuery* queries,
                                                          int64_t count);

// Exact distances (vector::Distance) of `query` to `count` contiguous rows.
void DistancesTo(Metric metric, const float* query, const float* rows, int64_t count, int dim,
                 float* out);

}  // namespace tessera::index::vector
