// index::vector::BestRows and TopRows (ivf_search.h): the k best rows by (distance, row
// address), whatever k is — memory follows the rows kept, so k far beyond the rows offered
// (up to the type's limit) keeps them all without reserving k places.
#include "tessera/index/vector/ivf_search.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::index::vector::best_rows_test {
namespace {

TEST(BestRows, KeepsTheBestRowsInOrder) {
  BestRows best(2);
  for (const ScoredRow row :
       {ScoredRow{5, 0.5f}, ScoredRow{1, 0.1f}, ScoredRow{9, 0.1f}, ScoredRow{3, 0.3f}}) {
    best.Add(row);
  }
  const std::vector<ScoredRow> kept = std::move(best).Take();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].row_address, 1u);
  EXPECT_EQ(kept[1].row_address, 9u);
}

TEST(BestRows, AHugeCapacityCostsOnlyTheRowsKept) {
  for (const size_t capacity : {size_t{INT_MAX}, std::numeric_limits<size_t>::max()}) {
    BestRows best(capacity);
    for (uint64_t address = 0; address < 100; ++address) {
      best.Add({address, static_cast<float>(100 - address)});
    }
    EXPECT_FALSE(best.full());
    const std::vector<ScoredRow> kept = std::move(best).Take();
    ASSERT_EQ(kept.size(), 100u);
    EXPECT_EQ(kept.front().row_address, 99u);
    EXPECT_EQ(kept.back().row_address, 0u);
  }
}

TEST(TopRows, KOfTheLargestIntKeepsEveryRowOffered) {
  const std::vector<float> query = {0.0f, 0.0f};
  VectorQuery vector_query;
  vector_query.vector = query.data();
  vector_query.dim = 2;
  vector_query.k = INT_MAX;
  TopRows top(vector_query);
  const std::vector<uint64_t> addresses = {4, 2, 7};
  const std::vector<float> distances = {0.4f, 0.2f, 0.7f};
  top.Offer(addresses.data(), distances.data(), 3);
  const std::vector<ScoredRow> kept = std::move(top).Finish();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].row_address, 2u);
  EXPECT_EQ(kept[2].row_address, 7u);
}

}  // namespace
}  // namespace tessera::index::vector::best_rows_test
