#include "tessera/index/vector/rabit_quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/random_rotation.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

constexpr size_t kRabitHeaderWords = 3;
constexpr int kGroupTableEntries = 256;  // partial sums of a group of 8 coordinates
// Rows scored per pass: their bit planes gathered contiguously for pq_adc_batch stay in cache.
constexpr int64_t kScoreChunk = 256;
// The most memory the rotated centroids of one segment may take (l2): 64 MiB.
constexpr size_t kMaxRotatedCentroidBytes = size_t{64} << 20;
// Candidate scales of the rounding grid for B ≥ 2, as multiples of the scale that maps the
// largest coordinate to the edge of the top level: rotated coordinates are close to Gaussian,
// and the best uniform grid for a Gaussian clips its tails (from 2.0 at B = 2 to 0.9 at B = 8).
constexpr int kScaleCandidates = 24;
constexpr double kSmallestScale = 0.5;
constexpr double kLargestScale = 2.5;

int PaddedDimension(int dim) { return (dim + 7) / 8 * 8; }

// The levels u (0 ≤ u < 2^bits) of one rotated residual, written as bit planes into `code`
// (bits × padded_dim / 8 bytes, zeroed by the caller); returns ⟨y, rotated⟩, y = u − h.
double QuantizeRotated(const float* rotated, int padded_dim, int bits, std::vector<int>& levels,
                       uint8_t* code) {
  const double h = ((1 << bits) - 1) / 2.0;
  levels.resize(static_cast<size_t>(padded_dim));
  if (bits == 1) {
    for (int d = 0; d < padded_dim; ++d) levels[d] = rotated[d] >= 0.0f ? 1 : 0;
  } else {
    double largest = 0;
    for (int d = 0; d < padded_dim; ++d) largest = std::max(largest, std::fabs(double{rotated[d]}));
    // The scale t whose grid y_d = clamp(⌊t · rotated_d⌋ + ½, −h, h) is closest in angle to the
    // rotated residual.
    double best_cosine = -1;
    double best_scale = (h + 0.5) / largest;
    for (int k = 0; k < kScaleCandidates; ++k) {
      const double s = kSmallestScale * std::pow(kLargestScale / kSmallestScale,
                                                 static_cast<double>(k) / (kScaleCandidates - 1));
      const double t = s * (h + 0.5) / largest;
      double dot = 0;
      double norm = 0;
      for (int d = 0; d < padded_dim; ++d) {
        const double y = std::clamp(std::floor(t * rotated[d]) + 0.5, -h, h);
        dot += y * rotated[d];
        norm += y * y;
      }
      const double cosine = dot / std::sqrt(norm);
      if (cosine > best_cosine) {
        best_cosine = cosine;
        best_scale = t;
      }
    }
    for (int d = 0; d < padded_dim; ++d) {
      const double y = std::clamp(std::floor(best_scale * rotated[d]) + 0.5, -h, h);
      levels[d] = static_cast<int>(y + h);
    }
  }
  const int plane_bytes = padded_dim / 8;
  double dot = 0;
  for (int d = 0; d < padded_dim; ++d) {
    dot += (levels[d] - h) * rotated[d];
    for (int b = 0; b < bits; ++b) {
      if ((levels[d] >> b) & 1) code[b * plane_bytes + d / 8] |= static_cast<uint8_t>(1 << (d % 8));
    }
  }
  return dot;
}

}  // namespace

class RabitQueryScorer final : public QueryScorer {
 public:
  RabitQueryScorer(const RabitQuantizer& rq, const IvfModel& ivf, const float* query)
      : rq_(rq), ivf_(ivf), query_(query, query + ivf.dim()) {
    rotated_query_.resize(static_cast<size_t>(rq.padded_dim()));
    rq.Rotate(query, rotated_query_.data());
    table_.resize(static_cast<size_t>(rq.plane_bytes()) * kGroupTableEntries);
    if (ivf.metric() != Metric::kL2) BuildTable(rotated_query_.data());
  }

