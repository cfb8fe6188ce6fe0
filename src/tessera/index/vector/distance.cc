#include "tessera/index/vector/distance.h"

#include <cmath>
#include <string>

#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"

namespace tessera::index::vector {

arrow::Result<Metric> ParseMetric(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "l2" || lower == "euclidean") return Metric::kL2;
  if (lower == "cosine") return Metric::kCosine;
  if (lower == "dot") return Metric::kDot;
  return InvalidArgument("unknown metric '", text, "'; use l2, cosine or dot");
}

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kL2:
      return "l2";
    case Metric::kCosine:
      return "cosine";
    case Metric::kDot:
      return "dot";
  }
  return "l2";
}

// The kernel table is looked up once: every call in the process then runs the same level's
// code, which is what keeps equal inputs bit-equal across search paths.
float L2Squared(const float* a, const float* b, int dim) {
  static const simd::Kernels* const kernels = &simd::ActiveKernels();
  return kernels->l2_squared(a, b, dim);
}

float InnerProduct(const float* a, const float* b, int dim) {
  static const simd::Kernels* const kernels = &simd::ActiveKernels();
  return kernels->inner_product(a, b, dim);
}

float Distance(Metric metric, const float* a, const float* b, int dim) {
  return QueryDistance(metric, a, dim)(b);
}

}  // namespace tessera::index::vector
