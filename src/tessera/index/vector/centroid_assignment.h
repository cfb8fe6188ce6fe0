// Batch centroid assignment: NearestCentroid and IvfModel::Probe for many points at once, with
// the bulk of the arithmetic done as one matrix product (OpenBLAS sgemm) per block of points,
// or, for l2 in at most 32 dimensions (PQ sub-vectors against their codebooks) on a CPU with
// FMA (SIMD level AVX2 and up), by the transposed kernel (simd::Kernels::l2_squared_transposed),
// which meets 16 centroids per instruction without the product's candidate scan.
//
// Exactness: the answers are bit-equal to the per-point functions. AssignNearest gives, for
// every point, the index and score NearestCentroid (kmeans.h) gives, and TopNearest the list
// IvfModel::Probe gives. So a point's answer depends on the point and the centroids alone: not
// on n, its position in the batch or the thread count. The product (or the transposed kernel)
// only chooses candidates: it rounds differently from the per-pair kernel (the product also
// differently by tile position), so every centroid whose approximate score lies within a
// proven error bound of the best (or of the `count`-th best) is rescored with
// AssignmentScore, and the answer is taken from those exact scores, ties to the lowest index
// (the bounds are derived in centroid_assignment.cc); a lone candidate needs no rescoring
// when no score is asked for. On the product path, points whose magnitude could overflow float
// arithmetic (|x|² >= 1e30, non-finite values), and all points when a centroid is such, take the
// per-pair scan instead; on the transposed path, points whose smallest sum is not a finite
// number, and all points when a centroid is not finite.
//
// Threads: blocks of points run in parallel on util::ParallelFor (at most `max_threads`, 0:
// util::NumThreads()). OpenBLAS is loaded at first use (openblas.h) and set to one thread of its
// own (openblas_set_num_threads(1)) for the whole process: the parallelism is tessera's. Calls into
// the serial OpenBLAS build (not reentrant unless built with USE_LOCKING) are serialized by a lock;
// the pthread build, Debian's default, takes concurrent calls. An OpenMP build ignores
// openblas_set_num_threads in favour of OMP_NUM_THREADS: answers stay exact, threads multiply.
#pragma once

#include <arrow/status.h>

#include <cstdint>

#include "tessera/index/vector/distance.h"

namespace tessera::index::vector {

// For each of the `n` points (row-major n × dim): ids[i] = NearestCentroid(metric, point i,
// centroids, k, dim, &scores[i]). `scores` may be null. InvalidArgument unless k >= 1, dim >= 1
// and n >= 0.
arrow::Status AssignNearest(Metric metric, const float* points, int64_t n, const float* centroids,
                            int k, int dim, int32_t* ids, float* scores = nullptr,
                            int max_threads = 0);

// For each of the `n` queries the min(count, k) nearest centroids, nearest first (ties: lowest
// index first), written to ids[i × width .. (i + 1) × width) with width = TopNearestWidth(count,
// k): the list IvfModel::Probe(query, count) returns. A NaN score counts as +infinity.
// InvalidArgument unless k >= 1, dim >= 1 and n >= 0; count < 0 counts as 0.
arrow::Status TopNearest(Metric metric, const float* queries, int64_t n, const float* centroids,
                         int k, int dim, int count, int32_t* ids, int max_threads = 0);

// The number of ids TopNearest writes per query: min(max(count, 0), k).
int TopNearestWidth(int count, int k);

// `count` vectors of `dim` floats (row-major) dimension-major into out (dim × count): the
// layout of the transposed kernels (simd::Kernels::l2_squared_transposed).
void TransposeRows(const float* rows, int64_t count, int dim, float* out);

}  // namespace tessera::index::vector
