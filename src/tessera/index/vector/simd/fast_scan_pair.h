// One step of the 4-bit PQ fast scan (Kernels::pq4_fast_scan), shared by the AVX2 kernel and the
// AVX-512 kernel's last odd pair: the 32 code bytes of one pair of sub-quantizers of a 32-row
// block, looked up in their two 16-byte tables by byte shuffles, added to the block's sums.
//
// The looked-up bytes are summed in 16-bit lanes without unpacking: `total` adds each 16-bit lane
// as it is (odd row · 256 + even row, modulo 2^16) and `odd` adds its high byte, so the even
// rows' sum is total − 256 · odd at the end, exact because it is below 2^16.
#pragma once

#include "tessera/index/vector/simd/kernel_tables.h"

#if defined(TESSERA_SIMD_X86)

#include <immintrin.h>

#include <cstdint>

namespace tessera::index::vector::simd {

// `tables`: the pair's two tables, 32 bytes (low nibbles' sub-quantizer first).
[[gnu::always_inline, gnu::target("avx2")]] inline void AddFastScanPair(const uint8_t* codes,
                                                                        const uint8_t* tables,
                                                                        __m256i& total,
                                                                        __m256i& odd) {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes));
  const __m256i low_table =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tables)));
  const __m256i high_table =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tables + 16)));
  const __m256i low = _mm256_shuffle_epi8(low_table, _mm256_and_si256(bytes, nibble));
  const __m256i high =
      _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble));
  total = _mm256_add_epi16(total, _mm256_add_epi16(low, high));
  odd = _mm256_add_epi16(odd,
                         _mm256_add_epi16(_mm256_srli_epi16(low, 8), _mm256_srli_epi16(high, 8)));
}

}  // namespace tessera::index::vector::simd

#endif  // TESSERA_SIMD_X86
