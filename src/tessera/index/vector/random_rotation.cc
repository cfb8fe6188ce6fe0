#include "tessera/index/vector/random_rotation.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/random.h"
#include "tessera/index/vector/simd/kernels.h"

namespace tessera::index::vector {

namespace {

// A standard normal value (Box–Muller), defined here so that every platform draws the same.
double Gaussian(Random& random) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double u = 1.0 - random.Uniform();  // (0, 1]: the logarithm stays finite
  const double v = random.Uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(kTwoPi * v);
}

// One butterfly stage of distance kDistance over a block of 64 coordinates. The distance is a
// constant, so the compiler unrolls the loops and pairs contiguous coordinates in vector
// registers.
template <int kDistance>
inline void ButterflyStage(float* x) {
  for (int i = 0; i < StructuredRotation::kBlock; i += 2 * kDistance) {
    for (int j = i; j < i + kDistance; ++j) {
      const float a = x[j];
      const float b = x[j + kDistance];
      x[j] = a + b;
      x[j + kDistance] = a - b;
    }
  }
}

// The normalized Walsh–Hadamard transform of one block of 64 coordinates: butterflies of
// distance 1, 2, 4, …, 32, then × 1/8 (exact). Each output is a fixed sequence of adds and
// subtracts of its inputs, the same at any vectorization.
void WalshHadamard64(float* x) {
  ButterflyStage<1>(x);
  ButterflyStage<2>(x);
  ButterflyStage<4>(x);
  ButterflyStage<8>(x);
  ButterflyStage<16>(x);
  ButterflyStage<32>(x);
  for (int j = 0; j < StructuredRotation::kBlock; ++j) x[j] *= 0.125f;
}

}  // namespace

std::vector<float> RandomOrthonormalColumns(int rows, int cols, uint64_t seed) {
  Random random(seed);
  // Column-major while orthonormalizing: column j at columns[j · rows].
  std::vector<double> columns(static_cast<size_t>(rows) * cols);
  for (int j = 0; j < cols; ++j) {
    double* column = columns.data() + static_cast<size_t>(j) * rows;
    // Modified Gram–Schmidt. A Gaussian column lies in the span of the ones before it with
    // probability zero; one that comes out (numerically) short is drawn again.
    for (;;) {
      for (int i = 0; i < rows; ++i) column[i] = Gaussian(random);
      for (int k = 0; k < j; ++k) {
        const double* previous = columns.data() + static_cast<size_t>(k) * rows;
        double dot = 0;
        for (int i = 0; i < rows; ++i) dot += previous[i] * column[i];
        for (int i = 0; i < rows; ++i) column[i] -= dot * previous[i];
      }
      double norm = 0;
      for (int i = 0; i < rows; ++i) norm += column[i] * column[i];
      norm = std::sqrt(norm);
      if (norm < 1e-6) continue;
      for (int i = 0; i < rows; ++i) column[i] /= norm;
      break;
    }
  }
  std::vector<float> matrix(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      matrix[static_cast<size_t>(i) * cols + j] =
          static_cast<float>(columns[static_cast<size_t>(j) * rows + i]);
    }
  }
  return matrix;
}

size_t StructuredRotation::SerializedBytes(int padded_dim) {
  const size_t blocks = static_cast<size_t>(padded_dim / kBlock);
  return kRounds * (static_cast<size_t>(padded_dim) / 8 + blocks * blocks * sizeof(float));
}

StructuredRotation::StructuredRotation(int padded_dim, std::vector<uint8_t> sign_bits,
                                       std::vector<float> mixes)
    : padded_dim_(padded_dim),
      blocks_(padded_dim / kBlock),
      sign_bits_(std::move(sign_bits)),
      mixes_(std::move(mixes)) {
  sign_masks_.resize(static_cast<size_t>(kRounds) * padded_dim);
  for (size_t i = 0; i < sign_masks_.size(); ++i) {
    sign_masks_[i] = ((sign_bits_[i / 8] >> (i % 8)) & 1) != 0 ? 0x80000000u : 0u;
  }
}

StructuredRotation StructuredRotation::Draw(int padded_dim, uint64_t seed) {
  Random random(seed);
  std::vector<uint8_t> bits(static_cast<size_t>(kRounds) * padded_dim / 8);
  for (uint8_t& byte : bits) byte = static_cast<uint8_t>(random.Next() >> 56);
  const int blocks = padded_dim / kBlock;
  std::vector<float> mixes;
  mixes.reserve(static_cast<size_t>(kRounds) * blocks * blocks);
  for (int round = 0; round < kRounds; ++round) {
    const auto mix = RandomOrthonormalColumns(blocks, blocks, random.Next());
    mixes.insert(mixes.end(), mix.begin(), mix.end());
  }
  return StructuredRotation(padded_dim, std::move(bits), std::move(mixes));
}

std::optional<StructuredRotation> StructuredRotation::Deserialize(int padded_dim,
                                                                  std::string_view bytes) {
  if (padded_dim < kBlock || padded_dim % kBlock != 0 ||
      bytes.size() != SerializedBytes(padded_dim)) {
    return std::nullopt;
  }
  const size_t sign_bytes = static_cast<size_t>(kRounds) * padded_dim / 8;
  std::vector<uint8_t> bits(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(sign_bytes));
  std::vector<float> mixes((bytes.size() - sign_bytes) / sizeof(float));
  std::memcpy(mixes.data(), bytes.data() + sign_bytes, mixes.size() * sizeof(float));
  for (float value : mixes) {
    if (!std::isfinite(value)) return std::nullopt;
  }
  return StructuredRotation(padded_dim, std::move(bits), std::move(mixes));
}

std::string StructuredRotation::Serialize() const {
  std::string bytes(reinterpret_cast<const char*>(sign_bits_.data()), sign_bits_.size());
  bytes.append(reinterpret_cast<const char*>(mixes_.data()), mixes_.size() * sizeof(float));
  return bytes;
}

void StructuredRotation::Apply(const float* vector, int dim, float* rotated) const {
  Apply(vector, dim, rotated, simd::ActiveKernels());
}

void StructuredRotation::Apply(const float* vector, int dim, float* rotated,
                               const simd::Kernels& kernels) const {
  const int n = padded_dim_;
  std::memcpy(rotated, vector, sizeof(float) * static_cast<size_t>(dim));
  std::fill(rotated + dim, rotated + n, 0.0f);
  thread_local std::vector<float> mixed;
  mixed.resize(static_cast<size_t>(n));
  for (int round = 0; round < kRounds; ++round) {
    const uint32_t* masks = sign_masks_.data() + static_cast<size_t>(round) * n;
    for (int d = 0; d < n; ++d) {
      uint32_t word;
      std::memcpy(&word, rotated + d, sizeof(word));
      word ^= masks[d];
      std::memcpy(rotated + d, &word, sizeof(word));
    }
    for (int block = 0; block < blocks_; ++block) WalshHadamard64(rotated + block * kBlock);
    // Block a of the result: Σ_b Q[a][b] · block b, for the 64 coordinates of a block at once.
    const float* mix = mixes_.data() + static_cast<size_t>(round) * blocks_ * blocks_;
    for (int a = 0; a < blocks_; ++a) {
      kernels.inner_product_transposed(mix + static_cast<size_t>(a) * blocks_, rotated, kBlock,
                                       kBlock, blocks_, mixed.data() + a * kBlock);
    }
    std::memcpy(rotated, mixed.data(), sizeof(float) * static_cast<size_t>(n));
  }
}

}  // namespace tessera::index::vector
