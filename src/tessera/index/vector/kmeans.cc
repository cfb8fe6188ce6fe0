#include "tessera/index/vector/kmeans.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tessera/index/vector/random.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

constexpr int kLanes = 8;

float SumLanes(const float* lanes) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// k-means++ seeding (Arthur & Vassilvitskii 2007): each next centroid is a point drawn with
// probability proportional to its squared distance to the nearest centroid so far. Squared L2
// for every metric: on the unit vectors of cosine it orders like cosine distance, and for dot
// it spreads the seeds over the data, which is what seeding needs.
std::vector<float> SeedCentroids(const float* points, int64_t count, int dim, int num_clusters,
                                 Random& random) {
  std::vector<float> centroids(static_cast<size_t>(num_clusters) * dim);
  const int64_t first = static_cast<int64_t>(random.Below(static_cast<uint64_t>(count)));
  std::copy(points + first * dim, points + (first + 1) * dim, centroids.begin());
  std::vector<float> nearest(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    nearest[i] = FastL2Squared(points + i * dim, centroids.data(), dim);
  }
  for (int c = 1; c < num_clusters; ++c) {
    double total = 0;
    for (float value : nearest) total += value;
    int64_t chosen = -1;
    if (total > 0) {
      const double target = random.Uniform() * total;
      double cumulative = 0;
      int64_t last_positive = -1;
      for (int64_t i = 0; i < count; ++i) {
        if (nearest[i] <= 0) continue;
        last_positive = i;
        cumulative += nearest[i];
        if (cumulative > target) {
          chosen = i;
          break;
        }
      }
      if (chosen < 0) chosen = last_positive;  // rounding left the target just out of reach
    }
    if (chosen < 0) chosen = static_cast<int64_t>(random.Below(static_cast<uint64_t>(count)));
    float* centroid = centroids.data() + static_cast<size_t>(c) * dim;
    std::copy(points + chosen * dim, points + (chosen + 1) * dim, centroid);
    for (int64_t i = 0; i < count; ++i) {
      nearest[i] = std::min(nearest[i], FastL2Squared(points + i * dim, centroid, dim));
    }
  }
  return centroids;
}

// Gives each empty cluster the point served worst by its centroid, taken from a cluster that
// keeps at least one point. Deterministic: worst first, ties by point index.
void ReseedEmptyClusters(const std::vector<float>& scores, std::vector<int>& labels,
                         std::vector<int64_t>& counts) {
  const int num_clusters = static_cast<int>(counts.size());
  if (std::find(counts.begin(), counts.end(), 0) == counts.end()) return;
  std::vector<int64_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  size_t next = 0;
  for (int cluster = 0; cluster < num_clusters; ++cluster) {
    if (counts[cluster] != 0) continue;
    while (next < order.size() && counts[labels[order[next]]] <= 1) ++next;
    if (next == order.size()) return;  // fewer distinct points than clusters
    const int64_t point = order[next++];
    --counts[labels[point]];
    labels[point] = cluster;
    counts[cluster] = 1;
  }
}

void UpdateCentroids(const float* points, int64_t count, int dim, Metric metric,
                     const std::vector<int>& labels, const std::vector<int64_t>& counts,
                     std::vector<float>& centroids) {
  const int num_clusters = static_cast<int>(counts.size());
  std::vector<double> sums(static_cast<size_t>(num_clusters) * dim, 0.0);
  for (int64_t i = 0; i < count; ++i) {
    double* sum = sums.data() + static_cast<size_t>(labels[i]) * dim;
    const float* point = points + i * dim;
    for (int d = 0; d < dim; ++d) sum[d] += point[d];
  }
  for (int c = 0; c < num_clusters; ++c) {
    if (counts[c] == 0) continue;  // keeps its previous centroid
    float* centroid = centroids.data() + static_cast<size_t>(c) * dim;
    const double* sum = sums.data() + static_cast<size_t>(c) * dim;
    for (int d = 0; d < dim; ++d) centroid[d] = static_cast<float>(sum[d] / counts[c]);
    if (metric == Metric::kCosine) Normalize(centroid, dim);
  }
}

}  // namespace

