#include "tessera/index/vector/centroid_assignment.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/openblas.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

// The product of a block is about this many floats (rows per block = this / k, clamped).
constexpr int64_t kBlockFloats = int64_t{1} << 20;
constexpr int64_t kMinBlockRows = 16;
constexpr int64_t kMaxBlockRows = 4096;
// Squared norms (of a point, or of a centroid) from which float arithmetic could overflow;
// such points, and all points when a centroid is this large, take the per-pair scan.
constexpr double kScaleLimit = 1e30;
// Debian builds OpenBLAS with MAX_THREADS=64, which sizes its table of per-call buffers
// (2 × 64); concurrent callers stay well under it.
constexpr int kMaxBlasCallers = 32;
// Covers underflow in the product and the per-pair kernel (both err by far less).
constexpr double kAbsoluteSlack = 1e-30;
// Dimensions up to which l2 assignment meets the centroids through the transposed kernel
// (simd::Kernels::l2_squared_transposed) instead of the product: with few dimensions, scanning
// and rescoring the product's candidates costs more than the arithmetic it saves (a PQ
// sub-vector of 8 floats against 256 codebook entries). Measured on 65,536 points against 256
// centroids, one thread: 8.9 / 21.3 / 41.0 ms at 8 / 32 / 48 dimensions, the product 19.2 /
// 27.7 / 31.2 ms.
constexpr int kTransposedMaxDim = 32;

std::mutex& BlasMutex() {
  static std::mutex mutex;
  return mutex;
}

// out (rows × k, row-major) = block (rows × dim) · centroidsᵀ (centroids: k × dim), by OpenBLAS
// on one thread of its own inside tessera's (openblas.h).
arrow::Status MultiplyTransposed(const float* block, int64_t rows, const float* centroids, int k,
                                 int dim, float* out) {
  ARROW_ASSIGN_OR_RAISE(const OpenBlas* blas, LoadOpenBlas());
  auto multiply = [&] {
    blas->sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows), k, dim, 1.0f,
                block, dim, centroids, dim, 0.0f, out, k);
  };
  if (blas->needs_lock) {
    std::lock_guard<std::mutex> lock(BlasMutex());
    multiply();
  } else {
    multiply();
  }
  return arrow::Status::OK();
}

// |vector|² in eight float lanes (a form the compiler vectorizes), added up in double. Used
// for bounds only, which tolerate its rounding.
double SquaredNorm(const float* vector, int dim) {
  float lanes[8] = {};
  int d = 0;
  for (; d + 8 <= dim; d += 8) {
    for (int j = 0; j < 8; ++j) lanes[j] += vector[d + j] * vector[d + j];
  }
  double sum = 0;
  for (; d < dim; ++d) sum += static_cast<double>(vector[d]) * vector[d];
  for (float lane : lanes) sum += lane;
  return sum;
}

// The `rank`-th smallest (1-based, rank <= count) of `values`, through a max-heap of the rank
// smallest seen so far; `heap` is scratch.
float RankthSmallest(const float* values, int count, int rank, std::vector<float>& heap) {
  heap.assign(values, values + rank);
  std::make_heap(heap.begin(), heap.end());
  for (int i = rank; i < count; ++i) {
    if (values[i] < heap.front()) {
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = values[i];
      std::push_heap(heap.begin(), heap.end());
    }
  }
  return heap.front();
}

// The centroids as the product sees them, with what the candidate bound needs.
//
// A point x meets the centroids through one product row p = x'·C'ᵀ, turned in place into
// approximate scores: l2 t(c) = |c'|² - 2·p(c), which orders like |x' - c'|² (|x'|² is the
// same for every c), on coordinates shifted by the centroids' mean (x' = x - shift, c' = c -
// shift: distances do not change, magnitudes shrink); cosine and dot t(c) = -p(c).
//
// The bound, with u = 2^-24 and n = |x'|² + |c'|²: the error of t(c) (+ |x'|²) against the
// exact squared distance or negated inner product is at most (dim + 8)·u·n for l2 (shift
// rounding, product, the float forms of |c'|² and of the difference) and dim/2·u·n for cosine
// and dot; that of AssignmentScore at most 2(dim + 2)·u·n for l2 (a sum of squared
// differences, whatever its order, FMA or not) and dim/2·u·n for cosine and dot. So with
// e = (3·dim + 12)·u·(|x'|² + max_c |c'|²), every centroid whose AssignmentScore is the
// smallest (or among the `count` smallest) has t within 2e of the smallest (or the
// `count`-th smallest) t. The slack used is 2·relative_slack·(|x'|² + max_c |c'|²) with
// relative_slack = max(1e-3, 8·(dim + 4)·u) > (3·dim + 12)·u, plus kAbsoluteSlack.
// Magnitudes stay below kScaleLimit, so nothing overflows.
struct PreparedCentroids {
  Metric metric = Metric::kL2;
  int k = 0;
  int dim = 0;
  const float* original = nullptr;  // what AssignmentScore sees
  const float* product = nullptr;   // what the product sees: shifted by `shift` for l2
  std::vector<float> shifted;
  std::vector<float> shift;
  std::vector<float> norms;  // l2: |c'|² of the `product` rows
  double max_norm = 0;
  double relative_slack = 0;
  bool per_pair_only = false;  // a centroid is too large or not finite for the product

