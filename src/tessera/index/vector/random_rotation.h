// Random rotations: the first step of RaBitQ (rabit_quantizer.h).
//
// A rotation drawn at random spreads a vector's length evenly over its coordinates whatever the
// data looks like, which is what lets one bit per coordinate keep an unbiased, bounded estimate
// of inner products. Two kinds, both drawn once, at training, from a seed alone (a build is
// reproducible) and stored with the model, so readers never redraw them:
//  - a dense rotation (RandomOrthonormalColumns): a Gaussian matrix made orthonormal by
//    Gram–Schmidt, uniformly random; it costs dim² per vector to apply and dim³ to draw. Models
//    written before the structured rotation existed hold one, and still load and search.
//  - a structured rotation (StructuredRotation), what new models use: random sign flips,
//    Walsh–Hadamard transforms of blocks of 64 and small random rotations across blocks, a few
//    operations per coordinate and almost no matrix to read. At 768 dimensions the dense one was
//    half of a single-query search (it streams 2.3 MB per query).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::index::vector {

namespace simd {
struct Kernels;
}  // namespace simd

// A rows × cols matrix (row-major, rows ≥ cols ≥ 1) whose columns are orthonormal: the first
// `cols` columns of a uniformly random rows × rows rotation. It maps a vector of `cols`
// coordinates (zero-padded to `rows`) to its rotation, keeping lengths and inner products.
std::vector<float> RandomOrthonormalColumns(int rows, int cols, uint64_t seed);

// A rotation of D coordinates, D = 64·k a positive multiple of 64. A vector is k blocks of 64
// coordinates. Each of kRounds rounds flips the signs of a random half of the coordinates (drawn
// per round), applies the normalized Walsh–Hadamard transform H_64 to every block, and then mixes
// the blocks by a random k × k rotation Q_r (drawn per round, Gram–Schmidt as above): block a
// becomes Σ_b Q_r[a][b] · block b. A round is (Q_r ⊗ H_64) · S_r, orthonormal, so the whole is:
// lengths and inner products are kept, up to float rounding. After one round a vector of length 1
// on one coordinate has coordinates ±Q[a][b] / 8, of typical size 1/√D; after three, a basis
// vector's largest coordinate is about what a uniformly random rotation gives
// (tests/index/vector/rabit_quantizer_test.cc checks it).
// Why not Walsh–Hadamard alone: it needs a power of two, and padding 768 to 1024 would cost a
// third more bits per code, while transforms over overlapping power-of-two blocks (512 of 768)
// left some vectors poorly spread.
//
// Cost per vector: about D·(8 + k) operations per round (sign flip, six butterfly stages,
// scaling, k multiply-adds), 46 thousand for three rounds at 768 dimensions, instead of 590
// thousand multiply-adds and 2.3 MB of matrix for the dense rotation.
//
// Deterministic at any SIMD level: sign flips are exact, the butterflies are independent adds
// and subtracts scaled by 1/8 (exact), and the block mixing goes through inner_product_transposed
// (summed in order of b by one fused multiply-add per term at every level), so a vector's
// rotation does not depend on the CPU.
class StructuredRotation {
 public:
  static constexpr int kRounds = 3;
  static constexpr int kBlock = 64;

  // The rotation of `padded_dim` coordinates drawn from `seed`.
  static StructuredRotation Draw(int padded_dim, uint64_t seed);
  // The rotation serialized as `bytes` (SerializedBytes(padded_dim) bytes, as Serialize writes
  // them); nullopt when the size does not match, padded_dim is not a positive multiple of 64,
  // or a mixing entry is not finite.
  static std::optional<StructuredRotation> Deserialize(int padded_dim, std::string_view bytes);
  // kRounds · D / 8 bytes of sign bits (1 = flip), then kRounds · k² float32 (Q_0, Q_1, …,
  // each row-major).
  static size_t SerializedBytes(int padded_dim);
  std::string Serialize() const;

  int padded_dim() const { return padded_dim_; }
  // The rotation of `vector` (dim ≤ padded_dim floats, zero-padded): padded_dim floats, the
  // same bits whichever level's `kernels` mix the blocks (the active level's by default).
  // `vector` and `rotated` must not overlap.
  void Apply(const float* vector, int dim, float* rotated) const;
  void Apply(const float* vector, int dim, float* rotated, const simd::Kernels& kernels) const;

 private:
  StructuredRotation(int padded_dim, std::vector<uint8_t> sign_bits, std::vector<float> mixes);

  int padded_dim_ = 0;
  int blocks_ = 0;  // k
  std::vector<uint8_t> sign_bits_;
  // The signs as float sign-bit masks, kRounds × D: 0x80000000 flips, 0 keeps.
  std::vector<uint32_t> sign_masks_;
  std::vector<float> mixes_;  // kRounds × k × k
};

}  // namespace tessera::index::vector