  void Score(int partition, const uint8_t* codes, int64_t count, float* out) override {
    const int dim = ivf_.dim();
    const float* centroid = ivf_.centroids().data() + static_cast<size_t>(partition) * dim;
    const bool l2 = ivf_.metric() == Metric::kL2;
    float bias = 0;
    if (l2) {
      if (partition != table_partition_) {
        // The table of R(q − c_p) = Rq − Rc_p.
        const int padded = rq_.padded_dim();
        residual_.resize(static_cast<size_t>(padded));
        const float* rotated_centroid;
        if (!rq_.rotated_centroids_.empty()) {
          rotated_centroid =
              rq_.rotated_centroids_.data() + static_cast<size_t>(partition) * padded;
        } else {
          rotated_centroid_.resize(static_cast<size_t>(padded));
          rq_.Rotate(centroid, rotated_centroid_.data());
          rotated_centroid = rotated_centroid_.data();
        }
        for (int d = 0; d < padded; ++d) residual_[d] = rotated_query_[d] - rotated_centroid[d];
        query_norm_ =
            simd::ActiveKernels().inner_product(residual_.data(), residual_.data(), padded);
        BuildTable(residual_.data());
        table_partition_ = partition;
      }
    } else {
      bias = -simd::ActiveKernels().inner_product(query_.data(), centroid, dim);
      if (ivf_.metric() == Metric::kCosine) bias += 1.0f;
    }
    const int bits = rq_.bits();
    const int plane_bytes = rq_.plane_bytes();
    const int code_size = rq_.code_size();
    const float h = static_cast<float>(((1 << bits) - 1) / 2.0);
    planes_.resize(static_cast<size_t>(kScoreChunk) * plane_bytes);
    sums_.resize(static_cast<size_t>(kScoreChunk));
    for (int64_t first = 0; first < count; first += kScoreChunk) {
      const int64_t rows = std::min(kScoreChunk, count - first);
      const uint8_t* chunk = codes + first * code_size;
      float* dots = out + first;  // Σ_b 2^b · (plane b's sum), then ⟨y, w⟩
      for (int b = 0; b < bits; ++b) {
        for (int64_t i = 0; i < rows; ++i) {
          std::memcpy(planes_.data() + i * plane_bytes, chunk + i * code_size + b * plane_bytes,
                      static_cast<size_t>(plane_bytes));
        }
        float* target = b == 0 ? dots : sums_.data();
        simd::ActiveKernels().pq_adc_batch(planes_.data(), rows, plane_bytes, table_.data(),
                                           target);
        if (b > 0) {
          const float weight = static_cast<float>(1 << b);
          for (int64_t i = 0; i < rows; ++i) dots[i] += weight * sums_[i];
        }
      }
      for (int64_t i = 0; i < rows; ++i) {
        float factors[2];  // ‖r‖², a
        std::memcpy(factors, chunk + i * code_size + bits * plane_bytes, sizeof(factors));
        const float dot = dots[i] - h * table_sum_;
        dots[i] = l2 ? factors[0] + query_norm_ - 2.0f * factors[1] * dot : bias - factors[1] * dot;
      }
    }
  }

 private:
  // table_[g · 256 + v] = Σ of w_{8g+i} over the bits i set in v; table_sum_ = Σ_d w_d.
  void BuildTable(const float* w) {
    const int groups = rq_.plane_bytes();
    double sum = 0;
    for (int g = 0; g < groups; ++g) {
      float* table = table_.data() + static_cast<size_t>(g) * kGroupTableEntries;
      table[0] = 0.0f;
      for (int i = 0; i < 8; ++i) {
        const float value = w[8 * g + i];
        sum += value;
        const int half = 1 << i;
        for (int v = 0; v < half; ++v) table[half + v] = table[v] + value;
      }
    }
    table_sum_ = static_cast<float>(sum);
  }

  const RabitQuantizer& rq_;
  const IvfModel& ivf_;
  std::vector<float> query_;
  std::vector<float> rotated_query_;     // Rq
  std::vector<float> residual_;          // l2: R(q − c_p) of table_partition_
  std::vector<float> rotated_centroid_;  // l2 without precomputed centroids: Rc_p
  std::vector<float> table_;             // plane_bytes × 256
  float table_sum_ = 0;
  float query_norm_ = 0;  // l2: ‖R(q − c_p)‖²
  int table_partition_ = -1;
  std::vector<uint8_t> planes_;
  std::vector<float> sums_;
};

arrow::Result<RabitQuantizer> RabitQuantizer::Make(int dim, int bits, uint64_t seed) {
  if (dim < 1) return InvalidArgument("RaBitQ needs a dimension of at least 1, got ", dim);
  if (bits < kMinRabitBits || bits > kMaxRabitBits) {
    return InvalidArgument("RaBitQ takes ", kMinRabitBits, " to ", kMaxRabitBits,
                           " bits per dimension, got ", bits);
  }
  RabitQuantizer rq;
  rq.dim_ = dim;
  rq.padded_dim_ = PaddedDimension(dim);
  rq.bits_ = bits;
  rq.rotation_ = RandomOrthonormalColumns(rq.padded_dim_, dim, seed);
  return rq;
}