  PreparedCentroids(Metric metric_in, const float* centroids, int k_in, int dim_in)
      : metric(metric_in), k(k_in), dim(dim_in), original(centroids), product(centroids) {
    relative_slack = std::max(1e-3, 4.0 * (dim + 4) * static_cast<double>(FLT_EPSILON));
    const size_t values = static_cast<size_t>(k) * dim;
    for (size_t i = 0; i < values; ++i) {
      if (!std::isfinite(centroids[i])) {
        per_pair_only = true;
        return;
      }
    }
    if (metric == Metric::kL2) {
      std::vector<double> mean(static_cast<size_t>(dim), 0.0);
      for (int c = 0; c < k; ++c) {
        const float* centroid = centroids + static_cast<size_t>(c) * dim;
        for (int d = 0; d < dim; ++d) mean[d] += centroid[d];
      }
      shift.resize(static_cast<size_t>(dim));
      for (int d = 0; d < dim; ++d) shift[d] = static_cast<float>(mean[d] / k);
      shifted.resize(values);
      for (size_t i = 0; i < values; ++i) shifted[i] = centroids[i] - shift[i % dim];
      product = shifted.data();
    }
    norms.resize(static_cast<size_t>(k));
    for (int c = 0; c < k; ++c) {
      double norm = 0;
      const float* row = product + static_cast<size_t>(c) * dim;
      for (int d = 0; d < dim; ++d) norm += static_cast<double>(row[d]) * row[d];
      max_norm = std::max(max_norm, norm);
      norms[c] = static_cast<float>(norm);
    }
    if (!(max_norm < kScaleLimit)) per_pair_only = true;
  }

  // The block's rows as the product sees them: shifted into `scratch` for l2.
  const float* ProductRows(const float* rows, int64_t count, std::vector<float>& scratch) const {
    if (metric != Metric::kL2) return rows;
    scratch.resize(static_cast<size_t>(count) * dim);
    for (int64_t r = 0; r < count; ++r) {
      const float* row = rows + r * dim;
      float* out = scratch.data() + r * dim;
      for (int d = 0; d < dim; ++d) out[d] = row[d] - shift[d];
    }
    return scratch.data();
  }

  // Turns a product row into approximate scores t, in place.
  void ToApproximateScores(float* row) const {
    if (metric == Metric::kL2) {
      for (int c = 0; c < k; ++c) row[c] = norms[c] - 2.0f * row[c];
    } else {
      for (int c = 0; c < k; ++c) row[c] = -row[c];
    }
  }

  // How far above the smallest (or `count`-th smallest) t a candidate may lie.
  double Slack(double row_norm) const {
    return 2.0 * relative_slack * (row_norm + max_norm) + kAbsoluteSlack;
  }

  const float* Centroid(int c) const { return original + static_cast<size_t>(c) * dim; }
};

float ProbeScore(const PreparedCentroids& centroids, const float* query, int c) {
  const float score =
      AssignmentScore(centroids.metric, query, centroids.Centroid(c), centroids.dim);
  return std::isnan(score) ? INFINITY : score;
}

// IvfModel::Probe's answer over all centroids, by the per-pair kernel.
void ExactTop(const PreparedCentroids& centroids, const float* query, int width,
              std::vector<std::pair<float, int>>& scratch, int32_t* out) {
  scratch.resize(static_cast<size_t>(centroids.k));
  for (int c = 0; c < centroids.k; ++c) scratch[c] = {ProbeScore(centroids, query, c), c};
  std::partial_sort(scratch.begin(), scratch.begin() + width, scratch.end());
  for (int i = 0; i < width; ++i) out[i] = scratch[i].second;
}

int64_t BlockRows(int k) { return std::clamp(kBlockFloats / k, kMinBlockRows, kMaxBlockRows); }

int BlasThreads(int max_threads) {
  const int threads = max_threads <= 0 ? util::NumThreads() : max_threads;
  return std::min(threads, kMaxBlasCallers);
}

arrow::Status CheckShape(const char* what, int64_t n, int k, int dim) {
  if (n < 0 || k < 1 || dim < 1) {
    return InvalidArgument(what, " needs n >= 0 points, k >= 1 centroids and dim >= 1, got n=", n,
                           ", k=", k, ", dim=", dim);
  }
  return arrow::Status::OK();
}

