// The merge of nearest results: over random rows with many tied distances and NaNs, random
// offsets, capacities and distance ranges, MergeResults is exactly the brute-force answer
// (filter the range, sort by (distance, row address), take [offset, capacity)), whatever order
// the parts handed their rows in.
#include "tessera/query/nearest_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace tessera::query::nearest_merge_test {
namespace {

using index::ScoredRow;

bool SameRows(const std::vector<ScoredRow>& a, const std::vector<ScoredRow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].row_address != b[i].row_address) return false;
    // Bit-equal: the merge copies distances, it never recomputes them.
    if (std::memcmp(&a[i].distance, &b[i].distance, sizeof(float)) != 0) return false;
  }
  return true;
}

std::vector<ScoredRow> BruteForce(const std::vector<ScoredRow>& rows, const DistanceRange& range,
                                  size_t offset, size_t capacity) {
  std::vector<ScoredRow> in_range;
  for (const auto& row : rows) {
    if (std::isnan(row.distance)) continue;
    if (range.lower && row.distance < *range.lower) continue;
    if (range.upper && row.distance >= *range.upper) continue;
    in_range.push_back(row);
  }
  std::sort(in_range.begin(), in_range.end(), [](const ScoredRow& a, const ScoredRow& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.row_address < b.row_address;
  });
  std::vector<ScoredRow> window;
  for (size_t i = offset; i < in_range.size() && i < capacity; ++i) window.push_back(in_range[i]);
  return window;
}

TEST(DistanceRange, IsHalfOpenAndNeverHoldsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(DistanceRange{}.Contains(-1e30f));
  EXPECT_TRUE(DistanceRange{}.Contains(std::numeric_limits<float>::infinity()));
  EXPECT_FALSE(DistanceRange{}.Contains(nan));
  const DistanceRange range{1.0f, 2.0f};
  EXPECT_FALSE(range.Contains(std::nextafter(1.0f, 0.0f)));
  EXPECT_TRUE(range.Contains(1.0f));
  EXPECT_TRUE(range.Contains(std::nextafter(2.0f, 0.0f)));
  EXPECT_FALSE(range.Contains(2.0f));
  EXPECT_FALSE(range.Contains(nan));
  EXPECT_FALSE((DistanceRange{std::nullopt, 0.0f}.Contains(0.0f)));
  EXPECT_TRUE((DistanceRange{0.0f, std::nullopt}.Contains(0.0f)));
  // An empty range holds nothing.
  EXPECT_FALSE((DistanceRange{2.0f, 1.0f}.Contains(1.5f)));
}

TEST(MergeResults, TiesBreakByRowAddress) {
  // Parts hand their rows over in any order; equal distances come out by address.
  std::vector<ScoredRow> rows = {{9, 0.5f}, {3, 0.5f}, {7, 0.25f}, {1, 0.5f}, {2, 1.0f}};
  const auto merged = MergeResults(rows, {}, 0, 10);
  const std::vector<ScoredRow> expected = {{7, 0.25f}, {1, 0.5f}, {3, 0.5f}, {9, 0.5f}, {2, 1.0f}};
  EXPECT_TRUE(SameRows(merged, expected));
  // The window cuts through the tie at its address order.
  EXPECT_TRUE(SameRows(MergeResults(rows, {}, 2, 4), {{3, 0.5f}, {9, 0.5f}}));
}

TEST(MergeResults, OffsetAndCapacityBeyondTheRows) {
  const std::vector<ScoredRow> rows = {{1, 0.1f}, {2, 0.2f}, {3, 0.3f}};
  EXPECT_TRUE(MergeResults(rows, {}, 3, 10).empty());
  EXPECT_TRUE(MergeResults(rows, {}, 5, 10).empty());
  EXPECT_TRUE(MergeResults(rows, {}, 2, 1).empty());  // capacity below offset: nothing
  EXPECT_TRUE(MergeResults({}, {}, 0, 10).empty());
  const auto all = MergeResults(rows, {}, 0, std::numeric_limits<size_t>::max());
  EXPECT_TRUE(SameRows(all, rows));
}

TEST(MergeResults, DropsRowsOutsideTheRangeBeforeTheOffsetCounts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<ScoredRow> rows = {{1, 0.1f}, {2, nan}, {3, 0.3f}, {4, 0.4f}, {5, 0.5f}};
  // Rows below the range do not use up the offset.
  EXPECT_TRUE(SameRows(MergeResults(rows, {0.3f, 0.5f}, 1, 10), {{4, 0.4f}}));
  EXPECT_TRUE(
      SameRows(MergeResults(rows, {}, 0, 10), {{1, 0.1f}, {3, 0.3f}, {4, 0.4f}, {5, 0.5f}}));
}

TEST(MergeResults, EqualsBruteForceOverRandomInputs) {
  std::mt19937_64 random(20261201);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int round = 0; round < 400; ++round) {
    const size_t count = std::uniform_int_distribution<size_t>(0, 60)(random);
    // Unique addresses (one part per row), few distinct distances: many ties.
    std::vector<uint64_t> addresses(count);
    std::iota(addresses.begin(), addresses.end(), uint64_t{0});
    for (auto& address : addresses) address = address * 7919 + (address % 3) * (uint64_t{1} << 32);
    std::shuffle(addresses.begin(), addresses.end(), random);
    const int levels = std::uniform_int_distribution<int>(1, 8)(random);
    std::vector<ScoredRow> rows;
    for (uint64_t address : addresses) {
      const int level = std::uniform_int_distribution<int>(0, levels)(random);
      const float distance = level == levels ? nan : static_cast<float>(level) * 0.25f - 0.5f;
      rows.push_back({address, distance});
    }
    DistanceRange range;
    if (random() % 2 == 0) range.lower = static_cast<float>(random() % 10) * 0.125f - 0.5f;
    if (random() % 2 == 0) range.upper = static_cast<float>(random() % 10) * 0.125f - 0.25f;
    const size_t offset = std::uniform_int_distribution<size_t>(0, 20)(random);
    const size_t capacity = random() % 5 == 0
                                ? std::numeric_limits<size_t>::max()
                                : std::uniform_int_distribution<size_t>(0, 70)(random);
    const auto expected = BruteForce(rows, range, offset, capacity);
    EXPECT_TRUE(SameRows(MergeResults(rows, range, offset, capacity), expected))
        << "round " << round << ": " << count << " rows, offset " << offset << ", capacity "
        << capacity;
    // The order the parts handed the rows over does not matter.
    std::shuffle(rows.begin(), rows.end(), random);
    EXPECT_TRUE(SameRows(MergeResults(rows, range, offset, capacity), expected)) << round;
  }
}

}  // namespace
}  // namespace tessera::query::nearest_merge_test
