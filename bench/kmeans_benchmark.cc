// IVF training and assignment: k-means (TrainKMeans) at the default IVF training size and at
// bench scale, and batch assignment (AssignNearest) and probing (TopNearest) against it,
// on synthetic 128-dimensional embeddings. No thresholds: compare runs on the same machine.
//
//   build/bench/kmeans_benchmark --benchmark_filter=TrainKMeans/256
//   TESSERA_NUM_THREADS=1 build/bench/kmeans_benchmark   (the serial baseline)
#include <benchmark/benchmark.h>

#include <map>
#include <utility>
#include <vector>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/synthetic/embedding_generator.h"
#include "tessera/util/thread_pool.h"

namespace {

using tessera::index::vector::Metric;

constexpr int kDim = 128;

// `rows` synthetic embeddings (a Gaussian mixture), made once per size.
const std::vector<float>& Points(int64_t rows) {
  static auto* cache = new std::map<int64_t, std::vector<float>>();
  auto it = cache->find(rows);
  if (it == cache->end()) {
    tessera::synthetic::EmbeddingOptions options;
    options.dim = kDim;
    options.clusters = 256;
    options.latent_dim = 32;
    it = cache->emplace(rows, tessera::synthetic::MakeQueryVectorsFlat(options, rows).ValueOrDie())
             .first;
  }
  return it->second;
}

// Trained centroids for (rows, clusters), made once: the assignment benchmarks' model.
const std::vector<float>& Centroids(int64_t rows, int clusters) {
  static auto* cache = new std::map<std::pair<int64_t, int>, std::vector<float>>();
  auto it = cache->find({rows, clusters});
  if (it == cache->end()) {
    tessera::index::vector::KMeansOptions options;
    options.num_clusters = clusters;
    options.max_iterations = 10;
    auto result =
        tessera::index::vector::TrainKMeans(Points(rows).data(), rows, kDim, options).ValueOrDie();
    it = cache->emplace(std::make_pair(rows, clusters), std::move(result.centroids)).first;
  }
  return it->second;
}

// Args: points, clusters, max_iterations.
void TrainKMeans(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const auto& points = Points(rows);
  tessera::index::vector::KMeansOptions options;
  options.num_clusters = static_cast<int>(state.range(1));
  options.max_iterations = static_cast<int>(state.range(2));
  int iterations = 0;
  for (auto _ : state) {
    auto result =
        tessera::index::vector::TrainKMeans(points.data(), rows, kDim, options).ValueOrDie();
    iterations = result.iterations;
    benchmark::DoNotOptimize(result.centroids.data());
  }
  state.counters["lloyd_iterations"] = iterations;
  state.counters["threads"] = tessera::util::NumThreads();
}
// The default IVF training (256 partitions × 256 sample rows), and bench scale.
BENCHMARK(TrainKMeans)
    ->Args({65536, 256, 50})
    ->Args({262144, 1024, 50})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Args: points, clusters. Points assigned to centroids trained on the first 65536 of them.
void AssignNearest(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const int clusters = static_cast<int>(state.range(1));
  const auto& points = Points(rows);
  const auto& centroids = Centroids(65536, clusters);
  std::vector<int32_t> ids(static_cast<size_t>(rows));
  for (auto _ : state) {
    auto status = tessera::index::vector::AssignNearest(
        Metric::kL2, points.data(), rows, centroids.data(), clusters, kDim, ids.data());
    benchmark::DoNotOptimize(status);
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(AssignNearest)
    ->Args({1 << 20, 1024})
    ->Args({65536, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The per-point scan AssignNearest replaces (NearestCentroid in a loop), for comparison.
void NearestCentroidLoop(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const int clusters = static_cast<int>(state.range(1));
  const auto& points = Points(rows);
  const auto& centroids = Centroids(65536, clusters);
  for (auto _ : state) {
    int64_t sum = 0;
    for (int64_t i = 0; i < rows; ++i) {
      sum += tessera::index::vector::NearestCentroid(Metric::kL2, points.data() + i * kDim,
                                                     centroids.data(), clusters, kDim);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(NearestCentroidLoop)->Args({65536, 256})->Unit(benchmark::kMillisecond);

// Args: queries, clusters, probes.
void TopNearest(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const int clusters = static_cast<int>(state.range(1));
  const int probes = static_cast<int>(state.range(2));
  const auto& points = Points(rows);
  const auto& centroids = Centroids(65536, clusters);
  std::vector<int32_t> ids(static_cast<size_t>(rows) * probes);
  for (auto _ : state) {
    auto status = tessera::index::vector::TopNearest(
        Metric::kL2, points.data(), rows, centroids.data(), clusters, kDim, probes, ids.data());
    benchmark::DoNotOptimize(status);
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(TopNearest)->Args({10000, 1024, 32})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
