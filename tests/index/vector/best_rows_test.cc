// index::vector::BestRows and TopRows (ivf_search.h): the k best rows by (distance, row
// address), whatever k is — memory follows the rows kept, so k far beyond the rows offered
// (up to the type's limit) keeps them all without reserving k places.
#include "tessera/index/vector/ivf_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
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
        float distance = random() % 50 == 0 ? NAN : static_cast<float>(random() % 300);
        if (trial % 5 == 1) distance = 7.0f;  // all equal: selections by nth_element
        // Negative, and spread past the float limit (the spread overflows).
        if (trial % 5 == 2) distance = (distance - 150.0f) * 2e36f;
        if (trial % 5 == 3 && random() % 20 == 0) distance = random() % 2 ? INFINITY : -INFINITY;
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
      float bound = best.bound();
      for (const ScoredRow& row : rows) {
        best.Add(row);
        ASSERT_LE(best.bound(), bound) << "the bound only shrinks";
        bound = best.bound();
      }
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

// TopRows keeps the k best of the rows that pass its range and accept rules, whatever k (with
// and without preselection), however the rows arrive (one Offer, or pieces of a partition), and
// whether nearly every row is accepted or nearly none (preselection's second pass).
TEST(TopRows, KeepsTheBestQualifyingRowsLikeSorting) {
  std::mt19937_64 random(3);
  const std::vector<float> query = {0.0f, 0.0f};
  for (const int k : {1, 10, 32, 33, 100, 500}) {
    for (int trial = 0; trial < 12; ++trial) {
      const int64_t count = static_cast<int64_t>(random() % 12000);
      std::vector<uint64_t> addresses(static_cast<size_t>(count));
      std::vector<float> distances(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        addresses[static_cast<size_t>(i)] = static_cast<uint64_t>(i) * 7 + 1;
        // Ties, a few NaN, and a skew toward near rows as a scan of the nearest partition has;
        // in some trials negative (dot) distances, all-equal distances, or distances at the
        // float limits and infinite ones, whose spread a histogram cannot scale.
        const uint64_t draw = random() % 1000;
        float distance = static_cast<float>((random() % 200) * (random() % 200)) / 7.0f;
        if (trial % 6 == 1) distance -= 3000.0f;
        if (trial % 6 == 2) distance = 5.0f;
        if (trial % 6 == 4 && draw < 40) {
          const float extremes[] = {3e38f, -3e38f, INFINITY, -INFINITY};
          distance = extremes[draw % 4];
        }
        distances[static_cast<size_t>(i)] = draw == 999 ? NAN : distance;
      }
      const int accept_percent = trial % 3 == 0 ? 3 : (trial % 3 == 1 ? 100 : 60);
      const std::function<bool(uint64_t)> accept = [&](uint64_t address) {
        return (address * 2654435761u) % 100 < static_cast<uint64_t>(accept_percent);
      };
      VectorQuery vector_query;
      vector_query.vector = query.data();
      vector_query.dim = 2;
      vector_query.k = k;
      vector_query.accept = &accept;
      if (trial % 4 == 3) {
        vector_query.lower_distance = 100.0f;
        vector_query.upper_distance = 3000.0f;
      }
      TopRows top(vector_query);
      // Pieces of random sizes, as tiles of partitions arrive (some larger than Offer's chunk).
      for (int64_t first = 0; first < count;) {
        const int64_t piece = std::min<int64_t>(count - first, 1 + random() % 9000);
        top.Offer(addresses.data() + first, distances.data() + first, piece);
        first += piece;
      }
      std::vector<ScoredRow> expected;
      for (int64_t i = 0; i < count; ++i) {
        const ScoredRow row{addresses[static_cast<size_t>(i)], distances[static_cast<size_t>(i)]};
        if (std::isnan(row.distance) || !top.Qualifies(row)) continue;
        expected.push_back(row);
      }
      std::sort(expected.begin(), expected.end(), NearerFirst());
      expected.resize(std::min(expected.size(), static_cast<size_t>(k)));
      const std::vector<ScoredRow> kept = std::move(top).Finish();
      ASSERT_EQ(kept.size(), expected.size()) << "k " << k << " trial " << trial;
      for (size_t i = 0; i < kept.size(); ++i) {
        ASSERT_EQ(kept[i].row_address, expected[i].row_address) << "k " << k << " row " << i;
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