float FastL2Squared(const float* a, const float* b, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float difference = a[i + j] - b[i + j];
      lanes[j] += difference * difference;
    }
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) {
    const float difference = a[i] - b[i];
    sum += difference * difference;
  }
  return sum;
}

float FastInnerProduct(const float* a, const float* b, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += a[i + j] * b[i + j];
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

float AssignmentScore(Metric metric, const float* point, const float* centroid, int dim) {
  if (metric == Metric::kL2) return FastL2Squared(point, centroid, dim);
  return -FastInnerProduct(point, centroid, dim);
}

int NearestCentroid(Metric metric, const float* point, const float* centroids, int num_centroids,
                    int dim, float* score) {
  int best = 0;
  float best_score = AssignmentScore(metric, point, centroids, dim);
  for (int c = 1; c < num_centroids; ++c) {
    const float candidate =
        AssignmentScore(metric, point, centroids + static_cast<size_t>(c) * dim, dim);
    // A NaN score (a vector holding NaN) never beats a number.
    if (candidate < best_score || (std::isnan(best_score) && !std::isnan(candidate))) {
      best = c;
      best_score = candidate;
    }
  }
  if (score != nullptr) *score = best_score;
  return best;
}

void Normalize(float* vector, int dim) {
  double norm = 0;
  for (int d = 0; d < dim; ++d) norm += static_cast<double>(vector[d]) * vector[d];
  if (norm <= 0 || !std::isfinite(norm)) return;
  const double scale = 1.0 / std::sqrt(norm);
  for (int d = 0; d < dim; ++d) vector[d] = static_cast<float>(vector[d] * scale);
}

arrow::Result<KMeansResult> TrainKMeans(const float* points, int64_t count, int dim,
                                        const KMeansOptions& options) {
  if (dim < 1) return InvalidArgument("k-means needs a positive dimension, got ", dim);
  if (options.num_clusters < 1 || options.num_clusters > count) {
    return InvalidArgument("k-means cannot make ", options.num_clusters, " clusters of ", count,
                           " points");
  }
  if (options.max_iterations < 1) {
    return InvalidArgument("k-means needs at least one iteration, got ", options.max_iterations);
  }
  Random random(options.seed);
  KMeansResult result;
  result.num_clusters = options.num_clusters;
  result.centroids = SeedCentroids(points, count, dim, options.num_clusters, random);
  if (options.metric == Metric::kCosine) {
    for (int c = 0; c < options.num_clusters; ++c) {
      Normalize(result.centroids.data() + static_cast<size_t>(c) * dim, dim);
    }
  }

  std::vector<int>& labels = result.assignments;
  labels.assign(static_cast<size_t>(count), -1);
  std::vector<float> scores(static_cast<size_t>(count));
  std::vector<int64_t> counts(static_cast<size_t>(options.num_clusters));
  auto assign = [&]() {
    int64_t changed = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int label = NearestCentroid(options.metric, points + i * dim, result.centroids.data(),
                                        options.num_clusters, dim, &scores[i]);
      changed += label != labels[i];
      labels[i] = label;
    }
    return changed;
  };

  bool converged = false;
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    const int64_t changed = assign();
    if (iteration > 0 && changed == 0) {
      converged = true;  // the centroids are the means of these very assignments
      break;
    }
    std::fill(counts.begin(), counts.end(), 0);
    for (int label : labels) ++counts[label];
    ReseedEmptyClusters(scores, labels, counts);
    UpdateCentroids(points, count, dim, options.metric, labels, counts, result.centroids);
    result.iterations = iteration + 1;
  }
  if (!converged) assign();
  result.objective = 0;
  for (float score : scores) result.objective += score;
  return result;
}

}  // namespace tessera::index::vector