arrow::Result<RabitQuantizer> RabitQuantizer::Deserialize(std::string_view bytes, int dim,
                                                          std::string_view what) {
  uint32_t header[kRabitHeaderWords] = {0, 0, 0};
  if (bytes.size() >= sizeof(header)) std::memcpy(header, bytes.data(), sizeof(header));
  const size_t padded = static_cast<size_t>(PaddedDimension(dim));
  if (bytes.size() < sizeof(header) || header[0] != static_cast<uint32_t>(dim) ||
      header[1] != padded || header[2] < kMinRabitBits || header[2] > kMaxRabitBits ||
      bytes.size() != sizeof(header) + sizeof(float) * padded * static_cast<size_t>(dim)) {
    return Corrupt(what, " does not hold a RaBitQ quantizer of dimension ", dim, " (", bytes.size(),
                   " bytes, dimension ", header[0], ", padded to ", header[1], ", ", header[2],
                   " bits)");
  }
  RabitQuantizer rq;
  rq.dim_ = dim;
  rq.padded_dim_ = static_cast<int>(padded);
  rq.bits_ = static_cast<int>(header[2]);
  rq.rotation_.resize(padded * static_cast<size_t>(dim));
  std::memcpy(rq.rotation_.data(), bytes.data() + sizeof(header),
              sizeof(float) * rq.rotation_.size());
  for (float value : rq.rotation_) {
    if (!std::isfinite(value)) return Corrupt(what, " holds a non-finite rotation entry");
  }
  return rq;
}

std::string RabitQuantizer::Serialize() const {
  const uint32_t header[kRabitHeaderWords] = {static_cast<uint32_t>(dim_),
                                              static_cast<uint32_t>(padded_dim_),
                                              static_cast<uint32_t>(bits_)};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  bytes.append(reinterpret_cast<const char*>(rotation_.data()), rotation_.size() * sizeof(float));
  return bytes;
}

void RabitQuantizer::Rotate(const float* vector, float* rotated) const {
  simd::ActiveKernels().inner_product_batch(vector, rotation_.data(), padded_dim_, dim_, rotated);
}

arrow::Status RabitQuantizer::Encode(const IvfModel& ivf, const float* vectors,
                                     const int32_t* partitions, int64_t count,
                                     uint8_t* codes) const {
  if (count <= 0) return arrow::Status::OK();
  const size_t code_bytes = static_cast<size_t>(code_size());
  std::memset(codes, 0, code_bytes * static_cast<size_t>(count));
  // Each row's code depends on that row alone: any split over threads gives the same bytes.
  return util::ParallelFor(count, [&](int64_t begin, int64_t end) -> arrow::Status {
    std::vector<float> residual(static_cast<size_t>(dim_));
    std::vector<float> rotated(static_cast<size_t>(padded_dim_));
    std::vector<int> levels;
    for (int64_t i = begin; i < end; ++i) {
      const float* vector = vectors + i * dim_;
      const float* centroid = ivf.centroids().data() + static_cast<size_t>(partitions[i]) * dim_;
      for (int d = 0; d < dim_; ++d) residual[d] = vector[d] - centroid[d];
      const float norm =
          simd::ActiveKernels().inner_product(residual.data(), residual.data(), dim_);
      uint8_t* code = codes + static_cast<size_t>(i) * code_bytes;
      float factors[2] = {0.0f, 0.0f};  // ‖r‖², a: zeros for a row at its centroid
      if (norm > 0.0f) {
        Rotate(residual.data(), rotated.data());
        const double dot = QuantizeRotated(rotated.data(), padded_dim_, bits_, levels, code);
        factors[0] = norm;
        // ⟨y, Rr⟩ > 0: y has the sign of every coordinate it does not round to zero.
        factors[1] = dot > 0 ? static_cast<float>(norm / dot) : 0.0f;
      }
      std::memcpy(code + bits_ * plane_bytes(), factors, sizeof(factors));
    }
    return arrow::Status::OK();
  });
}

void RabitQuantizer::PrepareSearch(const IvfModel& ivf) {
  const size_t bytes = static_cast<size_t>(ivf.num_partitions()) * padded_dim_ * sizeof(float);
  if (ivf.metric() != Metric::kL2 || bytes > kMaxRotatedCentroidBytes) return;
  rotated_centroids_.resize(static_cast<size_t>(ivf.num_partitions()) * padded_dim_);
  for (int p = 0; p < ivf.num_partitions(); ++p) {
    Rotate(ivf.centroids().data() + static_cast<size_t>(p) * dim_,
           rotated_centroids_.data() + static_cast<size_t>(p) * padded_dim_);
  }
}

std::unique_ptr<QueryScorer> RabitQuantizer::Prepare(const IvfModel& ivf,
                                                     const float* query) const {
  return std::make_unique<RabitQueryScorer>(*this, ivf, query);
}

}  // namespace tessera::index::vector
