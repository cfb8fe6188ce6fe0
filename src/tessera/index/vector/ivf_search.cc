#include "tessera/index/vector/ivf_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/index/vector/openblas.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

arrow::Status CheckVectorQuery(const VectorQuery& query, int dim, const std::string& index_name) {
  if (query.vector == nullptr) return InvalidArgument("a vector search needs a query vector");
  if (query.dim != dim) {
    return InvalidArgument("the query vector has dimension ", query.dim, "; index ", index_name,
                           " holds vectors of dimension ", dim);
  }
  if (query.k < 0) return InvalidArgument("k must not be negative, got ", query.k);
  if (query.nprobes < 1) return InvalidArgument("nprobes must be at least 1, got ", query.nprobes);
  if (query.ef < 0)
    return InvalidArgument("ef must be 0 (the default) or positive, got ", query.ef);
  for (int d = 0; d < query.dim; ++d) {
    if (!std::isfinite(query.vector[d])) {
      return InvalidArgument("the query vector holds ", query.vector[d], " at position ", d,
                             "; a query must be finite");
    }
  }
  if ((query.lower_distance && std::isnan(*query.lower_distance)) ||
      (query.upper_distance && std::isnan(*query.upper_distance))) {
    return InvalidArgument("a distance range bound must be a number, not NaN");
  }
  return arrow::Status::OK();
}

namespace {

// The factor that maps distances in [lowest, highest] to bins [0, bins] (the last bin taking
// `highest`), or 0 where no histogram can split them: equal or non-finite bounds, or a spread
// too large (dot distances near the float limits: their difference overflows) or too small to
// scale (a product would not be finite, and a float-to-int cast of it undefined).
float HistogramScale(float lowest, float highest, int bins) {
  const float spread = highest - lowest;
  if (!(spread > 0) || !std::isfinite(spread)) return 0;
  const float scale = static_cast<float>(bins) / spread;
  return std::isfinite(scale) ? scale : 0;
}

}  // namespace

void BestRows::AddToHeap(const ScoredRow& row) {
  if (rows_.size() == capacity_) {
    std::pop_heap(rows_.begin(), rows_.end(), NearerFirst());
    rows_.back() = row;
  } else {
    rows_.push_back(row);
  }
  std::push_heap(rows_.begin(), rows_.end(), NearerFirst());
  if (rows_.size() == capacity_) {
    bound_ = rows_.front();
    bounded_ = true;
  }
}

void BestRows::Select() {
  if (rows_.size() <= capacity_) return;
  // At least a quarter of the slack freed, so that selections stay rare.
  if (SelectByHistogram(capacity_ + (limit_ - capacity_) * 3 / 4)) return;
  const auto worst_kept = rows_.begin() + static_cast<std::ptrdiff_t>(capacity_ - 1);
  std::nth_element(rows_.begin(), worst_kept, rows_.end(), NearerFirst());
  // Never looser than a bound set before (BoundBy): the bound only shrinks.
  if (!bounded_ || NearerFirst()(*worst_kept, bound_)) bound_ = *worst_kept;
  bounded_ = true;
  rows_.resize(capacity_);
  highest_ = worst_kept->distance;
}

bool BestRows::SelectByHistogram(size_t most) {
  constexpr int kBins = 64;
  const float scale = HistogramScale(lowest_, highest_, kBins);
  if (scale == 0) return false;
  // Non-decreasing in the distance (each step rounds monotonically), so every row of a later
  // bin is farther than every row of an earlier one.
  size_t counts[kBins] = {};
  bins_.resize(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    const int bin = std::min(static_cast<int>((rows_[i].distance - lowest_) * scale), kBins - 1);
    bins_[i] = static_cast<uint8_t>(bin);
    ++counts[bin];
  }
  int last_bin = 0;  // the bin holding the capacity_-th row
  size_t kept = counts[0];
  while (kept < capacity_) kept += counts[++last_bin];
  if (kept > most) return false;
  float farthest = -INFINITY;
  size_t out = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (bins_[i] > last_bin) continue;
    farthest = std::max(farthest, rows_[i].distance);
    rows_[out++] = rows_[i];
  }
  rows_.resize(out);
  highest_ = farthest;
  // At least capacity_ rows are at most `farthest` away: a row farther cannot enter.
  BoundBy(farthest);
  return true;
}

