// The body of the bit-plane inner product kernel (Kernels::bit_plane_dot_batch), shared by the
// levels: each includes it and calls it from a function carrying its own target attribute, so
// that std::popcount becomes the POPCNT instruction where the level has it (the scalar level
// keeps the portable bit count). Integer arithmetic only: every level gives the same result.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace tessera::index::vector::simd {

// Bytes [0, bytes) of `at` as the low bytes of a word, the rest zero (bytes ≤ 8).
[[gnu::always_inline]] inline uint64_t LoadPlaneWord(const uint8_t* at, int bytes) {
  uint64_t word = 0;
  std::memcpy(&word, at, static_cast<size_t>(bytes));
  return word;
}

// Rows whose planes are whole words, with kQueryPlanes known at compile time: one count per query
// plane kept in a register while each code word is loaded once.
template <int kQueryPlanes>
[[gnu::always_inline]] inline void WholeWordBitPlaneDots(const uint8_t* codes, int64_t stride,
                                                         int64_t count, int code_planes,
                                                         const uint8_t* query, int plane_bytes,
                                                         uint64_t* out) {
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * stride;
    uint64_t total = 0;
    for (int b = 0; b < code_planes; ++b) {
      const uint8_t* plane = code + static_cast<int64_t>(b) * plane_bytes;
      uint64_t counts[kQueryPlanes] = {};  // registers once the loops over j are unrolled
      for (int at = 0; at < plane_bytes; at += 8) {
        uint64_t word;
        std::memcpy(&word, plane + at, sizeof(word));
#pragma GCC unroll 16
        for (int j = 0; j < kQueryPlanes; ++j) {
          uint64_t query_word;
          std::memcpy(&query_word, query + j * plane_bytes + at, sizeof(query_word));
          counts[j] += static_cast<uint64_t>(std::popcount(word & query_word));
        }
      }
#pragma GCC unroll 16
      for (int j = 0; j < kQueryPlanes; ++j) total += counts[j] << (b + j);
    }
    out[i] = total;
  }
}

[[gnu::always_inline]] inline void BitPlaneDotBatchBody(const uint8_t* codes, int64_t stride,
                                                        int64_t count, int code_planes,
                                                        const uint8_t* query, int query_planes,
                                                        int plane_bytes, uint64_t* out) {
  if (plane_bytes % 8 == 0) {
    // The query plane counts RaBitQ uses (code bits + 3, for 1 to 8 code bits).
    switch (query_planes) {
#define TESSERA_WHOLE_WORDS(planes)                                                             \
  case planes:                                                                                  \
    return WholeWordBitPlaneDots<planes>(codes, stride, count, code_planes, query, plane_bytes, \
                                         out);
      TESSERA_WHOLE_WORDS(4)
      TESSERA_WHOLE_WORDS(5)
      TESSERA_WHOLE_WORDS(6)
      TESSERA_WHOLE_WORDS(7)
      TESSERA_WHOLE_WORDS(8)
      TESSERA_WHOLE_WORDS(9)
      TESSERA_WHOLE_WORDS(10)
      TESSERA_WHOLE_WORDS(11)
#undef TESSERA_WHOLE_WORDS
      default:
        break;
    }
  }
  const int whole = plane_bytes / 8 * 8;
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * stride;
    uint64_t total = 0;
    for (int b = 0; b < code_planes; ++b) {
      const uint8_t* plane = code + static_cast<int64_t>(b) * plane_bytes;
      for (int j = 0; j < query_planes; ++j) {
        const uint8_t* query_plane = query + static_cast<int64_t>(j) * plane_bytes;
        uint64_t bits = 0;
        for (int at = 0; at < whole; at += 8) {
          uint64_t word;
          uint64_t query_word;
          std::memcpy(&word, plane + at, sizeof(word));
          std::memcpy(&query_word, query_plane + at, sizeof(query_word));
          bits += static_cast<uint64_t>(std::popcount(word & query_word));
        }
        if (whole < plane_bytes) {
          bits += static_cast<uint64_t>(
              std::popcount(LoadPlaneWord(plane + whole, plane_bytes - whole) &
                            LoadPlaneWord(query_plane + whole, plane_bytes - whole)));
        }
        total += bits << (b + j);
      }
    }
    out[i] = total;
  }
}

}  // namespace tessera::index::vector::simd
