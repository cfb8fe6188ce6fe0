#include "tessera/index/vector/kmeans.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/random.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

// Points per piece of the seeding sums: fixed, so the sums do not depend on the thread count.
constexpr int64_t kSeedPiece = 4096;

// num_clusters distinct points of `points`, drawn uniformly (a partial Fisher-Yates shuffle of
// the indexes), as the seeds.
std::vector<float> RandomPoints(const float* points, int64_t count, int dim, int num_clusters,
                                Random& random) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) order[static_cast<size_t>(i)] = i;
  std::vector<float> centroids(static_cast<size_t>(num_clusters) * dim);
  for (int c = 0; c < num_clusters; ++c) {
    const auto pick = c + static_cast<int64_t>(random.Below(static_cast<uint64_t>(count - c)));
    std::swap(order[static_cast<size_t>(c)], order[static_cast<size_t>(pick)]);
    const float* point = points + order[static_cast<size_t>(c)] * dim;
    std::copy(point, point + dim, centroids.begin() + static_cast<ptrdiff_t>(c) * dim);
  }
  return centroids;
}

// k-means++ seeding (Arthur & Vassilvitskii 2007): each next centroid is a point drawn with
// probability proportional to its squared distance to the nearest centroid so far. Squared L2
// for every metric: on the unit vectors of cosine it orders like cosine distance, and for dot
// it spreads the seeds over the data, which is what seeding needs.
//
// The distance updates run in parallel over fixed pieces of kSeedPiece points, each summing its
// distances in point order; the draw walks the piece sums, then the points of one piece. A
// point skips the distance to a new seed when the triangle inequality proves it no nearer than
// the seed it has (|new - own|² >= 4·nearest, with a margin far above rounding): the skipped
// distance could not have lowered `nearest`, so the result is that of computing them all.
arrow::Result<std::vector<float>> SeedCentroids(const float* points, int64_t count, int dim,
                                                int num_clusters, Random& random, int max_threads) {
  std::vector<float> centroids(static_cast<size_t>(num_clusters) * dim);
  const int64_t first = static_cast<int64_t>(random.Below(static_cast<uint64_t>(count)));
  std::copy(points + first * dim, points + (first + 1) * dim, centroids.begin());
  std::vector<float> nearest(static_cast<size_t>(count));
  std::vector<int> owner(static_cast<size_t>(count), 0);  // the seed nearest[i] is measured to
  const int64_t num_pieces = (count + kSeedPiece - 1) / kSeedPiece;
  std::vector<double> piece_sums(static_cast<size_t>(num_pieces));
  std::vector<float> gaps(static_cast<size_t>(num_clusters));  // |new seed - seed a|²
  const double margin = 1.0 + 1e-2 + 64.0 * dim * static_cast<double>(FLT_EPSILON);

  // Lowers nearest[] to the distances to seed `c` (all of them when c is 0) and sums the pieces.
  auto update = [&](int c) -> arrow::Status {
    const float* seed = centroids.data() + static_cast<size_t>(c) * dim;
    for (int a = 0; a < c; ++a) {
      gaps[a] = FastL2Squared(seed, centroids.data() + static_cast<size_t>(a) * dim, dim);
    }
    // The body fails only when it cannot allocate (util::ParallelFor turns that into an error).
    return util::ParallelFor(
        num_pieces,
        [&](int64_t first_piece, int64_t end_piece) {
          for (int64_t piece = first_piece; piece < end_piece; ++piece) {
            const int64_t end = std::min(count, (piece + 1) * kSeedPiece);
            double sum = 0;
            for (int64_t i = piece * kSeedPiece; i < end; ++i) {
              if (c == 0) {
                nearest[i] = FastL2Squared(points + i * dim, seed, dim);
              } else if (!(gaps[owner[i]] >= 4.0 * margin * nearest[i] + 1e-30)) {
                const float distance = FastL2Squared(points + i * dim, seed, dim);
                if (distance < nearest[i]) {
                  nearest[i] = distance;
                  owner[i] = c;
                }
              }
              sum += nearest[i];
            }
            piece_sums[piece] = sum;
          }
          return arrow::Status::OK();
        },
        1, max_threads);
  };

  // The point where the running sum of nearest[] first exceeds `target` (rounding may leave the
  // target just out of reach: then the last point with a positive distance); -1 if none.
  auto draw = [&](double target) -> int64_t {
    double cumulative = 0;
    int64_t piece = -1;  // the piece the target falls in, else the last with a positive sum
    bool reached = false;
    for (int64_t p = 0; p < num_pieces && !reached; ++p) {
      if (!(piece_sums[p] > 0)) continue;
      piece = p;
      reached = cumulative + piece_sums[p] > target;
      if (!reached) cumulative += piece_sums[p];
    }
    if (piece < 0) return -1;
    const int64_t end = std::min(count, (piece + 1) * kSeedPiece);
    int64_t last_positive = -1;
    for (int64_t i = piece * kSeedPiece; i < end; ++i) {
      if (nearest[i] <= 0) continue;
      last_positive = i;
      cumulative += nearest[i];
      if (reached && cumulative > target) return i;
    }
    return last_positive;
  };

  for (int c = 1; c < num_clusters; ++c) {
    ARROW_RETURN_NOT_OK(update(c - 1));  // not after the last seed: nothing reads it
    double total = 0;
    for (double sum : piece_sums) total += sum;
    int64_t chosen = -1;
    if (total > 0) chosen = draw(random.Uniform() * total);
    if (chosen < 0) chosen = static_cast<int64_t>(random.Below(static_cast<uint64_t>(count)));
    float* centroid = centroids.data() + static_cast<size_t>(c) * dim;
    std::copy(points + chosen * dim, points + (chosen + 1) * dim, centroid);
  }
  return centroids;
}

