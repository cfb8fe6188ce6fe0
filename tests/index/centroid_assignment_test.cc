// Batch centroid assignment (index/vector/centroid_assignment.h) and the IvfModel batch forms:
// bit-equal to NearestCentroid / IvfModel::Probe on random, offset, tied and non-finite data,
// whatever the batch size, position and thread count.
#include "tessera/index/vector/centroid_assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/random.h"
#include "tessera/status.h"

namespace tessera::index::vector::centroid_assignment_test {
namespace {

constexpr Metric kMetrics[] = {Metric::kL2, Metric::kCosine, Metric::kDot};

// Uniform values in [offset - scale, offset + scale); unit rows for cosine.
std::vector<float> RandomRows(int64_t rows, int dim, uint64_t seed, Metric metric,
                              double offset = 0, double scale = 1) {
  Random random(seed);
  std::vector<float> values(static_cast<size_t>(rows) * dim);
  for (float& value : values)
    value = static_cast<float>(offset + (random.Uniform() * 2 - 1) * scale);
  if (metric == Metric::kCosine) {
    for (int64_t i = 0; i < rows; ++i) Normalize(values.data() + i * dim, dim);
  }
  return values;
}

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// AssignNearest over all points equals NearestCentroid point by point, ids and score bits.
void ExpectAssignmentsExact(Metric metric, const std::vector<float>& points,
                            const std::vector<float>& centroids, int dim, int max_threads) {
  const int64_t n = static_cast<int64_t>(points.size()) / dim;
  const int k = static_cast<int>(centroids.size()) / dim;
  std::vector<int32_t> ids(static_cast<size_t>(n), -1);
  std::vector<float> scores(static_cast<size_t>(n));
  ASSERT_OK(AssignNearest(metric, points.data(), n, centroids.data(), k, dim, ids.data(),
                          scores.data(), max_threads));
  for (int64_t i = 0; i < n; ++i) {
    float score = 0;
    const int expected =
        NearestCentroid(metric, points.data() + i * dim, centroids.data(), k, dim, &score);
    ASSERT_EQ(ids[i], expected) << MetricName(metric) << " point " << i << " k " << k;
    ASSERT_EQ(Bits(scores[i]), Bits(score)) << MetricName(metric) << " point " << i;
  }
  // Without scores, a lone candidate is not rescored: the ids stay the same.
  std::vector<int32_t> ids_only(static_cast<size_t>(n), -1);
  ASSERT_OK(AssignNearest(metric, points.data(), n, centroids.data(), k, dim, ids_only.data(),
                          nullptr, max_threads));
  ASSERT_EQ(ids_only, ids) << MetricName(metric);
}

TEST(CentroidAssignment, AssignNearestEqualsNearestCentroidOnRandomData) {
  for (Metric metric : kMetrics) {
    for (int dim : {1, 3, 17, 64}) {
      for (int k : {1, 2, 7, 100}) {
        const auto points = RandomRows(3000, dim, 11 + dim + k, metric);
        const auto centroids = RandomRows(k, dim, 99 + dim * k, metric);
        ExpectAssignmentsExact(metric, points, centroids, dim, 0);
      }
    }
  }
}

TEST(CentroidAssignment, AssignNearestIsExactAtTrainingScale) {
  // IVF's shape: many points, dim 128, a few hundred centroids (several product blocks).
  for (Metric metric : kMetrics) {
    const auto points = RandomRows(10000, 128, 5, metric);
    const auto centroids = RandomRows(300, 128, 6, metric);
    ExpectAssignmentsExact(metric, points, centroids, 128, 0);
  }
}

TEST(CentroidAssignment, AssignNearestIsExactAtCodebookScale) {
  // PQ's shape: sub-vectors of 4, 8 and 16 floats against 256 entries (the transposed kernel),
  // on points drawn near the entries, so that second-nearest entries are close.
  for (int dim : {4, 8, 16}) {
    const auto centroids = RandomRows(256, dim, 61 + dim, Metric::kL2);
    auto points = RandomRows(5000, dim, 62 + dim, Metric::kL2, 0.0, 0.01);
    for (size_t i = 0; i < points.size(); ++i) {
      points[i] += centroids[(i / dim) % 256 * dim + i % dim];
    }
    ExpectAssignmentsExact(Metric::kL2, points, centroids, dim, 0);
  }
}

TEST(CentroidAssignment, AssignNearestIsExactOnRoundingTies) {
  // Centroids that are one offset vector permuted around a base point: from points at or very
  // near the base, every centroid is at the same exact distance, so only rounding (which
  // differs between the kernels) orders them. The answer must still be the per-pair kernel's.
  for (int dim : {8, 16, 64}) {
    const auto offsets = RandomRows(1, dim, 71 + dim, Metric::kL2);
    const auto base = RandomRows(1, dim, 72 + dim, Metric::kL2);
    Random random(73 + dim);
    std::vector<int> order(static_cast<size_t>(dim));
    std::iota(order.begin(), order.end(), 0);
    std::vector<float> centroids;
    for (int c = 0; c < 256; ++c) {
      for (int d = dim - 1; d > 0; --d) {
        std::swap(order[d], order[random.Below(static_cast<uint64_t>(d) + 1)]);
      }
      for (int d = 0; d < dim; ++d) centroids.push_back(base[d] + offsets[order[d]]);
    }
    auto points = RandomRows(2000, dim, 74 + dim, Metric::kL2, 0.0, 1e-6);
    for (size_t i = 0; i < points.size(); ++i) points[i] += base[i % dim];
    ExpectAssignmentsExact(Metric::kL2, points, centroids, dim, 0);
  }
}

TEST(CentroidAssignment, AssignNearestIsExactFarFromTheOrigin) {
  // Coordinates around 1000 with a spread of 1: the shift to the centroids' mean keeps l2
  // candidates few; cosine/dot need the wide margin of their scale. Both must stay exact.
  for (Metric metric : {Metric::kL2, Metric::kDot}) {
    const auto points = RandomRows(2000, 32, 7, metric, 1000.0, 1.0);
    const auto centroids = RandomRows(50, 32, 8, metric, 1000.0, 1.0);
    ExpectAssignmentsExact(metric, points, centroids, 32, 0);
  }
}

TEST(CentroidAssignment, TiesGoToTheLowestCentroid) {
  for (Metric metric : kMetrics) {
    // Centroids repeated: every point has at least two nearest, equal bit for bit.
    auto centroids = RandomRows(20, 16, 3, metric);
    const std::vector<float> once = centroids;
    centroids.insert(centroids.end(), once.begin(), once.end());
    // Points equal to centroids, too: score 0 (l2) at two indexes.
    auto points = RandomRows(500, 16, 4, metric);
    points.insert(points.end(), once.begin(), once.end());
    ExpectAssignmentsExact(metric, points, centroids, 16, 0);
    std::vector<int32_t> ids(points.size() / 16);
    ASSERT_OK(AssignNearest(metric, points.data(), static_cast<int64_t>(ids.size()),
                            centroids.data(), 40, 16, ids.data()));
    for (int32_t id : ids) EXPECT_LT(id, 20);
  }
}

TEST(CentroidAssignment, AnswerDoesNotDependOnBatchPositionOrThreads) {
  for (Metric metric : kMetrics) {
    const int dim = 48;
    const int k = 257;
    const auto points = RandomRows(10000, dim, 21, metric);
    const auto centroids = RandomRows(k, dim, 22, metric);
    std::vector<int32_t> serial(10000), parallel(10000);
    std::vector<float> serial_scores(10000), parallel_scores(10000);
    ASSERT_OK(AssignNearest(metric, points.data(), 10000, centroids.data(), k, dim, serial.data(),
                            serial_scores.data(), 1));
    ASSERT_OK(AssignNearest(metric, points.data(), 10000, centroids.data(), k, dim, parallel.data(),
                            parallel_scores.data(), 4));
    EXPECT_EQ(serial, parallel);
    for (int i = 0; i < 10000; ++i) ASSERT_EQ(Bits(serial_scores[i]), Bits(parallel_scores[i]));
    // One point per call, and a batch starting at an odd offset.
    for (int i = 0; i < 10000; i += 37) {
      int32_t id = -1;
      float score = 0;
      ASSERT_OK(
          AssignNearest(metric, points.data() + i * dim, 1, centroids.data(), k, dim, &id, &score));
      ASSERT_EQ(id, serial[i]);
      ASSERT_EQ(Bits(score), Bits(serial_scores[i]));
    }
    std::vector<int32_t> shifted(10000 - 1234);
    ASSERT_OK(AssignNearest(metric, points.data() + 1234 * dim, 10000 - 1234, centroids.data(), k,
                            dim, shifted.data()));
    for (int i = 1234; i < 10000; ++i) ASSERT_EQ(shifted[i - 1234], serial[i]);
  }
}

TEST(CentroidAssignment, NonFiniteValuesAnswerAsThePerPairScan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (Metric metric : kMetrics) {
    auto points = RandomRows(300, 8, 31, metric);
    points[3 * 8 + 2] = nan;
    points[7 * 8 + 0] = inf;
    points[9 * 8 + 5] = -inf;
    for (int d = 0; d < 8; ++d) points[11 * 8 + d] = nan;
    points[13 * 8 + 1] = 1e20f;  // its square overflows float
    points[15 * 8 + 1] = 3e38f;
    const auto centroids = RandomRows(10, 8, 32, metric);
    ExpectAssignmentsExact(metric, points, centroids, 8, 0);

    // A centroid holding NaN, or huge: every point takes the per-pair scan.
    auto odd_centroids = centroids;
    odd_centroids[2 * 8 + 3] = nan;
    ExpectAssignmentsExact(metric, points, odd_centroids, 8, 0);
    odd_centroids[2 * 8 + 3] = 1e18f;
    ExpectAssignmentsExact(metric, points, odd_centroids, 8, 0);
    // All centroids NaN: NearestCentroid's answer is centroid 0 with a NaN score.
    std::vector<float> all_nan(4 * 8, nan);
    ExpectAssignmentsExact(metric, points, all_nan, 8, 0);
  }
}

TEST(CentroidAssignment, TopNearestEqualsIvfModelProbe) {
  for (Metric metric : kMetrics) {
    for (int k : {1, 5, 64, 300}) {
      const int dim = 24;
      constexpr int64_t kQueries = 400;
      const auto queries = RandomRows(kQueries, dim, 41 + k, metric);
      auto centroids = RandomRows(k, dim, 42 + k, metric);
      if (k >= 5) {  // some exact ties
        std::copy(centroids.begin(), centroids.begin() + dim, centroids.begin() + 3 * dim);
      }
      ASSERT_OK_AND_ASSIGN(IvfModel model, IvfModel::Make(metric, dim, centroids));
      for (int count : {-1, 0, 1, 3, 20, k - 1, k, k + 4}) {
        const int width = TopNearestWidth(count, k);
        ASSERT_EQ(width, std::clamp(count, 0, k));
        std::vector<int32_t> ids(queries.size() / dim * width, -1);
        ASSERT_OK(TopNearest(metric, queries.data(), kQueries, centroids.data(), k, dim, count,
                             ids.data()));
        const auto batch = model.ProbeBatch(queries.data(), kQueries, count).ValueOrDie();
        ASSERT_EQ(batch.size(), static_cast<size_t>(kQueries));
        for (int64_t i = 0; i < kQueries; ++i) {
          const std::vector<int> expected = model.Probe(queries.data() + i * dim, count);
          const std::vector<int> got(ids.begin() + i * width, ids.begin() + (i + 1) * width);
          ASSERT_EQ(got, expected)
              << MetricName(metric) << " k " << k << " count " << count << " query " << i;
          ASSERT_EQ(batch[i], expected);
        }
      }
    }
  }
}

TEST(CentroidAssignment, TopNearestWithNonFiniteQueries) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Metric metric : kMetrics) {
    auto queries = RandomRows(50, 8, 51, metric);
    queries[2 * 8] = nan;
    queries[5 * 8 + 3] = std::numeric_limits<float>::infinity();
    auto centroids = RandomRows(30, 8, 52, metric);
    centroids[4 * 8 + 1] = nan;  // every query takes the per-pair scan
    for (const auto& set : {RandomRows(30, 8, 52, metric), centroids}) {
      ASSERT_OK_AND_ASSIGN(IvfModel model, IvfModel::Make(metric, 8, set));
      const auto batch = model.ProbeBatch(queries.data(), 50, 7).ValueOrDie();
      for (int64_t i = 0; i < 50; ++i) ASSERT_EQ(batch[i], model.Probe(queries.data() + i * 8, 7));
    }
  }
}

