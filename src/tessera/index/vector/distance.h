// Distances between float32 vectors, as tessera defines them (docs/design.md, "Query semantics"):
// float32, smaller is closer. l2 is the squared Euclidean distance, cosine is 1 − cosine
// similarity, dot is the negated inner product. Every search path — index segments and the exact
// scan of unindexed fragments — computes distances with these functions, so within one process
// equal inputs give bit-equal distances and ties break identically (by row address). The sums run
// on the SIMD kernels of simd::ActiveLevel() (index/vector/simd/kernels.h), fixed for the life of
// the process; another CPU or TESSERA_SIMD value may round the last bits differently.
#pragma once

#include <arrow/result.h>

#include <cmath>
#include <string_view>

namespace tessera::index::vector {

enum class Metric { kL2, kCosine, kDot };

// "l2" | "cosine" | "dot" (case-insensitive); InvalidArgument otherwise.
arrow::Result<Metric> ParseMetric(std::string_view text);
std::string_view MetricName(Metric metric);

float L2Squared(const float* a, const float* b, int dim);
float InnerProduct(const float* a, const float* b, int dim);
// The metric's distance; cosine with a zero vector is 1 (no similarity).
float Distance(Metric metric, const float* a, const float* b, int dim);

// Distance(metric, query, row, dim) for one query and many rows, bit for bit, with what depends
// on the query alone (its norm, for cosine) computed once.
class QueryDistance {
 public:
  QueryDistance(Metric metric, const float* query, int dim)
      : metric_(metric),
        query_(query),
        dim_(dim),
        query_norm_(metric == Metric::kCosine ? std::sqrt(InnerProduct(query, query, dim)) : 0) {}

  float operator()(const float* row) const {
    switch (metric_) {
      case Metric::kL2:
        return L2Squared(query_, row, dim_);
      case Metric::kDot:
        return -InnerProduct(query_, row, dim_);
      case Metric::kCosine:
        break;
    }
    // Distance's expression, term for term.
    const float norms = query_norm_ * std::sqrt(InnerProduct(row, row, dim_));
    if (norms == 0.0f) return 1.0f;
    return 1.0f - InnerProduct(query_, row, dim_) / norms;
  }

 private:
  Metric metric_;
  const float* query_;
  int dim_;
  float query_norm_;
};

}  // namespace tessera::index::vector
