// K-means clustering of float32 vectors: the training step of IVF indexes.
//
// Deterministic: the result is a function of (points, options) alone, whatever the thread count
// (options.max_threads); every random choice (the seeding) comes from options.seed. Lloyd
// iterations run until no point changes cluster or options.max_iterations is reached. A cluster
// left empty is re-seeded with the point its current centroid serves worst, taken from a cluster
// with more than one point, so clusters stay non-empty whenever the points have at least
// num_clusters distinct values.
//
// How points meet centroids depends on the metric (the same rule IVF uses to assign rows and
// route queries, see AssignmentScore):
//  - l2: smallest squared Euclidean distance; centroids are means.
//  - cosine: largest inner product; centroids are normalized means (spherical k-means). The
//    caller passes unit-length points.
//  - dot: largest inner product; centroids are means.
//
// The kernels here are for training and partition choice only: they are free to round
// differently from vector::Distance, which alone computes the distances a search reports.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <vector>

#include "tessera/index/vector/distance.h"

namespace tessera::index::vector {

// The kernels of training and partition choice. They run on the active SIMD kernels, like
// L2Squared and InnerProduct today; they stay separate names so that training may round
// differently from reported distances without touching search.
float FastL2Squared(const float* a, const float* b, int dim);
float FastInnerProduct(const float* a, const float* b, int dim);

// How near `point` is to `centroid` under `metric`'s assignment rule; smaller is nearer.
float AssignmentScore(Metric metric, const float* point, const float* centroid, int dim);

// The index of the centroid nearest to `point` (ties: the lowest index); its score in *score
// when not null. `centroids` is num_centroids × dim, row-major; num_centroids > 0.
int NearestCentroid(Metric metric, const float* point, const float* centroids, int num_centroids,
                    int dim, float* score = nullptr);

// Scales `vector` to unit length; a zero vector stays zero.
void Normalize(float* vector, int dim);

// How the first centroids are chosen.
enum class KMeansSeeding {
  // k-means++: spread over the data, each next seed far from those before. Good for coarse
  // partitions, where every region of the data should get a cell.
  kPlusPlus,
  // num_clusters distinct points drawn uniformly: seeds land where the points are dense. Better
  // for PQ codebooks, whose error should be smallest where most points (and the true neighbours
  // of most queries) lie; k-means++ spends entries on sparse outskirts instead.
  kRandomPoints,
};

struct KMeansOptions {
  int num_clusters = 1;
  KMeansSeeding seeding = KMeansSeeding::kPlusPlus;
  int max_iterations = 50;
  uint64_t seed = 42;
  Metric metric = Metric::kL2;
  // Threads to use (0: util::NumThreads()). The result does not depend on it.
  int max_threads = 0;
};

struct KMeansResult {
  std::vector<float> centroids;  // num_clusters × dim, row-major
  int num_clusters = 0;
  int iterations = 0;            // Lloyd iterations run
  std::vector<int> assignments;  // the cluster of each point under the final centroids
  double objective = 0;          // sum over points of their assignment score
};

// InvalidArgument unless 1 <= options.num_clusters <= count, dim >= 1 and
// options.max_iterations >= 1. Each Lloyd iteration advances the current progress phase by one
// (util/operation_control.h) and ends training with Cancelled when cancellation was requested.
arrow::Result<KMeansResult> TrainKMeans(const float* points, int64_t count, int dim,
                                        const KMeansOptions& options);

}  // namespace tessera::index::vector
