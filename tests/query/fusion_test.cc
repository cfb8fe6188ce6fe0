// Fusion of a distance-ranked and a score-ranked list (query/fusion.h), checked against values
// computed by hand.
#include "tessera/query/fusion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tessera::query::fusion_test {
namespace {

void ExpectFused(const std::vector<FusedRow>& actual,
                 const std::vector<std::pair<uint64_t, double>>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].row_address, expected[i].first) << "place " << i;
    EXPECT_NEAR(actual[i].score, expected[i].second, 1e-12) << "place " << i;
  }
}

TEST(Fusion, ReciprocalRankSumsOneOverConstantPlusRank) {
  // Vector order 7, 3, 9; text order 3, 5. With k = 60:
  //   3: 1/62 + 1/61, 7: 1/61, 5: 1/62, 9: 1/63.
  const auto fused = FuseReciprocalRank({{7, 0.1}, {3, 0.2}, {9, 0.3}}, {{3, 12.0}, {5, 4.0}}, 60);
  ExpectFused(fused, {{3, 1.0 / 62 + 1.0 / 61}, {7, 1.0 / 61}, {5, 1.0 / 62}, {9, 1.0 / 63}});
}

TEST(Fusion, ReciprocalRankIgnoresTheValuesAndTiesGoToTheLowerAddress) {
  // 4 is first by distance, 2 first by score: both 1/(1 + 1); then 8 and 6, both 1/(1 + 2).
  const auto fused = FuseReciprocalRank({{4, 1e9}, {8, 2e9}}, {{2, -5.0}, {6, -6.0}}, 1);
  ExpectFused(fused, {{2, 0.5}, {4, 0.5}, {6, 1.0 / 3}, {8, 1.0 / 3}});
}

TEST(Fusion, TheReciprocalRankConstantChangesTheOrder) {
  // Row 2 is third in both lists, rows 1 and 3 first in one each.
  const std::vector<RankedRow> by_distance = {{1, 0.0}, {4, 0.5}, {2, 1.0}};
  const std::vector<RankedRow> by_score = {{3, 9.0}, {5, 1.0}, {2, 0.5}};
  // k = 60: row 2 gets 2/63 = 0.0317, more than rows 1 and 3 (1/61) or 4 and 5 (1/62).
  ExpectFused(FuseReciprocalRank(by_distance, by_score, 60),
              {{2, 2.0 / 63}, {1, 1.0 / 61}, {3, 1.0 / 61}, {4, 1.0 / 62}, {5, 1.0 / 62}});
  // k = 0.1: rows 1 and 3 get 1/1.1 = 0.909, row 2 2/3.1 = 0.645, rows 4 and 5 1/2.1 = 0.476.
  ExpectFused(FuseReciprocalRank(by_distance, by_score, 0.1),
              {{1, 1 / 1.1}, {3, 1 / 1.1}, {2, 2 / 3.1}, {4, 1 / 2.1}, {5, 1 / 2.1}});
}

TEST(Fusion, WeightedNormalizesEachListAndInvertsDistances) {
  // Distances 1, 2, 5 → closeness 1, 0.75, 0. Scores 10, 6, 2 → 1, 0.5, 0.
  // text_weight 0.25: 10: 0.75 · 1 = 0.75 (vector only); 20: 0.75 · 0.75 + 0.25 · 1 = 0.8125;
  // 30: 0.75 · 0 + 0.25 · 0.5 = 0.125; 40: 0.25 · 0 = 0.
  const auto fused =
      FuseWeighted({{10, 1.0}, {20, 2.0}, {30, 5.0}}, {{20, 10.0}, {30, 6.0}, {40, 2.0}}, 0.25);
  ExpectFused(fused, {{20, 0.8125}, {10, 0.75}, {30, 0.125}, {40, 0.0}});
}

TEST(Fusion, WeightedExtremesFollowOneList) {
  const std::vector<RankedRow> by_distance = {{1, 0.5}, {2, 0.7}};
  const std::vector<RankedRow> by_score = {{2, 3.0}, {1, 1.0}};
  ExpectFused(FuseWeighted(by_distance, by_score, 0), {{1, 1.0}, {2, 0.0}});
  ExpectFused(FuseWeighted(by_distance, by_score, 1), {{2, 1.0}, {1, 0.0}});
}

TEST(Fusion, ASingleRowOrEqualValuesNormalizeToOne) {
  ExpectFused(FuseWeighted({{5, 3.0}}, {{6, 0.1}}, 0.5), {{5, 0.5}, {6, 0.5}});
  ExpectFused(FuseWeighted({{5, 3.0}, {7, 3.0}}, {}, 0.5), {{5, 0.5}, {7, 0.5}});
}

TEST(Fusion, EmptyListsGiveNothingOrTheOtherList) {
  EXPECT_TRUE(FuseReciprocalRank({}, {}, 60).empty());
  EXPECT_TRUE(FuseWeighted({}, {}, 0.5).empty());
  ExpectFused(FuseReciprocalRank({}, {{9, 1.0}, {8, 0.5}}, 60), {{9, 1.0 / 61}, {8, 1.0 / 62}});
  ExpectFused(FuseWeighted({}, {{9, 1.0}, {8, 0.5}}, 0.5), {{9, 0.5}, {8, 0.0}});
}

TEST(Fusion, ARowListedTwiceCountsAtItsFirstPlace) {
  ExpectFused(FuseReciprocalRank({{1, 0.0}, {1, 1.0}, {2, 2.0}}, {}, 10),
              {{1, 1.0 / 11}, {2, 1.0 / 13}});
  ExpectFused(FuseWeighted({{1, 0.0}, {2, 1.0}, {1, 2.0}}, {}, 0), {{1, 1.0}, {2, 0.5}});
}

TEST(Fusion, ValuesThatAreNotFiniteGoToTheirEnd) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Finite distances 1 and 3 normalize as usual; +inf is the farthest, NaN the worst.
  ExpectFused(FuseWeighted({{1, 1.0}, {2, 3.0}, {3, inf}, {4, nan}}, {}, 0),
              {{1, 1.0}, {2, 0.0}, {3, 0.0}, {4, 0.0}});
  ExpectFused(FuseWeighted({}, {{5, inf}, {6, 2.0}, {7, 4.0}}, 1), {{5, 1.0}, {7, 1.0}, {6, 0.0}});
}

}  // namespace
}  // namespace tessera::query::fusion_test
