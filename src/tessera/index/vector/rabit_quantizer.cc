#include "tessera/index/vector/rabit_quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "tessera/index/vector/centroid_assignment.h"
#include "tessera/index/vector/random_rotation.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

constexpr size_t kRabitHeaderWords = 3;
// In the header's bits word: the rotation is structured (random_rotation.h), not a dense matrix.
constexpr uint32_t kStructuredRotationFlag = 1u << 16;
// Rows scored per kernel call (their integer dot products kept for the factors).
constexpr int64_t kScoreChunk = 256;
// A query is rounded to 3 bits more than the codes have: its rounding error then stays below
// the codes' own (Gao & Long: 4 bits suffice for 1-bit codes; with 8-bit codes on 48 dimensions
// a query of 8 bits doubled the error, one of 11 adds a tenth).
constexpr int kQueryBitsAboveCode = 3;
constexpr int kMaxQueryBits = kMaxRabitBits + kQueryBitsAboveCode;
// Candidate scales of the rounding grid for B ≥ 2, as multiples of the scale that maps the
// largest coordinate to the edge of the top level: rotated coordinates are close to Gaussian,
// and the best uniform grid for a Gaussian clips its tails (from 2.0 at B = 2 to 0.9 at B = 8).
constexpr int kScaleCandidates = 24;
constexpr double kSmallestScale = 0.5;
constexpr double kLargestScale = 2.5;

// Planes of whole 64-bit words: the popcount kernel's fast path (and more rotated coordinates,
// hence more bits, for dimensions that are not multiples of 64).
int PaddedDimension(int dim) { return (dim + 63) / 64 * 64; }

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
    // All zero only under a rotation that is not one (a model made by hand): any scale will do.
    if (largest == 0) largest = 1;
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
    if (ivf.metric() != Metric::kL2) QuantizeQuery(rotated_query_.data());
  }

  void Score(int partition, const uint8_t* codes, int64_t count, float* out) override {
    const int dim = ivf_.dim();
    const float* centroid = ivf_.centroids().data() + static_cast<size_t>(partition) * dim;
    const bool l2 = ivf_.metric() == Metric::kL2;
    double bias = 0;
    if (l2) {
      if (partition != query_partition_) {
        // The query is R(q − c_p) = Rq − Rc_p.
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
        QuantizeQuery(residual_.data());
        query_partition_ = partition;
      }
    } else {
      bias = CentroidDistanceTerm(ivf_, query_.data(), partition);
    }
    if (!query_finite_ || !std::isfinite(bias)) {
      // Only a damaged model (centroids or a rotation so large that the query's rotation
      // overflows) gets here: its distances are unknown, and NaN is never a neighbour.
      std::fill(out, out + count, std::numeric_limits<float>::quiet_NaN());
      return;
    }
    const int bits = rq_.bits();
    const int code_size = rq_.code_size();
    const double h = ((1 << bits) - 1) / 2.0;
    dots_.resize(static_cast<size_t>(std::min(count, kScoreChunk)));
    for (int64_t first = 0; first < count; first += kScoreChunk) {
      const int64_t rows = std::min(kScoreChunk, count - first);
      const uint8_t* chunk = codes + first * code_size;
      simd::ActiveKernels().bit_plane_dot_batch(chunk, code_size, rows, bits, query_planes_.data(),
                                                query_bits_, rq_.plane_bytes(), dots_.data());
      for (int64_t i = 0; i < rows; ++i) {
        float factors[3];  // ‖r‖², a, Σ_d u_d
        std::memcpy(factors, chunk + i * code_size + bits * rq_.plane_bytes(), sizeof(factors));
        // ⟨u, ŵ⟩ with ŵ_d = low + step · v_d (v: the query's levels), then ⟨y, ŵ⟩ = ⟨u, ŵ⟩ −
        // h Σ_d ŵ_d: the rounding error enters as ⟨y, ŵ − w⟩, not also as h Σ_d (ŵ − w)_d.
        const double uw = query_low_ * factors[2] + query_step_ * static_cast<double>(dots_[i]);
        const double yw = uw - h * query_sum_;
        out[first + i] = static_cast<float>(l2 ? factors[0] + query_norm_ - 2.0 * factors[1] * yw
                                               : bias - factors[1] * yw);
      }
    }
  }

 private:
  // Rounds w (padded_dim floats) to query_bits_ bits per coordinate between its smallest and
  // largest value, as bit planes (simd::Kernels::quantize_bit_planes), and keeps the sum of the
  // rounded values. Runs once per query and probed partition (l2): the extremes are found with
  // independent accumulators, so that the loop vectorizes.
  void QuantizeQuery(const float* w) {
    const int padded = rq_.padded_dim();
    const int plane_bytes = rq_.plane_bytes();
    query_bits_ = std::min(rq_.bits() + kQueryBitsAboveCode, kMaxQueryBits);
    const int top = (1 << query_bits_) - 1;
    // padded is a multiple of 64, so 8 lanes divide it.
    constexpr int kLanes = 8;
    float lows[kLanes];
    float highs[kLanes];
    std::fill(lows, lows + kLanes, w[0]);
    std::fill(highs, highs + kLanes, w[0]);
    int not_finite = 0;
    for (int d = 0; d < padded; d += kLanes) {
      for (int i = 0; i < kLanes; ++i) {
        const float value = w[d + i];
        lows[i] = std::min(lows[i], value);
        highs[i] = std::max(highs[i], value);
        not_finite |= !(std::fabs(value) <= std::numeric_limits<float>::max());
      }
    }
    query_finite_ = not_finite == 0;
    if (!query_finite_) return;
    const float low = *std::min_element(lows, lows + kLanes);
    const float high = *std::max_element(highs, highs + kLanes);
    query_low_ = low;
    // The grid's step, and its inverse as the kernel's float scale, kept finite (a spread below
    // about 1e-35 would overflow it): the scores then use the step the levels were made with.
    const double spread = double{high} - low;
    const float scale =
        spread > 0
            ? static_cast<float>(std::min(top / spread, double{std::numeric_limits<float>::max()}))
            : 0.0f;
    query_step_ = scale > 0 ? 1.0 / scale : 0.0;
    query_planes_.resize(static_cast<size_t>(query_bits_) * plane_bytes);
    const int64_t level_sum = simd::ActiveKernels().quantize_bit_planes(
        w, padded, low, scale, top, query_bits_, query_planes_.data());
    query_sum_ = padded * query_low_ + query_step_ * static_cast<double>(level_sum);
  }

  const RabitQuantizer& rq_;
  const IvfModel& ivf_;
  std::vector<float> query_;
  std::vector<float> rotated_query_;     // Rq
  std::vector<float> residual_;          // l2: R(q − c_p) of query_partition_
  std::vector<float> rotated_centroid_;  // l2 without precomputed centroids: Rc_p
  // The quantized query (Rq, or R(q − c_p) for l2): query_bits_ planes of plane_bytes.
  std::vector<uint8_t> query_planes_;
  int query_bits_ = 0;
  double query_low_ = 0;
  double query_step_ = 0;
  double query_sum_ = 0;      // Σ_d ŵ_d
  bool query_finite_ = true;  // false: w had a NaN or infinite coordinate
  double query_norm_ = 0;     // l2: ‖R(q − c_p)‖²
  int query_partition_ = -1;
  std::vector<uint64_t> dots_;
};