TEST(CentroidAssignment, IvfModelAssignBatchEqualsAssign) {
  for (Metric metric : kMetrics) {
    const auto centroids = RandomRows(100, 40, 61, metric);
    const auto vectors = RandomRows(5000, 40, 62, metric);
    ASSERT_OK_AND_ASSIGN(IvfModel model, IvfModel::Make(metric, 40, centroids));
    std::vector<int32_t> partitions(5000, -1);
    ASSERT_OK(model.AssignBatch(vectors.data(), 5000, partitions.data()));
    for (int64_t i = 0; i < 5000; ++i) {
      ASSERT_EQ(partitions[i], model.Assign(vectors.data() + i * 40));
    }
    EXPECT_FALSE(model.AssignBatch(vectors.data(), -1, partitions.data()).ok());
    EXPECT_TRUE(model.ProbeBatch(vectors.data(), 0, 3).ValueOrDie().empty());
  }
}

TEST(CentroidAssignment, RejectsImpossibleShapes) {
  std::vector<float> values(16, 1.0f);
  int32_t id = 0;
  EXPECT_EQ(KindOf(AssignNearest(Metric::kL2, values.data(), 1, values.data(), 0, 4, &id)),
            ErrorKind::kInvalidArgument);
  EXPECT_FALSE(AssignNearest(Metric::kL2, values.data(), 1, values.data(), 1, 0, &id).ok());
  EXPECT_FALSE(AssignNearest(Metric::kL2, values.data(), -1, values.data(), 1, 4, &id).ok());
  EXPECT_FALSE(TopNearest(Metric::kL2, values.data(), 1, values.data(), 0, 4, 1, &id).ok());
  EXPECT_OK(AssignNearest(Metric::kL2, values.data(), 0, values.data(), 1, 4, &id));
}

}  // namespace
}  // namespace tessera::index::vector::centroid_assignment_test