// Runs block(first_row, rows, approximate, row_norms) over blocks of points in parallel:
// `approximate` holds the block's approximate scores t (rows × k), row_norms the squared norms
// of its rows as the product saw them (NaN, or kScaleLimit and above: use the per-pair scan).
template <typename BlockFn>
arrow::Status ForEachBlock(const PreparedCentroids& centroids, const float* points, int64_t n,
                           int max_threads, const BlockFn& block) {
  const int64_t block_rows = BlockRows(centroids.k);
  const int64_t num_blocks = (n + block_rows - 1) / block_rows;
  const int dim = centroids.dim;
  const int k = centroids.k;
  return util::ParallelFor(
      num_blocks,
      [&](int64_t first_block, int64_t end_block) {
        std::vector<float> shifted;
        std::vector<float> approximate;
        std::vector<double> row_norms;
        for (int64_t b = first_block; b < end_block; ++b) {
          const int64_t first = b * block_rows;
          const int64_t rows = std::min(block_rows, n - first);
          const float* block_points = points + first * dim;
          row_norms.assign(static_cast<size_t>(rows), std::numeric_limits<double>::quiet_NaN());
          if (!centroids.per_pair_only) {
            const float* product_rows = centroids.ProductRows(block_points, rows, shifted);
            approximate.resize(static_cast<size_t>(rows) * k);
            ARROW_RETURN_NOT_OK(MultiplyTransposed(product_rows, rows, centroids.product, k, dim,
                                                   approximate.data()));
            for (int64_t r = 0; r < rows; ++r) {
              row_norms[r] = SquaredNorm(product_rows + r * dim, dim);
              centroids.ToApproximateScores(approximate.data() + r * k);
            }
          }
          block(first, rows, approximate.data(), row_norms.data());
        }
        return arrow::Status::OK();
      },
      1, BlasThreads(max_threads));
}

bool UsesProduct(double row_norm) { return row_norm < kScaleLimit; }  // false for NaN

// The indexes c with row[c] <= limit, increasing, into scratch[0..returned count).
int64_t Candidates(const float* row, int k, double limit, std::vector<int32_t>& scratch) {
  // A float no smaller than `limit`: no candidate is lost to rounding.
  const float bound = std::nextafter(static_cast<float>(limit), INFINITY);
  scratch.resize(static_cast<size_t>(k));
  return simd::ActiveKernels().indexes_at_most(row, k, bound, scratch.data());
}

// NearestCentroid's answer among the candidates c with row[c] <= limit, which hold it by
// construction: the one with the smallest AssignmentScore, ties to the lowest index; that
// score into *score. A lone candidate is the answer: it is rescored only when *score is wanted.
int NearestCandidate(Metric metric, const float* point, const float* centroids, int dim,
                     const float* row, int k, double limit, std::vector<int32_t>& scratch,
                     float* score) {
  const int64_t found = Candidates(row, k, limit, scratch);
  if (found == 1 && score == nullptr) return scratch[0];
  int best = -1;
  float best_score = INFINITY;
  for (int64_t i = 0; i < found; ++i) {
    const int c = scratch[i];
    const float candidate =
        AssignmentScore(metric, point, centroids + static_cast<size_t>(c) * dim, dim);
    if (best < 0 || candidate < best_score) {
      best = c;
      best_score = candidate;
    }
  }
  if (score != nullptr) *score = best_score;
  return best;
}

// AssignNearest for l2 and few dimensions. The transposed kernel's sums T(c) hold the same
// rounded differences δ_d = x_d − c_d as AssignmentScore's sums S(c), added in another order:
// both are sums of `dim` non-negative terms, each within (dim + 2)·u·Σδ² of the exact sum
// (u = 2^-24), so a centroid whose S is the smallest has T <= T_min·(1 + 4(dim + 2)·u / (1 − …)).
// The limit used, T_min·(1 + 8(dim + 4)·u) plus an absolute term for underflow, is above that;
// the few centroids under it are rescored with AssignmentScore. A point whose T_min is not a
// finite number (a non-finite coordinate, an overflowing difference) takes the per-pair scan.
arrow::Status AssignNearestTransposed(const float* points, int64_t n, const float* centroids, int k,
                                      int dim, int32_t* ids, float* scores, int max_threads) {
  std::vector<float> columns(static_cast<size_t>(k) * dim);
  TransposeRows(centroids, k, dim, columns.data());
  const double relative = 8.0 * (dim + 4) * static_cast<double>(FLT_EPSILON) / 2;
  const simd::Kernels& kernels = simd::ActiveKernels();
  return util::ParallelFor(
      n,
      [&](int64_t begin, int64_t end) {
        std::vector<float> sums(static_cast<size_t>(k));
        std::vector<int32_t> candidates;
        for (int64_t i = begin; i < end; ++i) {
          const float* point = points + i * dim;
          const float smallest =
              kernels.l2_squared_transposed(point, columns.data(), k, k, dim, sums.data());
          float* score = scores != nullptr ? scores + i : nullptr;
          ids[i] = smallest < INFINITY
                       ? NearestCandidate(Metric::kL2, point, centroids, dim, sums.data(), k,
                                          smallest * (1.0 + relative) + kAbsoluteSlack, candidates,
                                          score)
                       : NearestCentroid(Metric::kL2, point, centroids, k, dim, score);
        }
        return arrow::Status::OK();
      },
      64, max_threads);
}

}  // namespace

