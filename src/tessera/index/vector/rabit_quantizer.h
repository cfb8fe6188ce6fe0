// RaBitQ: randomized-rotation bit codes with per-row correction factors, the quantizer of IVF_RQ.
//
// A row x of partition p is encoded from its residual r = x − c_p. The residual is rotated by a
// random rotation R (random_rotation.h: structured, of random signs, Walsh–Hadamard transforms
// and small rotations across blocks; models written before it hold a dense matrix and keep it;
// `dim` coordinates zero-padded to D = dim rounded up to a multiple of 64) and each rotated
// coordinate is rounded to one of 2^B levels, B = num_bits in [1, 8]: level u_d ∈ [0, 2^B) stands
// for y_d = u_d − h, h = (2^B − 1) / 2. With B = 1 the code is the sign of each coordinate; with
// more bits the rounding grid is scaled by the factor t that brings y closest in angle to Rr (a
// search over a fixed set of candidates: any t gives a correct estimator, the best one the smallest
// error).
//
// The estimator (Gao & Long, RaBitQ, SIGMOD 2024; its extension to B bits): for any vector v,
//   ⟨r, v⟩ ≈ ‖r‖² · ⟨y, Rv⟩ / ⟨y, Rr⟩,
// unbiased over the random rotation, with an error that shrinks as 1/√D and with every extra bit.
// A row stores ‖r‖², a = ‖r‖² / ⟨y, Rr⟩ and Σ_d u_d after its levels, so that with v = q − c_p:
//  - l2:  ‖q − x‖² ≈ ‖r‖² + ‖q − c_p‖² − 2 a ⟨y, R(q − c_p)⟩;
//  - dot: −q·x ≈ −q·c_p − a ⟨y, Rq⟩; cosine: 1 + the same, on unit vectors (the family normalizes).
// A row equal to its centroid (r = 0) stores zeros and scores exactly; a row with a NaN or
// infinite value stores NaN and scores NaN (never a neighbour).
//
// Scoring never decodes. The rotated query w (Rq for dot and cosine, once per query; R(q − c_p) =
// Rq − Rc_p for l2, once per probed partition, with the rotated centroids Rc_p precomputed by
// PrepareSearch) is rounded to Bq = B + 3 bits per coordinate between its smallest and
// largest value, ŵ_d = low + step · v_d, and stored as Bq bit planes. Then
//   ⟨u, ŵ⟩ = low · Σ_d u_d + step · Σ_b Σ_j 2^(b+j) · popcount(plane_b(u) AND plane_j(v)),
// integer bit counts over 64 coordinates per instruction (simd::Kernels::bit_plane_dot_batch),
// and ⟨y, ŵ⟩ = ⟨u, ŵ⟩ − h · Σ_d ŵ_d. The query's rounding adds an error below
// the codes' own (4 query bits suffice for 1-bit codes: Gao & Long).
//
// Code layout (code_size() = B · D / 8 + 12 bytes): B bit planes of D / 8 bytes, plane b holding
// bit b of every level (coordinate 8g + i in bit i of byte g), then float32 ‖r‖², float32 a and
// float32 Σ_d u_d (an integer below 2^24, exact).
// Serialized form (little-endian): uint32 dim, uint32 D, uint32 flags | B, then the rotation:
// with kStructuredRotationFlag (bit 16) StructuredRotation::Serialize's bytes, without it float32
// R[D][dim] (row-major, the dense rotation of older models).
// Encoding runs in parallel (util::ParallelFor); each row's code depends on that row alone.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tessera/index/vector/quantizer.h"
#include "tessera/index/vector/random_rotation.h"

namespace tessera::index::vector {

inline constexpr int kMinRabitBits = 1;
inline constexpr int kMaxRabitBits = 8;
// The longest vectors IVF_RQ takes (a dense rotation, which older models hold, costs dim² per row
// to apply).
inline constexpr int kMaxRabitDimension = 4096;

// OK for vectors of 1 to kMaxRabitDimension dimensions, else InvalidArgument naming the limit and
// the families that take longer vectors.
arrow::Status CheckRabitDimension(int dim);

class RabitQuantizer final : public Quantizer {
 public:
  // A quantizer of `dim` dimensions with `bits` bits per coordinate, its (structured) rotation
  // drawn from `seed`. InvalidArgument for bits outside [1, 8] or a dimension outside [1, 4096].
  static arrow::Result<RabitQuantizer> Make(int dim, int bits, uint64_t seed);
  static arrow::Result<RabitQuantizer> Deserialize(std::string_view bytes, int dim,
                                                   std::string_view what);

  int code_size() const override { return bits_ * plane_bytes() + kFactorBytes; }
  std::string Serialize() const override;
  // 2 for a structured rotation (older readers know only the dense one), else 1.
  uint32_t format_version() const override { return structured_ ? 2 : 1; }
  arrow::Status Encode(const IvfModel& ivf, const float* vectors, const int32_t* partitions,
                       int64_t count, uint8_t* codes) const override;
  void PrepareSearch(const IvfModel& ivf) override;
  std::unique_ptr<QueryScorer> Prepare(const IvfModel& ivf, const float* query) const override;

  int bits() const { return bits_; }
  int padded_dim() const { return padded_dim_; }
  // Bytes of one bit plane: one bit per rotated coordinate.
  int plane_bytes() const { return padded_dim_ / 8; }
  // R·v for a vector v of dim floats: padded_dim floats.
  void Rotate(const float* vector, float* rotated) const;

 private:
  static constexpr int kFactorBytes = 3 * static_cast<int>(sizeof(float));

  int dim_ = 0;
  int padded_dim_ = 0;
  int bits_ = 1;
  // The rotation: structured, or (older models) dense. Either way a row's code does not depend
  // on the CPU that encoded it: StructuredRotation is deterministic at every SIMD level, and the
  // dense rotation is applied transposed (dim × padded_dim), summing the rotated coordinates 16
  // at a time by FMA in order of d (inner_product_transposed), bit-equal at every SIMD level.
  std::optional<StructuredRotation> structured_;
  std::vector<float> dense_rotation_columns_;
  // Rotate, then false where a rotated coordinate is not finite (an overflow).
  bool RotateFinite(const float* vector, float* rotated) const;
  // l2 only, after PrepareSearch: the rotated centroids, partitions × padded_dim; empty
  // otherwise (a scorer then rotates each probed centroid itself).
  std::vector<float> rotated_centroids_;

  friend class RabitQueryScorer;
};

}  // namespace tessera::index::vector