arrow::Status CheckRabitDimension(int dim) {
  if (dim >= 1 && dim <= kMaxRabitDimension) return arrow::Status::OK();
  return InvalidArgument("IVF_RQ takes vectors of at least 1 and at most ", kMaxRabitDimension,
                         " dimensions, got ", dim, "; use IVF_PQ or IVF_SQ for longer vectors");
}

arrow::Result<RabitQuantizer> RabitQuantizer::Make(int dim, int bits, uint64_t seed) {
  ARROW_RETURN_NOT_OK(CheckRabitDimension(dim));
  if (bits < kMinRabitBits || bits > kMaxRabitBits) {
    return InvalidArgument("RaBitQ takes ", kMinRabitBits, " to ", kMaxRabitBits,
                           " bits per dimension, got ", bits);
  }
  RabitQuantizer rq;
  rq.dim_ = dim;
  rq.padded_dim_ = PaddedDimension(dim);
  rq.bits_ = bits;
  rq.structured_ = StructuredRotation::Draw(rq.padded_dim_, seed);
  return rq;
}

arrow::Result<RabitQuantizer> RabitQuantizer::Deserialize(std::string_view bytes, int dim,
                                                          std::string_view what) {
  uint32_t header[kRabitHeaderWords] = {0, 0, 0};
  if (bytes.size() >= sizeof(header)) std::memcpy(header, bytes.data(), sizeof(header));
  const size_t padded = static_cast<size_t>(PaddedDimension(dim));
  const uint32_t bits = header[2] & ~kStructuredRotationFlag;
  const bool structured = (header[2] & kStructuredRotationFlag) != 0;
  const size_t rotation_bytes = structured
                                    ? StructuredRotation::SerializedBytes(static_cast<int>(padded))
                                    : sizeof(float) * padded * static_cast<size_t>(dim);
  if (dim < 1 || dim > kMaxRabitDimension || bytes.size() < sizeof(header) ||
      header[0] != static_cast<uint32_t>(dim) || header[1] != padded || bits < kMinRabitBits ||
      bits > kMaxRabitBits || bytes.size() != sizeof(header) + rotation_bytes) {
    return Corrupt(what, " does not hold a RaBitQ quantizer of dimension ", dim, " (", bytes.size(),
                   " bytes, dimension ", header[0], ", padded to ", header[1], ", ",
                   header[2] & 0xffffu, " bits, flags ", header[2] & ~0xffffu, ")");
  }
  RabitQuantizer rq;
  rq.dim_ = dim;
  rq.padded_dim_ = static_cast<int>(padded);
  rq.bits_ = static_cast<int>(bits);
  const std::string_view rotation = bytes.substr(sizeof(header));
  if (structured) {
    rq.structured_ = StructuredRotation::Deserialize(rq.padded_dim_, rotation);
    if (!rq.structured_) return Corrupt(what, " holds a non-finite rotation entry");
    return rq;
  }
  std::vector<float> rows(padded * static_cast<size_t>(dim));
  std::memcpy(rows.data(), rotation.data(), rotation.size());
  for (float value : rows) {
    if (!std::isfinite(value)) return Corrupt(what, " holds a non-finite rotation entry");
  }
  rq.dense_rotation_columns_.resize(rows.size());
  TransposeRows(rows.data(), rq.padded_dim_, dim, rq.dense_rotation_columns_.data());
  return rq;
}

