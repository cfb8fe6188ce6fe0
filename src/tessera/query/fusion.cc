#include "tessera/query/fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace tessera::query {
namespace {

// Accumulates each row's fused score; rows keep no particular order until Ranked().
class FusedScores {
 public:
  void Add(uint64_t row_address, double contribution) { scores_[row_address] += contribution; }

  std::vector<FusedRow> Ranked() const {
    std::vector<FusedRow> rows;
    rows.reserve(scores_.size());
    for (const auto& [address, score] : scores_) rows.push_back({address, score});
    std::sort(rows.begin(), rows.end(), [](const FusedRow& left, const FusedRow& right) {
      if (left.score != right.score) return left.score > right.score;
      return left.row_address < right.row_address;
    });
    return rows;
  }

 private:
  std::unordered_map<uint64_t, double> scores_;
};

// Calls `visit(row, rank)` for the first place of each row of `list`, ranks from 1.
template <typename Visit>
void ForEachFirstPlace(const std::vector<RankedRow>& list, Visit visit) {
  std::unordered_set<uint64_t> seen;
  int64_t rank = 0;
  for (const RankedRow& row : list) {
    ++rank;
    if (seen.insert(row.row_address).second) visit(row, rank);
  }
}

// Adds weight · normalized value of each row of `list`; `larger_is_better` for scores.
void AddNormalized(const std::vector<RankedRow>& list, bool larger_is_better, double weight,
                   FusedScores* fused) {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  for (const RankedRow& row : list) {
    if (!std::isfinite(row.value)) continue;
    low = std::min(low, row.value);
    high = std::max(high, row.value);
  }
  ForEachFirstPlace(list, [&](const RankedRow& row, int64_t) {
    double normalized = 0;
    if (std::isnan(row.value)) {
      normalized = 0;
    } else if (std::isinf(row.value)) {
      normalized = (row.value > 0) == larger_is_better ? 1 : 0;
    } else if (high == low) {
      normalized = 1;
    } else {
      normalized =
          larger_is_better ? (row.value - low) / (high - low) : (high - row.value) / (high - low);
    }
    fused->Add(row.row_address, weight * normalized);
  });
}

}  // namespace

std::vector<FusedRow> FuseReciprocalRank(const std::vector<RankedRow>& by_distance,
                                         const std::vector<RankedRow>& by_score, double rrf_k) {
  FusedScores fused;
  for (const auto* list : {&by_distance, &by_score}) {
    ForEachFirstPlace(*list, [&](const RankedRow& row, int64_t rank) {
      fused.Add(row.row_address, 1.0 / (rrf_k + static_cast<double>(rank)));
    });
  }
  return fused.Ranked();
}

std::vector<FusedRow> FuseWeighted(const std::vector<RankedRow>& by_distance,
                                   const std::vector<RankedRow>& by_score, double text_weight) {
  FusedScores fused;
  AddNormalized(by_distance, /*larger_is_better=*/false, 1 - text_weight, &fused);
  AddNormalized(by_score, /*larger_is_better=*/true, text_weight, &fused);
  return fused.Ranked();
}

}  // namespace tessera::query
