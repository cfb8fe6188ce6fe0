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

// One-bit codes (RaBitQ's default) of kWords words against 4 query planes: the query's words
// loaded once per call, every loop unrolled.
template <int kWords>
[[gnu::always_inline]] inline void OneBitFourPlaneDots(const uint8_t* codes, int64_t stride,
                                                       int64_t count, const uint8_t* query,
                                                       uint64_t* out) {
  constexpr int kQueryPlanes = 4;
  uint64_t query_words[kQueryPlanes][kWords];
  std::memcpy(query_words, query, sizeof(query_words));
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * stride;
    uint64_t counts[kQueryPlanes] = {};
#pragma GCC unroll 32
    for (int w = 0; w < kWords; ++w) {
      uint64_t word;
      std::memcpy(&word, code + 8 * w, sizeof(word));
#pragma GCC unroll 4
      for (int j = 0; j < kQueryPlanes; ++j) {
        counts[j] += static_cast<uint64_t>(std::popcount(word & query_words[j][w]));
      }
    }
    out[i] = counts[0] + (counts[1] << 1) + (counts[2] << 2) + (counts[3] << 3);
  }
}

[[gnu::always_inline]] inline void BitPlaneDotBatchBody(const uint8_t* codes, int64_t stride,
                                                        int64_t count, int code_planes,
                                                        const uint8_t* query, int query_planes,
                                                        int plane_bytes, uint64_t* out) {
  if (code_planes == 1 && query_planes == 4) {
    // Common embedding widths: 128 to 1536 dimensions.
    switch (plane_bytes) {
#define TESSERA_ONE_BIT(words) \
  case 8 * words:              \
    return OneBitFourPlaneDots<words>(codes, stride, count, query, out);
      TESSERA_ONE_BIT(2)
      TESSERA_ONE_BIT(4)
      TESSERA_ONE_BIT(6)
      TESSERA_ONE_BIT(8)
      TESSERA_ONE_BIT(12)
      TESSERA_ONE_BIT(16)
      TESSERA_ONE_BIT(24)
#undef TESSERA_ONE_BIT
      default:
        break;
    }
  }
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
