#include "tessera/index/vector/ivf_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the IVF model format is little-endian; add byte swapping for this platform");

constexpr char kMagic[8] = {'T', 'S', 'I', 'V', 'F', 'M', 'D', 'L'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = sizeof(kMagic) + 4 * sizeof(uint32_t);

void AppendU32(std::string& out, uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

uint32_t ReadU32(const char* at) {
  uint32_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

uint32_t MetricCode(Metric metric) {
  switch (metric) {
    case Metric::kL2:
      return 0;
    case Metric::kCosine:
      return 1;
    case Metric::kDot:
      return 2;
  }
  return 0;
}

}  // namespace

arrow::Result<IvfModel> IvfModel::Make(Metric metric, int dim, std::vector<float> centroids) {
  if (dim < 1 || centroids.empty() || centroids.size() % static_cast<size_t>(dim) != 0) {
    return InvalidArgument("an IVF model needs at least one centroid of dimension ", dim, ", got ",
                           centroids.size(), " values");
  }
  const size_t partitions = centroids.size() / static_cast<size_t>(dim);
  if (partitions > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgument("an IVF model has at most ", INT32_MAX, " partitions");
  }
  IvfModel model;
  model.metric_ = metric;
  model.dim_ = dim;
  model.num_partitions_ = static_cast<int>(partitions);
  model.centroids_ = std::move(centroids);
  return model;
}

std::string IvfModel::Serialize() const {
  std::string bytes(kMagic, sizeof(kMagic));
  AppendU32(bytes, kFormatVersion);
  AppendU32(bytes, MetricCode(metric_));
  AppendU32(bytes, static_cast<uint32_t>(dim_));
  AppendU32(bytes, static_cast<uint32_t>(num_partitions_));
  bytes.append(reinterpret_cast<const char*>(centroids_.data()), centroids_.size() * sizeof(float));
  AppendU32(bytes, io::Crc32c(bytes.data(), bytes.size()));
  return bytes;
}

bool IvfModel::HasMagic(std::string_view bytes) {
  return bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0;
}

arrow::Result<IvfModel> IvfModel::Deserialize(std::string_view bytes, std::string_view what) {
  if (bytes.size() < kHeaderSize + sizeof(uint32_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return Corrupt(what, " is not an IVF model (", bytes.size(), " bytes, bad header)");
  }
  const char* data = bytes.data();
  const size_t body = bytes.size() - sizeof(uint32_t);
  if (io::Crc32c(data, body) != ReadU32(data + body)) {
    return Corrupt(what, " fails its checksum: the IVF model is damaged");
  }
  const uint32_t version = ReadU32(data + 8);
  const uint32_t metric_code = ReadU32(data + 12);
  const uint32_t dim = ReadU32(data + 16);
  const uint32_t partitions = ReadU32(data + 20);
  if (version != kFormatVersion) {
    return Corrupt(what, " has IVF model format version ", version, "; this build reads version ",
                   kFormatVersion);
  }
  if (metric_code > 2) return Corrupt(what, " names an unknown metric code ", metric_code);
  const Metric metric = metric_code == 0   ? Metric::kL2
                        : metric_code == 1 ? Metric::kCosine
                                           : Metric::kDot;
  if (dim == 0 || partitions == 0 || dim > INT32_MAX || partitions > INT32_MAX ||
      (body - kHeaderSize) != static_cast<uint64_t>(dim) * partitions * sizeof(float)) {
    return Corrupt(what, " holds ", body - kHeaderSize, " bytes of centroids, which do not fit ",
                   partitions, " partitions of dimension ", dim);
  }
  std::vector<float> centroids(static_cast<size_t>(dim) * partitions);
  std::memcpy(centroids.data(), data + kHeaderSize, centroids.size() * sizeof(float));
  return Make(metric, static_cast<int>(dim), std::move(centroids));
}

std::string IvfModel::FingerprintOf(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) text[i] = kHex[hash & 0xf];
  return text;
}

std::vector<float> IvfModel::Residuals(const float* vectors, const int32_t* partitions,
                                       int64_t count) const {
  std::vector<float> residuals(static_cast<size_t>(count) * dim_);
  for (int64_t i = 0; i < count; ++i) {
    const float* centroid = centroids_.data() + static_cast<size_t>(partitions[i]) * dim_;
    for (int d = 0; d < dim_; ++d) residuals[i * dim_ + d] = vectors[i * dim_ + d] - centroid[d];
  }
  return residuals;
}

// AssignNearest answers exactly as NearestCentroid does, so Assign and AssignBatch agree.
int IvfModel::Assign(const float* vector) const {
  return NearestCentroid(metric_, vector, centroids_.data(), num_partitions_, dim_);
}

arrow::Status IvfModel::AssignBatch(const float* vectors, int64_t n, int32_t* partitions,
                                    int max_threads) const {
  return AssignNearest(metric_, vectors, n, centroids_.data(), num_partitions_, dim_, partitions,
                       nullptr, max_threads);
}

arrow::Result<std::vector<std::vector<int>>> IvfModel::ProbeBatch(const float* queries, int64_t n,
                                                                  int count,
                                                                  int max_threads) const {
  std::vector<std::vector<int>> result;
  if (n <= 0) return result;
  const int width = TopNearestWidth(count, num_partitions_);
  std::vector<int32_t> ids(static_cast<size_t>(n) * width);
  ARROW_RETURN_NOT_OK(TopNearest(metric_, queries, n, centroids_.data(), num_partitions_, dim_,
                                 count, ids.data(), max_threads));
  result.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    result[i].assign(ids.begin() + i * width, ids.begin() + (i + 1) * width);
  }
  return result;
}

std::vector<int> IvfModel::Probe(const float* query, int count) const {
  count = std::clamp(count, 0, num_partitions_);
  // AssignmentScore of every centroid, through the batch kernels (bit-equal to it per row).
  std::vector<float> scores(static_cast<size_t>(num_partitions_));
  const simd::Kernels& kernels = simd::ActiveKernels();
  if (metric_ == Metric::kL2) {
    kernels.l2_squared_batch(query, centroids_.data(), num_partitions_, dim_, scores.data());
  } else {
    kernels.inner_product_batch(query, centroids_.data(), num_partitions_, dim_, scores.data());
    for (float& score : scores) score = -score;
  }
  for (float& score : scores) {
    if (std::isnan(score)) score = INFINITY;
  }
  std::vector<int> order(static_cast<size_t>(num_partitions_));
  std::iota(order.begin(), order.end(), 0);
  auto nearer = [&](int a, int b) {
    return scores[a] < scores[b] || (scores[a] == scores[b] && a < b);
  };
  std::partial_sort(order.begin(), order.begin() + count, order.end(), nearer);
  order.resize(static_cast<size_t>(count));
  return order;
}

}  // namespace tessera::index::vector
