// Fusion: one ranking from the two ranked lists of a hybrid search — the nearest neighbours of
// a vector query (distances, smaller is closer) and the hits of a text query (BM25 scores,
// larger is better) — as pure functions of the lists (query/text_search.h, HybridSearch).
//
//  - Reciprocal rank fusion: a row scores Σ 1 / (rrf_k + rank) over the lists holding it, rank
//    counted from 1 in each list's own order. Only ranks count, so the lists' scales never mix.
//  - Weighted fusion: text_weight · t + (1 − text_weight) · v, where t and v are the row's
//    min-max normalized text score and vector closeness in [0, 1] (the best row of a list gets 1,
//    its worst 0; distances are inverted so the closest gets 1; a list whose values are all equal
//    — a single row, say — gives them all 1), and 0 for a list that does not hold the row.
//
// Invariants: the result holds each row of either list once, ordered by (fused score
// descending, row address ascending), so equal inputs give equal outputs; scores are computed in
// double. A row listed twice in one list counts at its first (best) place. A value that is not
// finite normalizes as the list's best (−inf distance, +inf score) or worst (+inf distance,
// −inf score, NaN) end, without disturbing the others' normalization.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::query {

// One row of a ranked list: its address and its distance or score. Lists are given in their
// rank order (best first).
struct RankedRow {
  uint64_t row_address = 0;
  double value = 0;
};

struct FusedRow {
  uint64_t row_address = 0;
  double score = 0;

  bool operator==(const FusedRow&) const = default;
};

// `rrf_k` > 0 (the caller validates).
std::vector<FusedRow> FuseReciprocalRank(const std::vector<RankedRow>& by_distance,
                                         const std::vector<RankedRow>& by_score, double rrf_k);

// `text_weight` in [0, 1] (the caller validates).
std::vector<FusedRow> FuseWeighted(const std::vector<RankedRow>& by_distance,
                                   const std::vector<RankedRow>& by_score, double text_weight);

}  // namespace tessera::query
