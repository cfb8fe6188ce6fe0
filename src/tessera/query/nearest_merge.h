// The merge of a nearest-neighbour search's results: the rows every part found (segments, the
// exact tail, refinement) become one answer, the rows [offset, offset + k) of the order by
// (distance, row address), ascending (index::vector::NearerFirst).
//
// Invariants the merge relies on and keeps:
//  - A row address appears in at most one part (a fragment is served by one segment or by the
//    exact tail), so the order is total and the answer does not depend on the parts' order.
//  - Each part hands over the offset + k best rows it found in the distance range (refined
//    segments: their rescored candidates, in range or not), so the offset + k best of the union
//    are those of the whole search: the merge loses nothing a part found.
//  - Rows outside the half-open distance range [lower, upper), and rows with a NaN distance,
//    are never part of an answer: the exact parts skip them as they score, the merge drops the
//    rest (refined candidates are ranged only here, on their exact distances).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "tessera/index/index_family.h"

namespace tessera::query {

// The half-open range [lower, upper) of distances a search returns; either side may be open.
struct DistanceRange {
  std::optional<float> lower;
  std::optional<float> upper;

  // False for NaN, whatever the bounds.
  bool Contains(float distance) const;
};

// The rows [offset, capacity) of `rows` in range, by (distance, row address); `capacity` is
// offset + k (capped as the caller likes: nothing is sized by it).
std::vector<index::ScoredRow> MergeResults(std::vector<index::ScoredRow> rows,
                                           const DistanceRange& range, size_t offset,
                                           size_t capacity);

}  // namespace tessera::query