std::string RabitQuantizer::Serialize() const {
  const uint32_t header[kRabitHeaderWords] = {
      static_cast<uint32_t>(dim_), static_cast<uint32_t>(padded_dim_),
      static_cast<uint32_t>(bits_) | (structured_ ? kStructuredRotationFlag : 0u)};
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  if (structured_) {
    bytes += structured_->Serialize();
    return bytes;
  }
  std::vector<float> rows(dense_rotation_columns_.size());
  TransposeRows(dense_rotation_columns_.data(), dim_, padded_dim_, rows.data());
  bytes.append(reinterpret_cast<const char*>(rows.data()), rows.size() * sizeof(float));
  return bytes;
}

bool RabitQuantizer::RotateFinite(const float* vector, float* rotated) const {
  Rotate(vector, rotated);
  for (int d = 0; d < padded_dim_; ++d) {
    if (!std::isfinite(rotated[d])) return false;
  }
  return true;
}

void RabitQuantizer::Rotate(const float* vector, float* rotated) const {
  if (structured_) {
    structured_->Apply(vector, dim_, rotated);
    return;
  }
  simd::ActiveKernels().inner_product_transposed(vector, dense_rotation_columns_.data(),
                                                 padded_dim_, padded_dim_, dim_, rotated);
}

arrow::Status RabitQuantizer::Encode(const IvfModel& ivf, const float* vectors,
                                     const int32_t* partitions, int64_t count,
                                     uint8_t* codes) const {
  if (count <= 0) return arrow::Status::OK();
  const size_t code_bytes = static_cast<size_t>(code_size());
  std::memset(codes, 0, code_bytes * static_cast<size_t>(count));
  const std::vector<float> residuals = ivf.Residuals(vectors, partitions, count);
  // Each row's code depends on that row alone: any split over threads gives the same bytes.
  return util::ParallelFor(count, [&](int64_t begin, int64_t end) -> arrow::Status {
    std::vector<float> rotated(static_cast<size_t>(padded_dim_));
    std::vector<int> levels;
    for (int64_t i = begin; i < end; ++i) {
      const float* residual = residuals.data() + i * dim_;
      const float norm = simd::ActiveKernels().inner_product(residual, residual, dim_);
      uint8_t* code = codes + static_cast<size_t>(i) * code_bytes;
      // ‖r‖², a, Σ_d u_d: zeros for a row at its centroid (no level set), NaN for a row with
      // a NaN or infinite value (or one whose rotation overflows, near the float range), which
      // then scores NaN: never a neighbour, as in IVF_FLAT.
      float factors[3] = {0.0f, 0.0f, 0.0f};
      if (!std::isfinite(norm) || (norm > 0.0f && !RotateFinite(residual, rotated.data()))) {
        factors[0] = factors[1] = std::numeric_limits<float>::quiet_NaN();
      } else if (norm > 0.0f) {
        const double dot = QuantizeRotated(rotated.data(), padded_dim_, bits_, levels, code);
        factors[0] = norm;
        // ⟨y, Rr⟩ > 0: y has the sign of every coordinate it does not round to zero.
        factors[1] = dot > 0 ? static_cast<float>(norm / dot) : 0.0f;
        int64_t level_sum = 0;
        for (int level : levels) level_sum += level;
        factors[2] = static_cast<float>(level_sum);  // exact: at most 255 × kMaxRabitDimension
      }
      std::memcpy(code + bits_ * plane_bytes(), factors, sizeof(factors));
    }
    return arrow::Status::OK();
  });
}

void RabitQuantizer::PrepareSearch(const IvfModel& ivf) {
  const size_t bytes = static_cast<size_t>(ivf.num_partitions()) * padded_dim_ * sizeof(float);
  if (ivf.metric() != Metric::kL2 || bytes > kMaxPrecomputedSearchBytes) return;
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