std::vector<ScoredRow> BestRows::Take() && {
  if (rows_.size() > capacity_) {
    SelectByHistogram(rows_.size());
    const auto end = rows_.begin() + static_cast<std::ptrdiff_t>(capacity_);
    std::nth_element(rows_.begin(), end, rows_.end(), NearerFirst());
    rows_.resize(capacity_);
  }
  std::sort(rows_.begin(), rows_.end(), NearerFirst());
  return std::move(rows_);
}

TopRows::TopRows(const VectorQuery& query)
    : query_(query),
      // An empty std::function accepts every row, like a null pointer.
      accept_(query.accept != nullptr && *query.accept ? query.accept : nullptr),
      best_(static_cast<size_t>(std::max(query.k, 0))) {}

void TopRows::Offer(const uint64_t* row_addresses, const float* distances, int64_t count) {
  if (query_.k <= 0) return;
  // Rows farther than the bound (BestRows::bound) and NaN fail one comparison: the common case.
  // The comparison runs in SIMD over chunks against the bound at the chunk's start (it only
  // shrinks), and the rows it lets through are checked one by one against the current bound:
  // the rows kept are those of a row-by-row loop.
  float bound = best_.bound();
  constexpr int64_t kChunk = 256;
  int32_t nearer[kChunk];
  const simd::Kernels& kernels = simd::ActiveKernels();
  for (int64_t first = 0; first < count; first += kChunk) {
    const int64_t found =
        kernels.indexes_at_most(distances + first, std::min(kChunk, count - first), bound, nearer);
    for (int64_t c = 0; c < found; ++c) {
      const int64_t i = first + nearer[c];
      if (!(distances[i] <= bound)) continue;
      const ScoredRow candidate{row_addresses[i], distances[i]};
      if (!best_.Improves(candidate) || !Qualifies(candidate)) continue;
      best_.Add(candidate);
      bound = best_.bound();
    }
  }
}

bool TopRows::Qualifies(const ScoredRow& row) const {
  if (query_.lower_distance && !(row.distance >= *query_.lower_distance)) return false;
  if (query_.upper_distance && !(row.distance < *query_.upper_distance)) return false;
  // accept() last: it may cost more (a bitmap lookup, a filter) than the checks above.
  return accept_ == nullptr || (*accept_)(row.row_address);
}

std::vector<ScoredRow> TopRows::Finish() && { return std::move(best_).Take(); }

namespace {

// The partitions each query probes: one batch probe at the largest nprobes, each list cut to
// its query's own; per query where OpenBLAS (which the batch probe multiplies with) is missing.
arrow::Result<std::vector<std::vector<int>>> ProbeQueries(const IvfModel& model,
                                                          const VectorQuery* queries,
                                                          int64_t count) {
  const int dim = model.dim();
  if (!LoadOpenBlas().ok()) {
    std::vector<std::vector<int>> probes;
    for (int64_t q = 0; q < count; ++q) {
      probes.push_back(model.Probe(queries[q].vector, queries[q].nprobes));
    }
    return probes;
  }
  int widest = 0;
  std::vector<float> vectors(static_cast<size_t>(count) * dim);
  for (int64_t q = 0; q < count; ++q) {
    widest = std::max(widest, queries[q].nprobes);
    std::copy(queries[q].vector, queries[q].vector + dim, vectors.begin() + q * dim);
  }
  ARROW_ASSIGN_OR_RAISE(auto probes, model.ProbeBatch(vectors.data(), count, widest));
  for (int64_t q = 0; q < count; ++q) {
    auto& list = probes[static_cast<size_t>(q)];
    list.resize(std::min(list.size(), static_cast<size_t>(std::max(queries[q].nprobes, 0))));
  }
  return probes;
}

}  // namespace

