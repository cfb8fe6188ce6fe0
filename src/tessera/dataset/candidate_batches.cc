#include "tessera/dataset/candidate_batches.h"

#include <algorithm>

#include "tessera/dataset/take.h"

namespace tessera::dataset {

bool BatchHasCandidates(const Roaring& candidates, uint64_t first, uint64_t rows) {
  if (rows == 0 || first > UINT32_MAX) return false;
  const uint64_t last = std::min<uint64_t>(first + rows - 1, UINT32_MAX);
  const uint64_t before = first == 0 ? 0 : candidates.rank(static_cast<uint32_t>(first - 1));
  return candidates.rank(static_cast<uint32_t>(last)) > before;
}

bool CandidatesFillTheirBatches(const Roaring& candidates, uint64_t rows_per_batch) {
  if (candidates.isEmpty() || rows_per_batch == 0) return false;
  uint64_t touched = 0;
  const uint64_t last_batch = candidates.maximum() / rows_per_batch;
  for (uint64_t batch = candidates.minimum() / rows_per_batch; batch <= last_batch; ++batch) {
    if (BatchHasCandidates(candidates, batch * rows_per_batch, rows_per_batch)) ++touched;
  }
  return candidates.cardinality() * kWholeBatchFraction >= touched * rows_per_batch;
}

}  // namespace tessera::dataset
