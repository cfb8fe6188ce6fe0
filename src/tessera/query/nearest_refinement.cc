#include "tessera/query/nearest_refinement.h"

#include <algorithm>
#include <utility>

#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

arrow::Result<Refinement> Refinement::Open(const dataset::Dataset& dataset, int column_index,
                                           int dim, index::vector::Metric metric,
                                           const DistanceRange& range,
                                           const std::vector<format::Fragment>& fragments) {
  ARROW_ASSIGN_OR_RAISE(
      auto raw, index::vector::RawVectors::Open(*dataset.storage(), dataset.schema(), column_index,
                                                fragments));
  std::string column =
      "column '" + dataset.schema()->field(column_index)->name() + "' of dataset " + dataset.uri();
  return Refinement(std::move(column), dim, metric, range, std::move(raw));
}

Refinement::Refinement(std::string column, int dim, index::vector::Metric metric,
                       const DistanceRange& range, index::vector::RawVectors raw)
    : column_(std::move(column)), dim_(dim), metric_(metric), range_(range), raw_(std::move(raw)) {}

arrow::Status Refinement::Refine(const float* const* queries,
                                 std::vector<std::vector<index::ScoredRow>>& candidates,
                                 std::vector<std::vector<index::ScoredRow>>& rows) const {
  struct Pair {
    uint64_t address;
    uint32_t query;
    float distance;
  };
  std::vector<Pair> pairs;
  for (size_t q = 0; q < candidates.size(); ++q) {
    for (const auto& candidate : candidates[q]) {
      pairs.push_back({candidate.row_address, static_cast<uint32_t>(q), 0.0f});
    }
    candidates[q].clear();
  }
  if (pairs.empty()) return arrow::Status::OK();
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return a.address < b.address || (a.address == b.address && a.query < b.query);
  });
  const index::vector::RawVectors& raw = raw_;
  ARROW_RETURN_NOT_OK(util::ParallelFor(
      static_cast<int64_t>(pairs.size()),
      [&](int64_t begin, int64_t end) -> arrow::Status {
        std::vector<float> scratch(static_cast<size_t>(dim_));
        // Rows are far apart in memory: the row a few pairs ahead is requested early.
        constexpr int64_t kAhead = 4;
        for (int64_t i = begin; i < std::min(end, begin + kAhead); ++i) {
          raw.Prefetch(pairs[static_cast<size_t>(i)].address);
        }
        for (int64_t i = begin; i < end; ++i) {
          if (i + kAhead < end) raw.Prefetch(pairs[static_cast<size_t>(i + kAhead)].address);
          Pair& pair = pairs[static_cast<size_t>(i)];
          ARROW_ASSIGN_OR_RAISE(const float* vector, raw.Find(pair.address, scratch.data()));
          if (vector == nullptr) {
            return Corrupt("a vector index of ", column_, " lists row ",
                           dataset::FragmentOf(pair.address), ":", dataset::OffsetOf(pair.address),
                           ", which has no vector; rebuild the index");
          }
          pair.distance = index::vector::Distance(metric_, queries[pair.query], vector, dim_);
        }
        return arrow::Status::OK();
      },
      /*min_chunk=*/512));
  for (const auto& pair : pairs) {
    if (range_.Contains(pair.distance)) rows[pair.query].push_back({pair.address, pair.distance});
  }
  return arrow::Status::OK();
}

}  // namespace tessera::query
