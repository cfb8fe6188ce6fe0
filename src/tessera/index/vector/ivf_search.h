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
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector_segment.h"

namespace tessera::index::vector {

// InvalidArgument for a missing query vector, a query of another dimension than `dim`, with a
// non-finite element, k < 0, nprobes < 1, ef < 0 or a NaN range bound.
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
  // Whether `row` passes the query's range and accept rules (whatever the rows kept so far).
  bool Qualifies(const ScoredRow& row) const;
  // The rows kept, best first.
  std::vector<ScoredRow> Finish() &&;

 private:
  const VectorQuery& query_;
  const std::function<bool(uint64_t)>* accept_;
  BestRows best_;
};

// Writes the distances of rows [first, first + rows) of `partition` for queries[i] to out[i],
// for i < count (at most kTileQueries): the queries of a block that probe the partition, a few at
// a time, so that a scan may load the rows once for all of them.
inline constexpr int kTileQueries = 4;
using TileScore = std::function<void(const int64_t* queries, int count, int partition,
                                     int64_t first, int64_t rows, float* const* out)>;

// The answers of `count` queries over an IVF segment (its model and partitions), each equal to
// the query's search of its own partitions, bit for bit:
//  - the queries are probed together (one IvfModel::ProbeBatch at the largest nprobes, each
//    list cut to the query's own: the lists are in probe order), or one by one where OpenBLAS
//    cannot be loaded;
//  - blocks of queries run in parallel; a block visits the partitions its queries probe, in
//    increasing order, each in tiles of about 64 KiB of row data (`row_bytes` a row; a tile
//    starts at a multiple of `row_block` rows and holds a multiple of them, or ends the
//    partition: Quantizer::row_block), and
//    scores every tile for each of the block's queries that probe it while the tile is in
//    cache: a partition is read from memory once per block, not once per query;
//  - make_score(begin, end) makes the scorer of the block of queries [begin, end), which may
//    keep per-query state (a prepared quantizer table): every query belongs to one block;
//  - each query keeps its k best rows as Search does (TopRows); the k best by NearerFirst do not
//    depend on the order rows are offered in.
// The rows the accept callbacks see do depend on that order (only rows that would enter the
// top k are checked), so a check made there (a row address beyond its fragment) may fire in a
// batch and not in a search alone, or the other way round. Checks every query first
// (CheckVectorQuery); a damaged partition is Corrupt for the batch (with several, which one is
// named depends on how the queries split into blocks). No query (count <= 0): no answer.
arrow::Result<std::vector<std::vector<ScoredRow>>> SearchPartitionTiles(
    const VectorQuery* queries, int64_t count, const IvfModel& model,
    const IvfPartitions& partitions, int64_t row_bytes, int row_block,
    const std::string& index_name,
    const std::function<TileScore(int64_t begin, int64_t end)>& make_score);

// Exact distances (vector::Distance) of `query` to `count` contiguous rows.
void DistancesTo(Metric metric, const float* query, const float* rows, int64_t count, int dim,
                 float* out);

}  // namespace tessera::index::vector