arrow::Result<std::vector<std::vector<ScoredRow>>> SearchPartitionTiles(
    const VectorQuery* queries, int64_t count, const IvfModel& model,
    const IvfPartitions& partitions, int64_t row_bytes, int row_block,
    const std::string& index_name,
    const std::function<TileScore(int64_t begin, int64_t end)>& make_score) {
  if (count <= 0) return std::vector<std::vector<ScoredRow>>();
  for (int64_t q = 0; q < count; ++q) {
    ARROW_RETURN_NOT_OK(CheckVectorQuery(queries[q], model.dim(), index_name));
  }
  ARROW_ASSIGN_OR_RAISE(auto probes, ProbeQueries(model, queries, count));
  {
    // Every partition some query probes, fetched at once on object storage.
    std::vector<bool> probed(static_cast<size_t>(model.num_partitions()), false);
    std::vector<int> wanted;
    for (const auto& list : probes) {
      for (int partition : list) {
        if (partition >= 0 && partition < model.num_partitions() &&
            !probed[static_cast<size_t>(partition)]) {
          probed[static_cast<size_t>(partition)] = true;
          wanted.push_back(partition);
        }
      }
    }
    ARROW_RETURN_NOT_OK(partitions.Prefetch(wanted));
  }
  const int64_t block = std::max(row_block, 1);
  const int64_t tile_rows =
      std::max<int64_t>(1, (int64_t{64} << 10) / std::max<int64_t>(row_bytes, 1) / block) * block;
  const int num_partitions = model.num_partitions();
  std::vector<std::vector<ScoredRow>> results(static_cast<size_t>(count));
  // Blocks of at least a few queries; ParallelFor makes about four per thread.
  constexpr int64_t kMinBlock = 4;
  ARROW_RETURN_NOT_OK(util::ParallelFor(
      count,
      [&](int64_t begin, int64_t end) -> arrow::Status {
        // The queries of the block probing each partition, and each query's best rows.
        std::vector<std::vector<int64_t>> members(static_cast<size_t>(num_partitions));
        std::vector<TopRows> tops;
        tops.reserve(static_cast<size_t>(end - begin));
        for (int64_t q = begin; q < end; ++q) {
          tops.emplace_back(queries[q]);
          if (queries[q].k <= 0) continue;
          for (int partition : probes[static_cast<size_t>(q)]) {
            members[static_cast<size_t>(partition)].push_back(q);
          }
        }
        const TileScore score = make_score(begin, end);
        std::vector<float> distances;
        float* outs[kTileQueries];
        for (int partition = 0; partition < num_partitions; ++partition) {
          const auto& probing = members[static_cast<size_t>(partition)];
          if (probing.empty()) continue;
          ARROW_RETURN_NOT_OK(partitions.Verify(partition));
          const int64_t size = partitions.size(partition);
          const uint64_t* addresses = partitions.row_addresses(partition);
          const int64_t widest = std::min(size, tile_rows);
          distances.resize(static_cast<size_t>(widest) * kTileQueries);
          for (int i = 0; i < kTileQueries; ++i) outs[i] = distances.data() + i * widest;
          for (int64_t first = 0; first < size; first += tile_rows) {
            const int64_t rows = std::min(tile_rows, size - first);
            for (size_t at = 0; at < probing.size(); at += kTileQueries) {
              const int group =
                  static_cast<int>(std::min<size_t>(kTileQueries, probing.size() - at));
              score(probing.data() + at, group, partition, first, rows, outs);
              for (int i = 0; i < group; ++i) {
                tops[static_cast<size_t>(probing[at + i] - begin)].Offer(addresses + first, outs[i],
                                                                         rows);
              }
            }
          }
        }
        for (int64_t q = begin; q < end; ++q) {
          results[static_cast<size_t>(q)] =
              std::move(tops[static_cast<size_t>(q - begin)]).Finish();
        }
        return arrow::Status::OK();
      },
      kMinBlock));
  return results;
}

void DistancesTo(Metric metric, const float* query, const float* rows, int64_t count, int dim,
                 float* out) {
  const simd::Kernels& kernels = simd::ActiveKernels();
  switch (metric) {
    case Metric::kL2:
      kernels.l2_squared_batch(query, rows, count, dim, out);
      return;
    case Metric::kDot:
      kernels.inner_product_batch(query, rows, count, dim, out);
      for (int64_t i = 0; i < count; ++i) out[i] = -out[i];
      return;
    case Metric::kCosine: {
      // Distance's cosine, term for term (so bit-equal to it): the query's norm once, each
      // row's dot and own squared norm together, in one pass over the row.
      const float query_norm = std::sqrt(kernels.inner_product(query, query, dim));
      constexpr int64_t kChunk = 256;
      float row_norms[kChunk];
      for (int64_t first = 0; first < count; first += kChunk) {
        const int64_t rows_here = std::min(kChunk, count - first);
        float* dots = out + first;
        kernels.inner_product_and_norm_batch(query, rows + first * dim, rows_here, dim, dots,
                                             row_norms);
        for (int64_t i = 0; i < rows_here; ++i) {
          const float norms = query_norm * std::sqrt(row_norms[i]);
          dots[i] = norms == 0.0f ? 1.0f : 1.0f - dots[i] / norms;
        }
      }
      return;
    }
  }
}

}  // namespace tessera::index::vector
