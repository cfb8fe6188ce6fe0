// K-means training (index/vector/kmeans.h) and training-sample selection
// (index/vector/vector_sample.h): determinism, quality on clustered data, degenerate inputs.
#include "tessera/index/vector/kmeans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "tessera/index/vector/random.h"
#include "tessera/index/vector/vector_sample.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::index::vector::kmeans_test {
namespace {

// `clusters` blobs of `per_cluster` points around far-apart centres; labels in *truth.
std::vector<float> Blobs(int clusters, int per_cluster, int dim, uint64_t seed,
                         std::vector<int>* truth) {
  Random random(seed);
  std::vector<float> centres(static_cast<size_t>(clusters) * dim);
  for (float& value : centres) value = static_cast<float>(random.Uniform() * 100.0);
  std::vector<float> points;
  for (int c = 0; c < clusters; ++c) {
    for (int i = 0; i < per_cluster; ++i) {
      for (int d = 0; d < dim; ++d) {
        points.push_back(centres[static_cast<size_t>(c) * dim + d] +
                         static_cast<float>(random.Uniform() - 0.5));
      }
      truth->push_back(c);
    }
  }
  return points;
}

KMeansResult Train(const std::vector<float>& points, int dim, const KMeansOptions& options) {
  auto result = TrainKMeans(points.data(), static_cast<int64_t>(points.size() / dim), dim, options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : KMeansResult{};
}

TEST(KMeans, IsDeterministicInItsSeed) {
  std::vector<int> truth;
  const auto points = Blobs(6, 50, 8, 7, &truth);
  KMeansOptions options;
  options.num_clusters = 6;
  options.seed = 11;
  const KMeansResult first = Train(points, 8, options);
  const KMeansResult second = Train(points, 8, options);
  EXPECT_EQ(first.centroids, second.centroids);
  EXPECT_EQ(first.assignments, second.assignments);
  EXPECT_EQ(first.iterations, second.iterations);

  // Many clusters over few points: the seed visibly changes the result.
  KMeansOptions many = options;
  many.num_clusters = 40;
  many.seed = 1;
  const KMeansResult a = Train(points, 8, many);
  many.seed = 2;
  const KMeansResult b = Train(points, 8, many);
  EXPECT_NE(a.centroids, b.centroids);
}

// A dense blob of 1,000 points and 12 far outliers, 10 clusters, one Lloyd iteration:
// k-means++ spends seeds on the outliers (each far from every seed before), random points put
// nearly all of them in the blob, where the points are (what PQ codebooks want). Both are
// deterministic in the seed.
TEST(KMeans, RandomPointSeedsSitWhereThePointsAreDense) {
  Random random(3);
  std::vector<float> points;
  for (int i = 0; i < 1000; ++i) {
    points.push_back(static_cast<float>(random.Uniform()));
    points.push_back(static_cast<float>(random.Uniform()));
  }
  for (int i = 0; i < 12; ++i) {
    points.push_back(1000.0f * static_cast<float>(i + 1));
    points.push_back(-1000.0f);
  }
  const auto in_blob = [](const KMeansResult& result) {
    int count = 0;
    for (int c = 0; c < result.num_clusters; ++c) {
      count += std::abs(result.centroids[static_cast<size_t>(c) * 2]) < 2.0f ? 1 : 0;
    }
    return count;
  };
  KMeansOptions options;
  options.num_clusters = 10;
  options.max_iterations = 1;
  options.seed = 5;
  const KMeansResult spread = Train(points, 2, options);
  options.seeding = KMeansSeeding::kRandomPoints;
  const KMeansResult dense = Train(points, 2, options);
  EXPECT_LE(in_blob(spread), 3);
  EXPECT_GE(in_blob(dense), 9);
  EXPECT_EQ(Train(points, 2, options).centroids, dense.centroids);
  // Seeds are distinct points: as many clusters as points is every point once.
  std::vector<float> few = {0, 0, 1, 0, 2, 0, 3, 0};
  options.num_clusters = 4;
  const KMeansResult all = Train(few, 2, options);
  std::multiset<float> xs;
  for (int c = 0; c < 4; ++c) xs.insert(all.centroids[static_cast<size_t>(c) * 2]);
  EXPECT_EQ(xs, (std::multiset<float>{0, 1, 2, 3}));
}

TEST(KMeans, RecoversWellSeparatedClusters) {
  for (Metric metric : {Metric::kL2, Metric::kDot}) {
    std::vector<int> truth;
    const auto points = Blobs(8, 100, 8, 3, &truth);
    KMeansOptions options;
    options.num_clusters = 8;
    options.metric = metric;
    const KMeansResult result = Train(points, 8, options);
    ASSERT_EQ(result.assignments.size(), truth.size());
    if (metric == Metric::kDot) {
      // Largest inner product is not a clustering criterion on its own; it only has to stay
      // valid and deterministic.
      for (int label : result.assignments) EXPECT_TRUE(label >= 0 && label < 8);
      continue;
    }
    // Each true blob maps to exactly one cluster and no two blobs share one.
    std::map<int, std::set<int>> clusters_of_blob;
    std::map<int, std::set<int>> blobs_of_cluster;
    for (size_t i = 0; i < truth.size(); ++i) {
      clusters_of_blob[truth[i]].insert(result.assignments[i]);
      blobs_of_cluster[result.assignments[i]].insert(truth[i]);
    }
    EXPECT_EQ(blobs_of_cluster.size(), 8u);
    for (const auto& [blob, clusters] : clusters_of_blob) EXPECT_EQ(clusters.size(), 1u);
    for (const auto& [cluster, blobs] : blobs_of_cluster) EXPECT_EQ(blobs.size(), 1u);
  }
}

TEST(KMeans, LowersTheObjectiveOnEmbeddings) {
  synthetic::EmbeddingOptions data;
  data.dim = 32;
  data.clusters = 16;
  auto flat = synthetic::MakeQueryVectorsFlat(data, 2000);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  KMeansOptions options;
  options.num_clusters = 16;
  options.max_iterations = 1;
  const KMeansResult seeded = Train(*flat, 32, options);
  options.max_iterations = 50;
  const KMeansResult trained = Train(*flat, 32, options);
  EXPECT_LE(trained.objective, seeded.objective);
  EXPECT_GE(trained.iterations, 1);

  // Much better than centroids at random data points: the mixture has structure.
  double random_objective = 0;
  std::vector<float> random_centroids;
  for (int c = 0; c < 16; ++c) {
    random_centroids.insert(random_centroids.end(), flat->begin() + c * 97 * 32,
                            flat->begin() + (c * 97 + 1) * 32);
  }
  for (int64_t i = 0; i < 2000; ++i) {
    float score = 0;
    NearestCentroid(Metric::kL2, flat->data() + i * 32, random_centroids.data(), 16, 32, &score);
    random_objective += score;
  }
  EXPECT_LT(trained.objective, 0.8 * random_objective);
}

TEST(KMeans, CosineCentroidsAreUnitVectors) {
  std::vector<int> truth;
  auto points = Blobs(4, 30, 6, 5, &truth);
  for (size_t i = 0; i < points.size(); i += 6) Normalize(points.data() + i, 6);
  KMeansOptions options;
  options.num_clusters = 4;
  options.metric = Metric::kCosine;
  const KMeansResult result = Train(points, 6, options);
  for (int c = 0; c < 4; ++c) {
    const float norm = std::sqrt(
        FastInnerProduct(result.centroids.data() + c * 6, result.centroids.data() + c * 6, 6));
    EXPECT_NEAR(norm, 1.0f, 1e-5f);
  }
}

TEST(KMeans, ReseedsEmptyClustersAndSurvivesDuplicates) {
  // Two distinct values, many copies: both must end up with a cluster of their own.
  std::vector<float> points;
  for (int i = 0; i < 50; ++i) points.insert(points.end(), {0.0f, 0.0f});
  for (int i = 0; i < 3; ++i) points.insert(points.end(), {10.0f, 10.0f});
  KMeansOptions options;
  options.num_clusters = 2;
  const KMeansResult two = Train(points, 2, options);
  std::set<int> used(two.assignments.begin(), two.assignments.end());
  EXPECT_EQ(used.size(), 2u);
  EXPECT_NE(two.assignments.front(), two.assignments.back());

  // More clusters than distinct values: no failure, every label valid.
  options.num_clusters = 5;
  const KMeansResult five = Train(points, 2, options);
  for (int label : five.assignments) EXPECT_TRUE(label >= 0 && label < 5);
  EXPECT_EQ(five.centroids.size(), 10u);

  // Identical points only.
  std::vector<float> same(40, 1.5f);
  options.num_clusters = 4;
  const KMeansResult identical = Train(same, 2, options);
  for (float value : identical.centroids) EXPECT_EQ(value, 1.5f);
}

TEST(KMeans, RejectsImpossibleRequests) {
  std::vector<float> points(20, 1.0f);
  KMeansOptions options;
  options.num_clusters = 11;  // 10 points of dimension 2
  auto too_many = TrainKMeans(points.data(), 10, 2, options);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(KindOf(too_many.status()), ErrorKind::kInvalidArgument);
  options.num_clusters = 0;
  EXPECT_FALSE(TrainKMeans(points.data(), 10, 2, options).ok());
  options.num_clusters = 2;
  options.max_iterations = 0;
  EXPECT_FALSE(TrainKMeans(points.data(), 10, 2, options).ok());
  options.max_iterations = 5;
  EXPECT_FALSE(TrainKMeans(points.data(), 10, 0, options).ok());
}

TEST(KMeans, FastKernelsAgreeWithTheReferenceDistances) {
  Random random(9);
  for (int dim : {1, 7, 8, 17, 128}) {
    std::vector<float> a(dim), b(dim);
    for (int d = 0; d < dim; ++d) {
      a[d] = static_cast<float>(random.Uniform() * 2 - 1);
      b[d] = static_cast<float>(random.Uniform() * 2 - 1);
    }
    EXPECT_NEAR(FastL2Squared(a.data(), b.data(), dim), L2Squared(a.data(), b.data(), dim), 1e-4);
    EXPECT_NEAR(FastInnerProduct(a.data(), b.data(), dim), InnerProduct(a.data(), b.data(), dim),
                1e-4);
  }
}

TEST(KMeans, ResultDoesNotDependOnTheThreadCount) {
  synthetic::EmbeddingOptions data;
  data.dim = 32;
  data.clusters = 40;
  auto flat = synthetic::MakeQueryVectorsFlat(data, 12000);  // three seeding pieces
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    std::vector<float> points = *flat;
    if (metric == Metric::kCosine) {
      for (size_t i = 0; i < points.size(); i += 32) Normalize(points.data() + i, 32);
    }
    KMeansOptions options;
    options.num_clusters = 64;
    options.max_iterations = 8;
    options.metric = metric;
    options.max_threads = 1;
    const KMeansResult serial = Train(points, 32, options);
    for (int threads : {2, 4, 0}) {
      options.max_threads = threads;
      const KMeansResult parallel = Train(points, 32, options);
      EXPECT_EQ(parallel.centroids, serial.centroids) << MetricName(metric) << " " << threads;
      EXPECT_EQ(parallel.assignments, serial.assignments);
      EXPECT_EQ(parallel.iterations, serial.iterations);
      EXPECT_EQ(parallel.objective, serial.objective);
    }
  }
}

// The k-means++ seeds drawn the plain way: every distance computed (no triangle-inequality
// skips), the running sum kept per piece of 4096 points as TrainKMeans keeps it.
std::vector<float> ReferenceSeeds(const std::vector<float>& points, int dim, int k, uint64_t seed) {
  constexpr int64_t kPiece = 4096;
  const int64_t n = static_cast<int64_t>(points.size()) / dim;
  Random random(seed);
  std::vector<float> seeds;
  auto add_seed = [&](int64_t i) {
    seeds.insert(seeds.end(), points.begin() + i * dim, points.begin() + (i + 1) * dim);
  };
  add_seed(static_cast<int64_t>(random.Below(static_cast<uint64_t>(n))));
  std::vector<float> nearest(static_cast<size_t>(n), INFINITY);
  for (int c = 1; c <= k; ++c) {
    const float* last = seeds.data() + static_cast<size_t>(c - 1) * dim;
    for (int64_t i = 0; i < n; ++i) {
      nearest[i] = std::min(nearest[i], FastL2Squared(points.data() + i * dim, last, dim));
    }
    if (c == k) break;
    std::vector<double> piece_sums;
    for (int64_t start = 0; start < n; start += kPiece) {
      double sum = 0;
      for (int64_t i = start; i < std::min(n, start + kPiece); ++i) sum += nearest[i];
      piece_sums.push_back(sum);
    }
    double total = 0;
    for (double sum : piece_sums) total += sum;
    int64_t chosen = -1;
    if (total > 0) {
      const double target = random.Uniform() * total;
      double cumulative = 0;
      int64_t piece = 0;
      while (piece + 1 < static_cast<int64_t>(piece_sums.size()) &&
             cumulative + piece_sums[piece] <= target) {
        cumulative += piece_sums[piece++];
      }
      for (int64_t i = piece * kPiece; i < std::min(n, (piece + 1) * kPiece); ++i) {
        if (nearest[i] <= 0) continue;
        chosen = i;
        cumulative += nearest[i];
        if (cumulative > target) break;
      }
    }
    if (chosen < 0) chosen = static_cast<int64_t>(random.Below(static_cast<uint64_t>(n)));
    add_seed(chosen);
  }
  return seeds;
}

TEST(KMeans, OneIterationEqualsAPlainReference) {
  // Seeds (with their distance skips), the parallel assignment and the parallel mean must give
  // exactly what the plain computation gives.
  synthetic::EmbeddingOptions data;
  data.dim = 24;
  data.clusters = 30;
  auto flat = synthetic::MakeQueryVectorsFlat(data, 12000);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  const int dim = 24;
  const int k = 50;
  const int64_t n = 12000;
  KMeansOptions options;
  options.num_clusters = k;
  options.max_iterations = 1;
  options.seed = 5;
  // Not dot: there a seed need not win its own point, and the reference does not reseed.
  for (Metric metric : {Metric::kL2, Metric::kCosine}) {
    options.metric = metric;
    if (metric == Metric::kCosine) {
      for (int64_t i = 0; i < n; ++i) Normalize(flat->data() + i * dim, dim);
    }
    const KMeansResult result = Train(*flat, dim, options);
    std::vector<float> seeds = ReferenceSeeds(*flat, dim, k, options.seed);
    if (metric == Metric::kCosine) {
      for (int c = 0; c < k; ++c) Normalize(seeds.data() + c * dim, dim);
    }
    std::vector<int> labels(static_cast<size_t>(n));
    std::vector<int64_t> counts(k, 0);
    for (int64_t i = 0; i < n; ++i) {
      labels[i] = NearestCentroid(metric, flat->data() + i * dim, seeds.data(), k, dim);
      ++counts[labels[i]];
    }
    for (int c = 0; c < k; ++c) ASSERT_GT(counts[c], 0) << "the reference does not reseed";
    std::vector<double> sums(static_cast<size_t>(k) * dim, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      for (int d = 0; d < dim; ++d) sums[labels[i] * dim + d] += (*flat)[i * dim + d];
    }
    std::vector<float> means(static_cast<size_t>(k) * dim);
    for (int c = 0; c < k; ++c) {
      for (int d = 0; d < dim; ++d) {
        means[c * dim + d] = static_cast<float>(sums[c * dim + d] / counts[c]);
      }
      if (metric == Metric::kCosine) Normalize(means.data() + c * dim, dim);
    }
    EXPECT_EQ(result.centroids, means) << MetricName(metric);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(result.assignments[i],
                NearestCentroid(metric, flat->data() + i * dim, means.data(), k, dim));
    }
  }
}

TEST(KMeansSampling, PositionsAreAUniformSampleWithoutReplacement) {
  for (uint64_t total : {0ull, 5ull, 1000ull, 100000ull}) {
    for (uint64_t count : {0ull, 3ull, 64ull, 5000ull, 200000ull}) {
      const auto positions = SamplePositions(total, count, 17);
      ASSERT_EQ(positions.size(), std::min(total, count));
      for (size_t i = 1; i < positions.size(); ++i) ASSERT_LT(positions[i - 1], positions[i]);
      if (!positions.empty()) {
        EXPECT_LT(positions.back(), total);
      }
      EXPECT_EQ(positions, SamplePositions(total, count, 17));
    }
  }
  EXPECT_NE(SamplePositions(100000, 64, 1), SamplePositions(100000, 64, 2));
  // Roughly uniform: a quarter of the sample falls in each quarter of the range.
  const auto positions = SamplePositions(1000000, 4000, 3);
  int first_quarter = 0;
  for (uint64_t position : positions) first_quarter += position < 250000;
  EXPECT_GT(first_quarter, 850);
  EXPECT_LT(first_quarter, 1150);
}

}  // namespace
}  // namespace tessera::index::vector::kmeans_test
