// index::vector::BestRows and TopRows (ivf_search.h): the k best rows by (distance, row
// address), whatever k is — memory follows the rows kept, so k far beyond the rows offered
// (up to the type's limit) keeps them all without reserving k places.
#include "tessera/index/vector/ivf_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
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
    EXPECT_EQ(best.bound(), INFINITY);  // never selected: 100 rows are far below the capacity
    const std::vector<ScoredRow> kept = std::move(best).Take();
    ASSERT_EQ(kept.size(), 100u);
    EXPECT_EQ(kept.front().row_address, 99u);
    EXPECT_EQ(kept.back().row_address, 0u);
  }
}

// The reservoir keeps what sorting every row and cutting at the capacity keeps, whatever the
// capacity, the order rows arrive in, ties of distance, and NaN distances (never kept).
TEST(BestRows, KeepsWhatSortingKeeps) {
  std::mt19937_64 random(7);
  for (const size_t capacity :
       {size_t{0}, size_t{1}, size_t{3}, size_t{10}, size_t{100}, size_t{1000}}) {
    for (int trial = 0; trial < 20; ++trial) {
      const size_t count = random() % 5000;
      std::vector<ScoredRow> rows;
      for (size_t i = 0; i < count; ++i) {
        // Few distinct distances: many ties, broken by address.
        const float distance = random() % 50 == 0 ? NAN : static_cast<float>(random() % 300);
        rows.push_back({random() % 100000, distance});
      }
      // Distinct addresses, as a segment offers them.
      std::sort(rows.begin(), rows.end(), [](const ScoredRow& a, const ScoredRow& b) {
        return a.row_address < b.row_address;
      });
      rows.erase(std::unique(rows.begin(), rows.end(),
                             [](const ScoredRow& a, const ScoredRow& b) {
                               return a.row_address == b.row_address;
                             }),
                 rows.end());
      std::shuffle(rows.begin(), rows.end(), random);
      BestRows best(capacity);
      for (const ScoredRow& row : rows) best.Add(row);
      std::vector<ScoredRow> expected;
      for (const ScoredRow& row : rows) {
        if (!std::isnan(row.distance)) expected.push_back(row);
      }
      std::sort(expected.begin(), expected.end(), NearerFirst());
      expected.resize(std::min(expected.size(), capacity));
      const std::vector<ScoredRow> kept = std::move(best).Take();
      ASSERT_EQ(kept.size(), expected.size()) << "capacity " << capacity;
      for (size_t i = 0; i < kept.size(); ++i) {
        ASSERT_EQ(kept[i].row_address, expected[i].row_address) << "capacity " << capacity;
        ASSERT_EQ(kept[i].distance, expected[i].distance);
      }
    }
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
