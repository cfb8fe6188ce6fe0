// A small seeded random generator for index training (sampling, k-means initialisation).
//
// Index builds must be reproducible from their parameters alone (docs/design.md, "Threads and
// determinism"), on every platform: std::uniform_int_distribution and friends differ between
// standard libraries, so every mapping from random bits to a value is defined here. SplitMix64 is
// fast and passes BigCrush, more than enough for sampling.
#pragma once

#include <cstdint>

namespace tessera::index::vector {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed ^ 0x4d595df4d0f33173ULL) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t x = state_;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  }
  // Uniform in [0, bound); bound > 0. Lemire's multiply-shift: bias below 2^-64 per value.
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace tessera::index::vector