int TopNearestWidth(int count, int k) { return std::clamp(count, 0, std::max(k, 0)); }

void TransposeRows(const float* rows, int64_t count, int dim, float* out) {
  for (int64_t c = 0; c < count; ++c) {
    for (int d = 0; d < dim; ++d) out[d * count + c] = rows[c * dim + d];
  }
}

arrow::Status AssignNearest(Metric metric, const float* points, int64_t n, const float* centroids,
                            int k, int dim, int32_t* ids, float* scores, int max_threads) {
  ARROW_RETURN_NOT_OK(CheckShape("AssignNearest", n, k, dim));
  if (n == 0) return arrow::Status::OK();
  // Without FMA instructions (the scalar level) the transposed kernel's fused multiply-adds run
  // in software: the product is faster there.
  if (metric == Metric::kL2 && dim <= kTransposedMaxDim &&
      simd::ActiveKernels().level >= simd::Level::kAvx2 &&
      std::all_of(centroids, centroids + static_cast<size_t>(k) * dim,
                  [](float value) { return std::isfinite(value); })) {
    return AssignNearestTransposed(points, n, centroids, k, dim, ids, scores, max_threads);
  }
  const PreparedCentroids prepared(metric, centroids, k, dim);
  return ForEachBlock(
      prepared, points, n, max_threads,
      [&](int64_t first, int64_t rows, const float* approximate, const double* row_norms) {
        std::vector<int32_t> candidates;
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = first + r;
          const float* point = points + i * dim;
          float* score = scores != nullptr ? scores + i : nullptr;
          if (!UsesProduct(row_norms[r])) {
            ids[i] = NearestCentroid(metric, point, centroids, k, dim, score);
          } else {
            const float* row = approximate + r * k;
            const double limit =
                simd::ActiveKernels().smallest(row, k) + prepared.Slack(row_norms[r]);
            ids[i] =
                NearestCandidate(metric, point, centroids, dim, row, k, limit, candidates, score);
          }
        }
      });
}

arrow::Status TopNearest(Metric metric, const float* queries, int64_t n, const float* centroids,
                         int k, int dim, int count, int32_t* ids, int max_threads) {
  ARROW_RETURN_NOT_OK(CheckShape("TopNearest", n, k, dim));
  const int width = TopNearestWidth(count, k);
  if (n == 0 || width == 0) return arrow::Status::OK();
  const PreparedCentroids prepared(metric, centroids, k, dim);
  if (width == k) {
    // Every centroid is in the answer: the product would not save a single rescoring.
    return util::ParallelFor(
        n,
        [&](int64_t begin, int64_t end) {
          std::vector<std::pair<float, int>> scratch;
          for (int64_t i = begin; i < end; ++i) {
            ExactTop(prepared, queries + i * dim, width, scratch, ids + i * width);
          }
          return arrow::Status::OK();
        },
        16, max_threads);
  }
  return ForEachBlock(
      prepared, queries, n, max_threads,
      [&](int64_t first, int64_t rows, const float* approximate, const double* row_norms) {
        std::vector<float> heap;
        std::vector<int32_t> indexes;
        std::vector<std::pair<float, int>> candidates;
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = first + r;
          const float* query = queries + i * dim;
          int32_t* out = ids + i * width;
          if (!UsesProduct(row_norms[r])) {
            ExactTop(prepared, query, width, candidates, out);
            continue;
          }
          const float* row = approximate + r * k;
          const double limit = RankthSmallest(row, k, width, heap) + prepared.Slack(row_norms[r]);
          candidates.clear();
          const int64_t found = Candidates(row, k, limit, indexes);
          for (int64_t j = 0; j < found; ++j) {
            candidates.emplace_back(ProbeScore(prepared, query, indexes[j]), indexes[j]);
          }
          std::partial_sort(candidates.begin(), candidates.begin() + width, candidates.end());
          for (int j = 0; j < width; ++j) out[j] = candidates[j].second;
        }
      });
}

}  // namespace tessera::index::vector
