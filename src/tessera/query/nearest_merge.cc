#include "tessera/query/nearest_merge.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "tessera/index/vector/ivf_search.h"

namespace tessera::query {

bool DistanceRange::Contains(float distance) const {
  if (std::isnan(distance)) return false;
  if (lower && !(distance >= *lower)) return false;
  if (upper && !(distance < *upper)) return false;
  return true;
}

std::vector<index::ScoredRow> MergeResults(std::vector<index::ScoredRow> rows,
                                           const DistanceRange& range, size_t offset,
                                           size_t capacity) {
  rows.erase(
      std::remove_if(rows.begin(), rows.end(),
                     [&](const index::ScoredRow& row) { return !range.Contains(row.distance); }),
      rows.end());
  std::sort(rows.begin(), rows.end(), index::vector::NearerFirst());
  const size_t begin = std::min(rows.size(), offset);
  const size_t end = std::max(begin, std::min(rows.size(), capacity));
  return std::vector<index::ScoredRow>(
      std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(begin)),
      std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(end)));
}

}  // namespace tessera::query
