#include "tessera/index/vector_segment.h"

#include "tessera/util/thread_pool.h"

namespace tessera::index {

arrow::Result<std::vector<std::vector<ScoredRow>>> VectorSegmentReader::SearchBatch(
    const VectorQuery* queries, int64_t count) const {
  ARROW_ASSIGN_OR_RAISE(auto each, util::ParallelResults<std::vector<ScoredRow>>(
                                       count, [&](int64_t i) { return Search(queries[i]); }));
  std::vector<std::vector<ScoredRow>> results;
  results.reserve(each.size());
  for (auto& result : each) {
    ARROW_ASSIGN_OR_RAISE(auto rows, std::move(result));
    results.push_back(std::move(rows));
  }
  return results;
}

}  // namespace tessera::index