// Gives each empty cluster the point served worst by its centroid, taken from a cluster that
// keeps at least one point. Deterministic: worst first, ties by point index.
void ReseedEmptyClusters(const std::vector<float>& scores, std::vector<int>& labels,
                         std::vector<int64_t>& counts) {
  const int num_clusters = static_cast<int>(counts.size());
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

// Centroids as the means of their points, in parallel over clusters; each cluster sums its
// points in point order, whatever the thread count.
arrow::Status UpdateCentroids(const float* points, int64_t count, int dim, Metric metric,
                              const std::vector<int>& labels, const std::vector<int64_t>& counts,
                              std::vector<float>& centroids, int max_threads) {
  const int num_clusters = static_cast<int>(counts.size());
  // The points of cluster c, in increasing order: members[starts[c] .. starts[c + 1]).
  std::vector<int64_t> starts(static_cast<size_t>(num_clusters) + 1, 0);
  for (int c = 0; c < num_clusters; ++c) starts[c + 1] = starts[c] + counts[c];
  std::vector<int64_t> members(static_cast<size_t>(count));
  std::vector<int64_t> next(starts.begin(), starts.end() - 1);
  for (int64_t i = 0; i < count; ++i) members[next[labels[i]]++] = i;
  return util::ParallelFor(
      num_clusters,
      [&](int64_t first, int64_t end) {
        std::vector<double> sum(static_cast<size_t>(dim));
        for (int64_t c = first; c < end; ++c) {
          if (counts[c] == 0) continue;  // keeps its previous centroid
          std::fill(sum.begin(), sum.end(), 0.0);
          for (int64_t m = starts[c]; m < starts[c + 1]; ++m) {
            const float* point = points + members[m] * dim;
            for (int d = 0; d < dim; ++d) sum[d] += point[d];
          }
          float* centroid = centroids.data() + static_cast<size_t>(c) * dim;
          for (int d = 0; d < dim; ++d) centroid[d] = static_cast<float>(sum[d] / counts[c]);
          if (metric == Metric::kCosine) Normalize(centroid, dim);
        }
        return arrow::Status::OK();
      },
      1, max_threads);
}

}  // namespace

float FastL2Squared(const float* a, const float* b, int dim) { return L2Squared(a, b, dim); }

float FastInnerProduct(const float* a, const float* b, int dim) { return InnerProduct(a, b, dim); }

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
  if (options.seeding == KMeansSeeding::kRandomPoints) {
    result.centroids = RandomPoints(points, count, dim, options.num_clusters, random);
  } else {
    ARROW_ASSIGN_OR_RAISE(result.centroids, SeedCentroids(points, count, dim, options.num_clusters,
                                                          random, options.max_threads));
  }
  if (options.metric == Metric::kCosine) {
    for (int c = 0; c < options.num_clusters; ++c) {
      Normalize(result.centroids.data() + static_cast<size_t>(c) * dim, dim);
    }
  }

  std::vector<int>& labels = result.assignments;
  labels.assign(static_cast<size_t>(count), -1);
  std::vector<float> scores;
  std::vector<int64_t> counts(static_cast<size_t>(options.num_clusters));
  std::vector<int> next_labels(static_cast<size_t>(count));
  // NearestCentroid for every point (AssignNearest's answers are bit-equal to it), without the
  // scores: rescoring the lone candidate of most points would be most of the work.
  auto assign = [&]() -> arrow::Result<int64_t> {
    ARROW_RETURN_NOT_OK(AssignNearest(options.metric, points, count, result.centroids.data(),
                                      options.num_clusters, dim, next_labels.data(), nullptr,
                                      options.max_threads));
    int64_t changed = 0;
    for (int64_t i = 0; i < count; ++i) changed += next_labels[i] != labels[i];
    labels.swap(next_labels);
    return changed;
  };
  // Each point's score against its own centroid: NearestCentroid's score, bit for bit.
  auto score_assignments = [&]() -> arrow::Status {
    scores.resize(static_cast<size_t>(count));
    return util::ParallelFor(
        count,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            scores[i] = AssignmentScore(
                options.metric, points + i * dim,
                result.centroids.data() + static_cast<size_t>(labels[i]) * dim, dim);
          }
          return arrow::Status::OK();
        },
        1024, options.max_threads);
  };

  bool converged = false;
  for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
    ARROW_ASSIGN_OR_RAISE(const int64_t changed, assign());
    if (iteration > 0 && changed == 0) {
      converged = true;  // the centroids are the means of these very assignments
      break;
    }
    std::fill(counts.begin(), counts.end(), 0);
    for (int label : labels) ++counts[label];
    if (std::find(counts.begin(), counts.end(), 0) != counts.end()) {
      ARROW_RETURN_NOT_OK(score_assignments());
      ReseedEmptyClusters(scores, labels, counts);
    }
    ARROW_RETURN_NOT_OK(UpdateCentroids(points, count, dim, options.metric, labels, counts,
                                        result.centroids, options.max_threads));
    result.iterations = iteration + 1;
    ARROW_RETURN_NOT_OK(util::AdvanceProgress(1));
  }
  if (!converged) ARROW_RETURN_NOT_OK(assign().status());
  ARROW_RETURN_NOT_OK(score_assignments());
  result.objective = 0;
  for (float score : scores) result.objective += score;
  return result;
}

}  // namespace tessera::index::vector
