// What every IVF segment reader shares when it answers a VectorQuery: checking the query and
// keeping the k best rows of the partitions it probes.
//
// Rows outside [lower, upper), rows rejected by query.accept and rows whose distance is NaN are
// skipped as they are offered, so they never take a place in the top k; ties break by row
// address.
#pragma once

#include <arrow/status.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
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
//
// Up to kHeapMost rows (the usual k) are kept in a heap whose worst row bounds the rows added.
// More (a refined search keeps refine_factor × k candidates; a large k) are kept in a
// reservoir: rows that may belong to the best are appended, and when twice the capacity have
// gathered, a selection drops those that cannot be among the best and bounds later rows by the
// worst row kept. An added row then costs O(1) amortized instead of two sifts of log(capacity)
// unpredictable branches each, where a heap spent most of a refined search's collection time
// (1M × 128, 100 rows kept); for 10 rows the heap is quicker than selections. The selection is
// a histogram of the distances (SelectByHistogram: two passes, no comparison of rows), keeping
// the rows of the bins up to the one that holds the capacity-th, so a few rows more than the
// capacity; it measured a little quicker than nth_element, which remains the fallback. Either
// way the rows Take returns are those of sorting every row added (NearerFirst is a total order
// on distinct rows). Rows with a NaN distance are never kept.
class BestRows {
 public:
  explicit BestRows(size_t capacity)
      : capacity_(capacity), limit_(capacity + std::max(capacity, kMinSlack)) {
    if (limit_ < capacity_) limit_ = SIZE_MAX;  // capacity near the type's limit: never selects
    rows_.reserve(std::min(limit_, kInitialReserve));
  }

  // Whether Add(row) would keep `row` for now (a reservoir may drop it at a later selection),
  // NaN aside (never kept).
  bool Improves(const ScoredRow& row) const {
    return capacity_ > 0 &&
           (!bounded_ || row.distance < bound_.distance ||
            (row.distance == bound_.distance && row.row_address <= bound_.row_address));
  }
  // Every row kept from now on has a distance at most this (+infinity until the heap fills or
  // the first selection); it only shrinks: a cheap first test for rows about to be added.
  float bound() const { return bounded_ ? bound_.distance : INFINITY; }
  void Add(const ScoredRow& row) {
    if (row.distance != row.distance || !Improves(row)) return;  // NaN, or cannot enter
    if (capacity_ <= kHeapMost) {
      AddToHeap(row);
      return;
    }
    rows_.push_back(row);
    lowest_ = std::min(lowest_, row.distance);
    highest_ = std::max(highest_, row.distance);
    if (rows_.size() == limit_) Select();
  }
  // The rows kept, best first.
  std::vector<ScoredRow> Take() &&;

 private:
  static constexpr size_t kHeapMost = 32;
  // Enough for the usual k without a reallocation.
  static constexpr size_t kInitialReserve = 1024;
  // A reservoir gathers at least this many rows between selections.
  static constexpr size_t kMinSlack = 32;
  void AddToHeap(const ScoredRow& row);
  // Bounds later rows by `distance`, where at least capacity_ rows added are at most that far;
  // never loosens the bound.
  void BoundBy(float distance) {
    const ScoredRow bound{std::numeric_limits<uint64_t>::max(), distance};
    if (!bounded_ || NearerFirst()(bound, bound_)) bound_ = bound;
    bounded_ = true;
  }
  // Drops rows of a reservoir that cannot be among the best capacity_ and bounds later rows.
  void Select();
  // The histogram selection; false, changing nothing, where it would keep more than `most`
  // rows (distances all equal, crowded into one bin, or not finite).
  bool SelectByHistogram(size_t most);

  size_t capacity_;
  size_t limit_;  // rows a reservoir gathers before a selection
  // A max-heap under NearerFirst (capacity_ <= kHeapMost), or a reservoir.
  std::vector<ScoredRow> rows_;
  float lowest_ = INFINITY;    // of a reservoir's rows
  float highest_ = -INFINITY;  // of a reservoir's rows (kept rows only after a selection)
  std::vector<uint8_t> bins_;  // SelectByHistogram's scratch: the bin of each row
  // With bounded_: a row is kept only if it is NearerFirst than bound_, or equal to it.
  bool bounded_ = false;
  ScoredRow bound_{};
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
