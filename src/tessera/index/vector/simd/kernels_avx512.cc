// The AVX-512 kernels (F + BW + VL + DQ), and the VNNI level, which is the same table with the
// u8 · s8 dot products done by vpdpbusd.
//
// Every function carries the target attribute instead of the file being compiled with
// -mavx512*: the rest of the library stays at the baseline ISA and this code runs only once
// KernelsFor has seen the CPU support it. Float sums keep four 16-lane FMA accumulators per row
// and read tails with masked loads (which never fault on the masked-off bytes). The float batch
// kernels pass four rows at a time over the query, each row through exactly the operations of
// the single-pair kernel, so their results are bit-equal to it.
#include "tessera/index/vector/simd/cpu_features.h"
#include "tessera/index/vector/simd/kernel_tables.h"

#if defined(TESSERA_SIMD_X86)

// GCC 12.2's AVX-512 intrinsics build their "undefined" operands as `__m512 __Y = __Y;`, which
// -Wuninitialized flags once inlined (GCC PR 105593, fixed in 12.3); the warnings point into
// the header, so silencing them for its lines leaves this file's own code checked.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cmath>
#include <cstring>

// After <immintrin.h> and its pragmas above (it includes it too).
#include "tessera/index/vector/simd/fast_scan_pair.h"

#define TESSERA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define TESSERA_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))
#define TESSERA_AVX512_VPOPCNT \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vpopcntdq")))

namespace tessera::index::vector::simd {

namespace {

// Batch kernels stream rows from memory (an IVF partition, often not in cache). Requesting the
// cache lines of the rows a few passes ahead keeps loads from waiting on DRAM: it doubled the
// throughput of the l2 batch kernel over IVF_FLAT partitions on the benchmark machine.
constexpr int64_t kPrefetchRows = 8;

inline void PrefetchRange(const void* begin, size_t bytes, const void* end) {
  const char* first = static_cast<const char*>(begin);
  const char* last = std::min(static_cast<const char*>(end), first + bytes);
  for (const char* line = first; line < last; line += 64) _mm_prefetch(line, _MM_HINT_T0);
}

}  // namespace

namespace {

// The first n lanes (0 ≤ n < 16, 32 or 64).
inline __mmask16 FirstLanes16(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
inline __mmask32 FirstLanes32(int n) { return static_cast<__mmask32>((uint64_t{1} << n) - 1u); }
inline __mmask64 FirstLanes64(int n) { return (uint64_t{1} << n) - 1u; }

// --- float32 · float32 ---

// One step of a sum: (a − b)² for l2, a · b for the inner product, fused into `sum`.
template <bool kL2>
TESSERA_AVX512 inline __m512 Accumulate(__m512 a, __m512 b, __m512 sum) {
  if constexpr (kL2) {
    const __m512 difference = _mm512_sub_ps(a, b);
    return _mm512_fmadd_ps(difference, difference, sum);
  } else {
    return _mm512_fmadd_ps(a, b, sum);
  }
}

// The query against kRows consecutive rows. Every row goes through the same operations in the
// same order whatever kRows is (four accumulators over 64 floats a step, then 16-float steps
// into the first, then a masked tail into the second), so a row's result does not depend on
// how many rows share the pass; sharing only saves reloading the query.
template <bool kL2, int kRows>
TESSERA_AVX512 inline void SumRows(const float* query, const float* rows, int dim, float* out) {
  __m512 sum[kRows][4];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) sum[r][k] = _mm512_setzero_ps();
  }
  int i = 0;
  for (; i + 64 <= dim; i += 64) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512 q = _mm512_loadu_ps(query + i + 16 * k);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const float* row = rows + static_cast<int64_t>(r) * dim;
        sum[r][k] = Accumulate<kL2>(q, _mm512_loadu_ps(row + i + 16 * k), sum[r][k]);
      }
    }
  }
  for (; i + 16 <= dim; i += 16) {
    const __m512 q = _mm512_loadu_ps(query + i);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const float* row = rows + static_cast<int64_t>(r) * dim;
      sum[r][0] = Accumulate<kL2>(q, _mm512_loadu_ps(row + i), sum[r][0]);
    }
  }
  if (i < dim) {
    const __mmask16 mask = FirstLanes16(dim - i);
    const __m512 q = _mm512_maskz_loadu_ps(mask, query + i);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const float* row = rows + static_cast<int64_t>(r) * dim;
      sum[r][1] = Accumulate<kL2>(q, _mm512_maskz_loadu_ps(mask, row + i), sum[r][1]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    out[r] = _mm512_reduce_add_ps(
        _mm512_add_ps(_mm512_add_ps(sum[r][0], sum[r][1]), _mm512_add_ps(sum[r][2], sum[r][3])));
  }
}

// SumRows<false, kRows>(query, rows) and SumRows<false, 1>(row, row) of each row in one pass
// over the rows: every sum goes through exactly SumRows's operations, in its order.
template <int kRows>
TESSERA_AVX512 inline void DotAndNormRows(const float* query, const float* rows, int dim,
                                          float* dots, float* norms) {
  __m512 sum[kRows][4];
  __m512 norm[kRows][4];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) sum[r][k] = norm[r][k] = _mm512_setzero_ps();
  }
  int i = 0;
  for (; i + 64 <= dim; i += 64) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512 q = _mm512_loadu_ps(query + i + 16 * k);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const __m512 x = _mm512_loadu_ps(rows + static_cast<int64_t>(r) * dim + i + 16 * k);
        sum[r][k] = _mm512_fmadd_ps(q, x, sum[r][k]);
        norm[r][k] = _mm512_fmadd_ps(x, x, norm[r][k]);
      }
    }
  }
  for (; i + 16 <= dim; i += 16) {
    const __m512 q = _mm512_loadu_ps(query + i);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m512 x = _mm512_loadu_ps(rows + static_cast<int64_t>(r) * dim + i);
      sum[r][0] = _mm512_fmadd_ps(q, x, sum[r][0]);
      norm[r][0] = _mm512_fmadd_ps(x, x, norm[r][0]);
    }
  }
  if (i < dim) {
    const __mmask16 mask = FirstLanes16(dim - i);
    const __m512 q = _mm512_maskz_loadu_ps(mask, query + i);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m512 x = _mm512_maskz_loadu_ps(mask, rows + static_cast<int64_t>(r) * dim + i);
      sum[r][1] = _mm512_fmadd_ps(q, x, sum[r][1]);
      norm[r][1] = _mm512_fmadd_ps(x, x, norm[r][1]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    dots[r] = _mm512_reduce_add_ps(
        _mm512_add_ps(_mm512_add_ps(sum[r][0], sum[r][1]), _mm512_add_ps(sum[r][2], sum[r][3])));
    norms[r] = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(norm[r][0], norm[r][1]),
                                                  _mm512_add_ps(norm[r][2], norm[r][3])));
  }
}

template <bool kL2>
TESSERA_AVX512 inline float SumOne(const float* a, const float* b, int dim) {
  float result;
  SumRows<kL2, 1>(a, b, dim, &result);
  return result;
}

// Four rows a pass: sixteen accumulators and a query vector fit in the 32 zmm registers.
template <bool kL2>
TESSERA_AVX512 inline void SumBatch(const float* query, const float* rows, int64_t count, int dim,
                                    float* out) {
  const float* end = rows + count * dim;
  int64_t i = 0;
  for (; i + 4 <= count; i += 4) {
    PrefetchRange(rows + (i + kPrefetchRows) * dim, 4 * sizeof(float) * static_cast<size_t>(dim),
                  end);
    SumRows<kL2, 4>(query, rows + i * dim, dim, out + i);
  }
  for (; i < count; ++i) SumRows<kL2, 1>(query, rows + i * dim, dim, out + i);
}

TESSERA_AVX512 float L2Squared(const float* a, const float* b, int dim) {
  return SumOne<true>(a, b, dim);
}

TESSERA_AVX512 float InnerProduct(const float* a, const float* b, int dim) {
  return SumOne<false>(a, b, dim);
}

TESSERA_AVX512 void L2SquaredBatch(const float* query, const float* rows, int64_t count, int dim,
                                   float* out) {
  SumBatch<true>(query, rows, count, dim, out);
}

TESSERA_AVX512 void InnerProductBatch(const float* query, const float* rows, int64_t count, int dim,
                                      float* out) {
  SumBatch<false>(query, rows, count, dim, out);
}

// The transposed sums of one point against `count` vectors (Kernels::l2_squared_transposed and
// inner_product_transposed): four registers of 16 vectors a pass (independent dependency
// chains), then 16 at a time, the last ones masked; every lane goes through the same
// operations (Accumulate) in order of d. For l2 it also keeps the smallest sum: the running
// minimum goes second into MINPS, which returns its second operand when either is NaN, so a NaN
// sum leaves it unchanged.
template <bool kL2>
TESSERA_AVX512 inline float TransposedSums(const float* point, const float* columns, int64_t stride,
                                           int64_t count, int dim, float* out) {
  __m512 smallest = _mm512_set1_ps(INFINITY);
  int64_t c = 0;
  for (; c + 64 <= count; c += 64) {
    __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
    __m512 sum2 = _mm512_setzero_ps(), sum3 = _mm512_setzero_ps();
    for (int d = 0; d < dim; ++d) {
      const __m512 x = _mm512_set1_ps(point[d]);
      const float* column = columns + d * stride + c;
      sum0 = Accumulate<kL2>(x, _mm512_loadu_ps(column), sum0);
      sum1 = Accumulate<kL2>(x, _mm512_loadu_ps(column + 16), sum1);
      sum2 = Accumulate<kL2>(x, _mm512_loadu_ps(column + 32), sum2);
      sum3 = Accumulate<kL2>(x, _mm512_loadu_ps(column + 48), sum3);
    }
    _mm512_storeu_ps(out + c, sum0);
    _mm512_storeu_ps(out + c + 16, sum1);
    _mm512_storeu_ps(out + c + 32, sum2);
    _mm512_storeu_ps(out + c + 48, sum3);
    if constexpr (kL2) {
      smallest = _mm512_min_ps(_mm512_min_ps(sum0, sum1), smallest);
      smallest = _mm512_min_ps(_mm512_min_ps(sum2, sum3), smallest);
    }
  }
  for (; c < count; c += 16) {
    const __mmask16 mask = count - c >= 16 ? static_cast<__mmask16>(0xffff)
                                           : FirstLanes16(static_cast<int>(count - c));
    __m512 sum = _mm512_setzero_ps();
    for (int d = 0; d < dim; ++d) {
      sum = Accumulate<kL2>(_mm512_set1_ps(point[d]),
                            _mm512_maskz_loadu_ps(mask, columns + d * stride + c), sum);
    }
    _mm512_mask_storeu_ps(out + c, mask, sum);
    if constexpr (kL2) smallest = _mm512_mask_min_ps(smallest, mask, sum, smallest);
  }
  return _mm512_reduce_min_ps(smallest);
}

TESSERA_AVX512 float L2SquaredTransposed(const float* point, const float* columns, int64_t stride,
                                         int64_t count, int dim, float* out) {
  return TransposedSums<true>(point, columns, stride, count, dim, out);
}

TESSERA_AVX512 void InnerProductTransposed(const float* point, const float* columns, int64_t stride,
                                           int64_t count, int dim, float* out) {
  TransposedSums<false>(point, columns, stride, count, dim, out);
}

// MINPS returns its second operand when either is NaN: the running minimum goes second, so a
// NaN value (and a masked-off lane, loaded as +infinity) leaves it unchanged.
TESSERA_AVX512 float Smallest(const float* values, int64_t count) {
  // Four running minimums over 64 values a pass: independent dependency chains.
  __m512 smallest = _mm512_set1_ps(INFINITY);
  __m512 smallest1 = smallest, smallest2 = smallest, smallest3 = smallest;
  int64_t i = 0;
  for (; i + 64 <= count; i += 64) {
    smallest = _mm512_min_ps(_mm512_loadu_ps(values + i), smallest);
    smallest1 = _mm512_min_ps(_mm512_loadu_ps(values + i + 16), smallest1);
    smallest2 = _mm512_min_ps(_mm512_loadu_ps(values + i + 32), smallest2);
    smallest3 = _mm512_min_ps(_mm512_loadu_ps(values + i + 48), smallest3);
  }
  smallest = _mm512_min_ps(_mm512_min_ps(smallest, smallest1), _mm512_min_ps(smallest2, smallest3));
  for (; i + 16 <= count; i += 16) smallest = _mm512_min_ps(_mm512_loadu_ps(values + i), smallest);
  if (i < count) {
    const __mmask16 mask = FirstLanes16(static_cast<int>(count - i));
    smallest =
        _mm512_min_ps(_mm512_mask_loadu_ps(_mm512_set1_ps(INFINITY), mask, values + i), smallest);
  }
  return _mm512_reduce_min_ps(smallest);
}

// Compares sixteen values at a time and stores the indexes of those at most `bound` with one
// compress (VPCOMPRESSD).
TESSERA_AVX512 int64_t IndexesAtMost(const float* values, int64_t count, float bound,
                                     int32_t* out) {
  const __m512 limit = _mm512_set1_ps(bound);
  const __m512i sixteen = _mm512_set1_epi32(16);
  __m512i indexes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int64_t found = 0;
  for (int64_t i = 0; i < count; i += 16) {
    const __mmask16 lanes = count - i >= 16 ? static_cast<__mmask16>(0xffff)
                                            : FirstLanes16(static_cast<int>(count - i));
    // Ordered, non-signalling: false for NaN.
    const __mmask16 hits =
        _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, values + i), limit, _CMP_LE_OQ);
    if (hits != 0) {
      // Compressed in a register, then a masked store: VPCOMPRESSD straight to memory is
      // microcoded and many times slower on AMD Zen 4.
      const int hit_count = __builtin_popcount(hits);
      const auto first_lanes = static_cast<__mmask16>((1u << hit_count) - 1u);  // 1 to 16
      _mm512_mask_storeu_epi32(out + found, first_lanes,
                               _mm512_maskz_compress_epi32(hits, indexes));
      found += hit_count;
    }
    indexes = _mm512_add_epi32(indexes, sixteen);
  }
  return found;
}

// Two rows a pass: sixteen accumulators, and the query and row vectors, fit in 32 registers.
TESSERA_AVX512 void InnerProductAndNormBatch(const float* query, const float* rows, int64_t count,
                                             int dim, float* dots, float* norms) {
  const float* end = rows + count * dim;
  int64_t i = 0;
  for (; i + 2 <= count; i += 2) {
    PrefetchRange(rows + (i + kPrefetchRows) * dim, 2 * sizeof(float) * static_cast<size_t>(dim),
                  end);
    DotAndNormRows<2>(query, rows + i * dim, dim, dots + i, norms + i);
  }
  for (; i < count; ++i) DotAndNormRows<1>(query, rows + i * dim, dim, dots + i, norms + i);
}

// --- float32 query · float16 row ---

TESSERA_AVX512 inline __m512 LoadHalves(const uint16_t* row) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)));
}

TESSERA_AVX512 inline __m512 LoadHalves(__mmask16 mask, const uint16_t* row) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, row));
}

TESSERA_AVX512 float L2SquaredF16(const float* query, const uint16_t* row, int dim) {
  __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
  __m512 sum2 = _mm512_setzero_ps(), sum3 = _mm512_setzero_ps();
  int i = 0;
  for (; i + 64 <= dim; i += 64) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(query + i), LoadHalves(row + i));
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(query + i + 16), LoadHalves(row + i + 16));
    const __m512 d2 = _mm512_sub_ps(_mm512_loadu_ps(query + i + 32), LoadHalves(row + i + 32));
    const __m512 d3 = _mm512_sub_ps(_mm512_loadu_ps(query + i + 48), LoadHalves(row + i + 48));
    sum0 = _mm512_fmadd_ps(d0, d0, sum0);
    sum1 = _mm512_fmadd_ps(d1, d1, sum1);
    sum2 = _mm512_fmadd_ps(d2, d2, sum2);
    sum3 = _mm512_fmadd_ps(d3, d3, sum3);
  }
  for (; i + 16 <= dim; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(query + i), LoadHalves(row + i));
    sum0 = _mm512_fmadd_ps(d, d, sum0);
  }
  if (i < dim) {
    const __mmask16 mask = FirstLanes16(dim - i);
    const __m512 d =
        _mm512_sub_ps(_mm512_maskz_loadu_ps(mask, query + i), LoadHalves(mask, row + i));
    sum1 = _mm512_fmadd_ps(d, d, sum1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(sum0, sum1), _mm512_add_ps(sum2, sum3)));
}

TESSERA_AVX512 float InnerProductF16(const float* query, const uint16_t* row, int dim) {
  __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
  __m512 sum2 = _mm512_setzero_ps(), sum3 = _mm512_setzero_ps();
  int i = 0;
  for (; i + 64 <= dim; i += 64) {
    sum0 = _mm512_fmadd_ps(_mm512_loadu_ps(query + i), LoadHalves(row + i), sum0);
    sum1 = _mm512_fmadd_ps(_mm512_loadu_ps(query + i + 16), LoadHalves(row + i + 16), sum1);
    sum2 = _mm512_fmadd_ps(_mm512_loadu_ps(query + i + 32), LoadHalves(row + i + 32), sum2);
    sum3 = _mm512_fmadd_ps(_mm512_loadu_ps(query + i + 48), LoadHalves(row + i + 48), sum3);
  }
  for (; i + 16 <= dim; i += 16) {
    sum0 = _mm512_fmadd_ps(_mm512_loadu_ps(query + i), LoadHalves(row + i), sum0);
  }
  if (i < dim) {
    const __mmask16 mask = FirstLanes16(dim - i);
    sum1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, query + i), LoadHalves(mask, row + i), sum1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(sum0, sum1), _mm512_add_ps(sum2, sum3)));
}

TESSERA_AVX512 void HalfToFloatArray(const uint16_t* in, int64_t count, float* out) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) _mm512_storeu_ps(out + i, LoadHalves(in + i));
  if (i < count) {
    const __mmask16 mask = FirstLanes16(static_cast<int>(count - i));
    _mm512_mask_storeu_ps(out + i, mask, LoadHalves(mask, in + i));
  }
}

// --- unsigned 8-bit codes · signed 8-bit weights, AVX-512BW ---
// Both widen to 16 bits and multiply-add pairs into 32 bits (vpmaddwd), which cannot overflow
// for u8 · s8; vpmaddubsw would saturate its 16-bit pair sums.

TESSERA_AVX512 inline __m512i WidenCodes(const uint8_t* codes) {
  return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes)));
}

TESSERA_AVX512 inline __m512i WidenCodes(__mmask32 mask, const uint8_t* codes) {
  return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mask, codes));
}

TESSERA_AVX512 inline __m512i WidenWeights(const int8_t* weights) {
  return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights)));
}

TESSERA_AVX512 inline __m512i WidenWeights(__mmask32 mask, const int8_t* weights) {
  return _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(mask, weights));
}

TESSERA_AVX512 int32_t DotU8S8(const uint8_t* codes, const int8_t* weights, int dim) {
  __m512i sum0 = _mm512_setzero_si512(), sum1 = _mm512_setzero_si512();
  int i = 0;
  for (; i + 64 <= dim; i += 64) {
    sum0 =
        _mm512_add_epi32(sum0, _mm512_madd_epi16(WidenCodes(codes + i), WidenWeights(weights + i)));
    sum1 = _mm512_add_epi32(
        sum1, _mm512_madd_epi16(WidenCodes(codes + i + 32), WidenWeights(weights + i + 32)));
  }
  for (; i + 32 <= dim; i += 32) {
    sum0 =
        _mm512_add_epi32(sum0, _mm512_madd_epi16(WidenCodes(codes + i), WidenWeights(weights + i)));
  }
  if (i < dim) {
    const __mmask32 mask = FirstLanes32(dim - i);
    sum1 = _mm512_add_epi32(
        sum1, _mm512_madd_epi16(WidenCodes(mask, codes + i), WidenWeights(mask, weights + i)));
  }
  return _mm512_reduce_add_epi32(_mm512_add_epi32(sum0, sum1));
}

// Four rows at a time share each widened weight vector.
TESSERA_AVX512 void DotU8S8Batch(const uint8_t* codes, int64_t stride, int64_t count,
                                 const int8_t* weights, int dim, int32_t* out) {
  int64_t r = 0;
  const uint8_t* end = codes + count * stride;
  for (; r + 4 <= count; r += 4) {
    PrefetchRange(codes + (r + kPrefetchRows) * stride, 4 * static_cast<size_t>(stride), end);
    const uint8_t* row0 = codes + r * stride;
    const uint8_t* row1 = row0 + stride;
    const uint8_t* row2 = row1 + stride;
    const uint8_t* row3 = row2 + stride;
    __m512i sum0 = _mm512_setzero_si512(), sum1 = _mm512_setzero_si512();
    __m512i sum2 = _mm512_setzero_si512(), sum3 = _mm512_setzero_si512();
    int i = 0;
    for (; i + 32 <= dim; i += 32) {
      const __m512i w = WidenWeights(weights + i);
      sum0 = _mm512_add_epi32(sum0, _mm512_madd_epi16(WidenCodes(row0 + i), w));
      sum1 = _mm512_add_epi32(sum1, _mm512_madd_epi16(WidenCodes(row1 + i), w));
      sum2 = _mm512_add_epi32(sum2, _mm512_madd_epi16(WidenCodes(row2 + i), w));
      sum3 = _mm512_add_epi32(sum3, _mm512_madd_epi16(WidenCodes(row3 + i), w));
    }
    if (i < dim) {
      const __mmask32 mask = FirstLanes32(dim - i);
      const __m512i w = WidenWeights(mask, weights + i);
      sum0 = _mm512_add_epi32(sum0, _mm512_madd_epi16(WidenCodes(mask, row0 + i), w));
      sum1 = _mm512_add_epi32(sum1, _mm512_madd_epi16(WidenCodes(mask, row1 + i), w));
      sum2 = _mm512_add_epi32(sum2, _mm512_madd_epi16(WidenCodes(mask, row2 + i), w));
      sum3 = _mm512_add_epi32(sum3, _mm512_madd_epi16(WidenCodes(mask, row3 + i), w));
    }
    out[r] = _mm512_reduce_add_epi32(sum0);
    out[r + 1] = _mm512_reduce_add_epi32(sum1);
    out[r + 2] = _mm512_reduce_add_epi32(sum2);
    out[r + 3] = _mm512_reduce_add_epi32(sum3);
  }
  for (; r < count; ++r) out[r] = DotU8S8(codes + r * stride, weights, dim);
}

// --- unsigned 8-bit codes · signed 8-bit weights, AVX512_VNNI ---
// vpdpbusd multiplies u8 by s8 and adds groups of four products into 32-bit lanes without
// saturation (unlike vpdpbusds): exact, since |Σ| ≤ 65536 · 255 · 128 < 2^31.

TESSERA_AVX512_VNNI inline __m512i LoadBytes(const void* bytes) {
  return _mm512_loadu_si512(bytes);
}

TESSERA_AVX512_VNNI inline __m512i LoadBytes(__mmask64 mask, const void* bytes) {
  return _mm512_maskz_loadu_epi8(mask, bytes);
}

TESSERA_AVX512_VNNI int32_t DotU8S8Vnni(const uint8_t* codes, const int8_t* weights, int dim) {
  __m512i sum0 = _mm512_setzero_si512(), sum1 = _mm512_setzero_si512();
  int i = 0;
  for (; i + 128 <= dim; i += 128) {
    sum0 = _mm512_dpbusd_epi32(sum0, LoadBytes(codes + i), LoadBytes(weights + i));
    sum1 = _mm512_dpbusd_epi32(sum1, LoadBytes(codes + i + 64), LoadBytes(weights + i + 64));
  }
  for (; i + 64 <= dim; i += 64) {
    sum0 = _mm512_dpbusd_epi32(sum0, LoadBytes(codes + i), LoadBytes(weights + i));
  }
  if (i < dim) {
    const __mmask64 mask = FirstLanes64(dim - i);
    sum1 = _mm512_dpbusd_epi32(sum1, LoadBytes(mask, codes + i), LoadBytes(mask, weights + i));
  }
  return _mm512_reduce_add_epi32(_mm512_add_epi32(sum0, sum1));
}

// Four rows at a time share each weight vector.
TESSERA_AVX512_VNNI void DotU8S8BatchVnni(const uint8_t* codes, int64_t stride, int64_t count,
                                          const int8_t* weights, int dim, int32_t* out) {
  int64_t r = 0;
  const uint8_t* end = codes + count * stride;
  for (; r + 4 <= count; r += 4) {
    PrefetchRange(codes + (r + kPrefetchRows) * stride, 4 * static_cast<size_t>(stride), end);
    const uint8_t* row0 = codes + r * stride;
    const uint8_t* row1 = row0 + stride;
    const uint8_t* row2 = row1 + stride;
    const uint8_t* row3 = row2 + stride;
    __m512i sum0 = _mm512_setzero_si512(), sum1 = _mm512_setzero_si512();
    __m512i sum2 = _mm512_setzero_si512(), sum3 = _mm512_setzero_si512();
    int i = 0;
    for (; i + 64 <= dim; i += 64) {
      const __m512i w = LoadBytes(weights + i);
      sum0 = _mm512_dpbusd_epi32(sum0, LoadBytes(row0 + i), w);
      sum1 = _mm512_dpbusd_epi32(sum1, LoadBytes(row1 + i), w);
      sum2 = _mm512_dpbusd_epi32(sum2, LoadBytes(row2 + i), w);
      sum3 = _mm512_dpbusd_epi32(sum3, LoadBytes(row3 + i), w);
    }
    if (i < dim) {
      const __mmask64 mask = FirstLanes64(dim - i);
      const __m512i w = LoadBytes(mask, weights + i);
      sum0 = _mm512_dpbusd_epi32(sum0, LoadBytes(mask, row0 + i), w);
      sum1 = _mm512_dpbusd_epi32(sum1, LoadBytes(mask, row1 + i), w);
      sum2 = _mm512_dpbusd_epi32(sum2, LoadBytes(mask, row2 + i), w);
      sum3 = _mm512_dpbusd_epi32(sum3, LoadBytes(mask, row3 + i), w);
    }
    out[r] = _mm512_reduce_add_epi32(sum0);
    out[r + 1] = _mm512_reduce_add_epi32(sum1);
    out[r + 2] = _mm512_reduce_add_epi32(sum2);
    out[r + 3] = _mm512_reduce_add_epi32(sum3);
  }
  for (; r < count; ++r) out[r] = DotU8S8Vnni(codes + r * stride, weights, dim);
}

// Table j of pq4_fast_scan's byte tables in both 128-bit lanes.
TESSERA_AVX512 inline __m256i TableLanes(const uint8_t* luts, int j) {
  return _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(luts + 16 * j)));
}

// Kernels::pq4_fast_scan(_queries): the AVX2 kernel's sums (fast_scan_pair.h), two pairs of
// sub-quantizers per instruction, for kQueries queries at once. A block's pairs 2q and 2q + 1 are
// 64 consecutive bytes, so one load takes both, split into nibbles once for all the queries; each
// query's tables are laid side by side once per call (the low nibbles' tables of sub-quantizers
// 4q and 4q + 2, each in two 128-bit lanes, and the high nibbles' of 4q + 1 and 4q + 3), and the
// two 256-bit halves of its sums are added at the end of the block. A query's instructions do not
// depend on the others: its output is the same in a group as alone.
template <int kQueries>
TESSERA_AVX512 inline void Pq4FastScanGroup(const uint8_t* blocks, int64_t num_blocks, int pairs,
                                            const uint8_t* const* luts, const float* offsets,
                                            const float* steps, float* const* outs) {
  if (num_blocks <= 0) return;  // reads nothing, tables included
  const int quads = pairs / 2;
  __m512i tables[kQueries][kPq4MaxPairs];  // low and high tables of each quad
  for (int i = 0; i < kQueries; ++i) {
    for (int q = 0; q < quads; ++q) {
      tables[i][2 * q] = _mm512_inserti64x4(_mm512_castsi256_si512(TableLanes(luts[i], 4 * q)),
                                            TableLanes(luts[i], 4 * q + 2), 1);
      tables[i][2 * q + 1] =
          _mm512_inserti64x4(_mm512_castsi256_si512(TableLanes(luts[i], 4 * q + 1)),
                             TableLanes(luts[i], 4 * q + 3), 1);
    }
  }
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  for (int64_t b = 0; b < num_blocks; ++b) {
    const uint8_t* block = blocks + b * 32 * pairs;
    __m512i total[kQueries];
    __m512i odd[kQueries];
    for (int i = 0; i < kQueries; ++i) total[i] = odd[i] = _mm512_setzero_si512();
    for (int q = 0; q < quads; ++q) {
      const __m512i codes = _mm512_loadu_si512(block + q * 64);
      const __m512i low_nibbles = _mm512_and_si512(codes, nibble);
      const __m512i high_nibbles = _mm512_and_si512(_mm512_srli_epi16(codes, 4), nibble);
      for (int i = 0; i < kQueries; ++i) {
        const __m512i low = _mm512_shuffle_epi8(tables[i][2 * q], low_nibbles);
        const __m512i high = _mm512_shuffle_epi8(tables[i][2 * q + 1], high_nibbles);
        total[i] = _mm512_add_epi16(total[i], _mm512_add_epi16(low, high));
        odd[i] = _mm512_add_epi16(
            odd[i], _mm512_add_epi16(_mm512_srli_epi16(low, 8), _mm512_srli_epi16(high, 8)));
      }
    }
    for (int i = 0; i < kQueries; ++i) {
      __m256i total_256 = _mm256_add_epi16(_mm512_castsi512_si256(total[i]),
                                           _mm512_extracti64x4_epi64(total[i], 1));
      __m256i odd_256 =
          _mm256_add_epi16(_mm512_castsi512_si256(odd[i]), _mm512_extracti64x4_epi64(odd[i], 1));
      if (pairs % 2 != 0) {
        AddFastScanPair(block + (pairs - 1) * 32, luts[i] + 32 * (pairs - 1), total_256, odd_256);
      }
      const __m256i even = _mm256_sub_epi16(total_256, _mm256_slli_epi16(odd_256, 8));
      // Rows back in order as in the AVX2 kernel: 0–15, then 16–31.
      const __m256i first = _mm256_unpacklo_epi16(even, odd_256);
      const __m256i second = _mm256_unpackhi_epi16(even, odd_256);
      const __m256i rows[2] = {_mm256_permute2x128_si256(first, second, 0x20),
                               _mm256_permute2x128_si256(first, second, 0x31)};
      for (int half = 0; half < 2; ++half) {
        const __m512 values = _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(rows[half]));
        _mm512_storeu_ps(
            outs[i] + b * 32 + half * 16,
            _mm512_fmadd_ps(_mm512_set1_ps(steps[i]), values, _mm512_set1_ps(offsets[i])));
      }
    }
  }
}

TESSERA_AVX512 void Pq4FastScan(const uint8_t* blocks, int64_t num_blocks, int pairs,
                                const uint8_t* luts, float offset, float step, float* out) {
  Pq4FastScanGroup<1>(blocks, num_blocks, pairs, &luts, &offset, &step, &out);
}

TESSERA_AVX512 void Pq4FastScanQueries(const uint8_t* blocks, int64_t num_blocks, int pairs,
                                       int num_queries, const uint8_t* const* luts,
                                       const float* offsets, const float* steps,
                                       float* const* outs) {
  for (int first = 0; first < num_queries; first += kPq4MaxQueries) {
    const int group = std::min(num_queries - first, kPq4MaxQueries);
    const auto scan = group == 4   ? Pq4FastScanGroup<4>
                      : group == 3 ? Pq4FastScanGroup<3>
                      : group == 2 ? Pq4FastScanGroup<2>
                                   : Pq4FastScanGroup<1>;
    scan(blocks, num_blocks, pairs, luts + first, offsets + first, steps + first, outs + first);
  }
}

// Kernels::pq4_quantize_tables: one register per table; VCVTPS2DQ rounds half to even.
TESSERA_AVX512 float Pq4QuantizeTables(const float* table, int m, uint8_t* luts, float* lowest) {
  float widest = 0.0f;
  for (int j = 0; j < m; ++j) {
    const __m512 entries = _mm512_loadu_ps(table + j * 16);
    lowest[j] = _mm512_reduce_min_ps(entries);
    widest = std::max(widest, _mm512_reduce_max_ps(entries) - lowest[j]);
  }
  const __m512 scale = _mm512_set1_ps(widest > 0.0f ? 255.0f / widest : 0.0f);
  const __m512i most = _mm512_set1_epi32(255);
  for (int j = 0; j < m; ++j) {
    const __m512 scaled = _mm512_mul_ps(
        _mm512_sub_ps(_mm512_loadu_ps(table + j * 16), _mm512_set1_ps(lowest[j])), scale);
    const __m512i levels = _mm512_min_epi32(_mm512_cvtps_epi32(scaled), most);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(luts + j * 16), _mm512_cvtepi32_epi8(levels));
  }
  return widest;
}

// --- bit planes (RaBitQ) with VPOPCNTQ ---
// Eight 64-bit words of a plane at a time: AND with the query plane, count each word's bits
// (VPOPCNTQ), shift by the planes' weight and add; then one horizontal sum per row, or (several
// rows per register) a shuffle, an add and one compress. Integer sums: equal to every other
// level's.

// Σ_j 2^j · popcount(words AND planes[j]) per 64-bit word: one-bit codes against 4 query planes.
TESSERA_AVX512_VPOPCNT inline __m512i WeightedFourPlaneCounts(__m512i words,
                                                              const __m512i* planes) {
  __m512i counts[4];
  for (int j = 0; j < 4; ++j) counts[j] = _mm512_popcnt_epi64(_mm512_and_si512(words, planes[j]));
  return _mm512_add_epi64(
      _mm512_add_epi64(counts[0], _mm512_slli_epi64(counts[1], 1)),
      _mm512_add_epi64(_mm512_slli_epi64(counts[2], 2), _mm512_slli_epi64(counts[3], 3)));
}

// One row's weighted counts, in 8 lanes whose sum is the row's dot product: one-bit code,
// 4 query planes held in registers (chunk c of plane j at planes[c][j]), kChunks chunks of 64
// bytes (the last `tail` bytes masked).
template <int kChunks>
TESSERA_AVX512_VPOPCNT inline __m512i OneBitFourPlaneLanes(const uint8_t* code,
                                                           const __m512i (&planes)[kChunks][4],
                                                           __mmask64 tail) {
  __m512i total = _mm512_setzero_si512();
  for (int c = 0; c < kChunks; ++c) {
    const __m512i word =
        _mm512_maskz_loadu_epi8(c + 1 == kChunks ? tail : ~__mmask64{0}, code + c * 64);
    total = _mm512_add_epi64(total, WeightedFourPlaneCounts(word, planes[c]));
  }
  return total;
}

// One-bit codes against 4 query planes, kChunks chunks of 64 bytes per plane: the query held in
// registers across rows. (Summing 8 rows' lanes by a transposing tree instead of a horizontal
// sum per row measured no faster: the ANDs, counts and shifts fill both 512-bit ports.)
template <int kChunks>
TESSERA_AVX512_VPOPCNT void OneBitFourPlaneVpopcnt(const uint8_t* codes, int64_t stride,
                                                   int64_t count, const uint8_t* query,
                                                   int plane_bytes, __mmask64 tail, uint64_t* out) {
  __m512i planes[kChunks][4];
  for (int j = 0; j < 4; ++j) {
    for (int c = 0; c < kChunks; ++c) {
      planes[c][j] = _mm512_maskz_loadu_epi8(c + 1 == kChunks ? tail : ~__mmask64{0},
                                             query + j * plane_bytes + c * 64);
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    out[i] = static_cast<uint64_t>(
        _mm512_reduce_add_epi64(OneBitFourPlaneLanes(codes + i * stride, planes, tail)));
  }
}

// One-bit codes of planes of 16 bytes (128 dimensions) against 4 query planes: four rows share a
// register, one 128-bit lane each, so every AND and count works on four rows; each lane's two
// words are added and the four sums gathered by one compress.
TESSERA_AVX512_VPOPCNT void OneBitFourPlaneQuarterVpopcnt(const uint8_t* codes, int64_t stride,
                                                          int64_t count, const uint8_t* query,
                                                          uint64_t* out) {
  __m512i planes[4];
  for (int j = 0; j < 4; ++j) {
    planes[j] =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(query + 16 * j)));
  }
  const auto row = [&](int64_t i) TESSERA_AVX512_VPOPCNT {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + i * stride));
  };
  int64_t i = 0;
  for (; i + 4 <= count; i += 4) {
    __m512i words = _mm512_castsi128_si512(row(i));
    words = _mm512_inserti32x4(words, row(i + 1), 1);
    words = _mm512_inserti32x4(words, row(i + 2), 2);
    words = _mm512_inserti32x4(words, row(i + 3), 3);
    const __m512i weighted = WeightedFourPlaneCounts(words, planes);
    // 64-bit lane 2k: words 2k + (2k + 1), the total of row i + k (128-bit lane k).
    const __m512i sums = _mm512_add_epi64(weighted, _mm512_shuffle_epi32(weighted, _MM_PERM_BADC));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_castsi512_si256(_mm512_maskz_compress_epi64(0x55, sums)));
  }
  if (i < count) {
    PopcntBitPlaneDotBatch(codes + i * stride, stride, count - i, 1, query, 4, 16, out + i);
  }
}

// The same for planes of 32 bytes (256 dimensions): two rows per register, one 256-bit half each.
TESSERA_AVX512_VPOPCNT void OneBitFourPlaneHalfVpopcnt(const uint8_t* codes, int64_t stride,
                                                       int64_t count, const uint8_t* query,
                                                       uint64_t* out) {
  __m512i planes[4];
  for (int j = 0; j < 4; ++j) {
    planes[j] = _mm512_broadcast_i64x4(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + 32 * j)));
  }
  const auto row = [&](int64_t i) TESSERA_AVX512_VPOPCNT {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + i * stride));
  };
  int64_t i = 0;
  for (; i + 2 <= count; i += 2) {
    const __m512i words = _mm512_inserti64x4(_mm512_castsi256_si512(row(i)), row(i + 1), 1);
    const __m512i weighted = WeightedFourPlaneCounts(words, planes);
    // Pairs of words within 128-bit lanes, then the two lanes of each half: lanes 0 and 4.
    const __m512i pairs = _mm512_add_epi64(weighted, _mm512_shuffle_epi32(weighted, _MM_PERM_BADC));
    const __m512i sums =
        _mm512_add_epi64(pairs, _mm512_shuffle_i64x2(pairs, pairs, _MM_SHUFFLE(2, 3, 0, 1)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_castsi512_si128(_mm512_maskz_compress_epi64(0x11, sums)));
  }
  if (i < count) {
    PopcntBitPlaneDotBatch(codes + i * stride, stride, count - i, 1, query, 4, 32, out + i);
  }
}

TESSERA_AVX512_VPOPCNT void VpopcntBitPlaneDotBatch(const uint8_t* codes, int64_t stride,
                                                    int64_t count, int code_planes,
                                                    const uint8_t* query, int query_planes,
                                                    int plane_bytes, uint64_t* out) {
  if (plane_bytes == 16 && code_planes == 1 && query_planes == 4) {
    return OneBitFourPlaneQuarterVpopcnt(codes, stride, count, query, out);
  }
  if (plane_bytes == 32 && code_planes == 1 && query_planes == 4) {
    return OneBitFourPlaneHalfVpopcnt(codes, stride, count, query, out);
  }
  // Other planes of up to 32 bytes (256 dimensions) fill at most half a register: POPCNT on
  // their words is faster (2.7 against 6.0 ns per row at 128 dimensions, one row per register).
  if (plane_bytes <= 32) {
    return PopcntBitPlaneDotBatch(codes, stride, count, code_planes, query, query_planes,
                                  plane_bytes, out);
  }
  const int chunks = (plane_bytes + 63) / 64;
  const __mmask64 tail = plane_bytes % 64 == 0 ? ~__mmask64{0} : FirstLanes64(plane_bytes % 64);
  if (code_planes == 1 && query_planes == 4) {
    // RaBitQ's default (one-bit codes), up to 1536 dimensions.
    switch (chunks) {
      case 1:
        return OneBitFourPlaneVpopcnt<1>(codes, stride, count, query, plane_bytes, tail, out);
      case 2:
        return OneBitFourPlaneVpopcnt<2>(codes, stride, count, query, plane_bytes, tail, out);
      case 3:
        return OneBitFourPlaneVpopcnt<3>(codes, stride, count, query, plane_bytes, tail, out);
      default:
        break;
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* code = codes + i * stride;
    __m512i total = _mm512_setzero_si512();
    for (int c = 0; c < chunks; ++c) {
      const __mmask64 mask = c + 1 == chunks ? tail : ~__mmask64{0};
      for (int b = 0; b < code_planes; ++b) {
        const __m512i word = _mm512_maskz_loadu_epi8(mask, code + b * plane_bytes + c * 64);
        for (int j = 0; j < query_planes; ++j) {
          const __m512i plane = _mm512_maskz_loadu_epi8(mask, query + j * plane_bytes + c * 64);
          total = _mm512_add_epi64(
              total, _mm512_sll_epi64(_mm512_popcnt_epi64(_mm512_and_si512(word, plane)),
                                      _mm_cvtsi32_si128(b + j)));
        }
      }
    }
    out[i] = static_cast<uint64_t>(_mm512_reduce_add_epi64(total));
  }
}

// Byte d of the result: bits [shift, shift + 8) of 32-bit level d of four registers (d < 64).
TESSERA_AVX512 inline __m512i LevelBytes(const __m512i* levels, unsigned shift) {
  // A variable count (VPSRLD by register) and literal lane numbers: the immediates must be
  // constants at every optimization level (the sanitizer build compiles at -O1).
  const __m128i count = _mm_cvtsi32_si128(static_cast<int>(shift));
  const auto narrow = [&](int q) TESSERA_AVX512 {
    return _mm512_cvtepi32_epi8(_mm512_srl_epi32(levels[q], count));
  };
  __m512i bytes = _mm512_castsi128_si512(narrow(0));
  bytes = _mm512_inserti32x4(bytes, narrow(1), 1);
  bytes = _mm512_inserti32x4(bytes, narrow(2), 2);
  return _mm512_inserti32x4(bytes, narrow(3), 3);
}

// Query rounding (RaBitQ): 64 values per pass. Levels by subtract, multiply and the
// round-half-even conversion (never fused), their low bytes in one register, and each plane's 64
// bits read off by one byte test (bit d of the mask is coordinate d: the plane layout).
TESSERA_AVX512 int64_t QuantizeBitPlanes(const float* values, int count, float low, float scale,
                                         int top, int planes, uint8_t* out) {
  const int plane_bytes = count / 8;
  const __m512 lowest = _mm512_set1_ps(low);
  const __m512 factor = _mm512_set1_ps(scale);
  const __m512 most = _mm512_set1_ps(static_cast<float>(top));
  __m512i sums = _mm512_setzero_si512();
  for (int d = 0; d < count; d += 64) {
    __m512i levels[4];
    for (int q = 0; q < 4; ++q) {
      const __m512 scaled =
          _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(values + d + 16 * q), lowest), factor);
      // Clamped before the conversion: MINPS returns `most` for NaN, as the portable code does,
      // and nothing converts out of range.
      levels[q] = _mm512_cvtps_epi32(_mm512_min_ps(scaled, most));
      sums = _mm512_add_epi32(sums, levels[q]);
    }
    const __m512i low_bytes = LevelBytes(levels, 0);
    for (int j = 0; j < planes && j < 8; ++j) {
      const uint64_t bits =
          _mm512_test_epi8_mask(low_bytes, _mm512_set1_epi8(static_cast<char>(1 << j)));
      std::memcpy(out + static_cast<size_t>(j) * plane_bytes + d / 8, &bits, sizeof(bits));
    }
    if (planes > 8) {
      const __m512i high_bytes = LevelBytes(levels, 8);
      for (int j = 8; j < planes; ++j) {
        const uint64_t bits =
            _mm512_test_epi8_mask(high_bytes, _mm512_set1_epi8(static_cast<char>(1 << (j - 8))));
        std::memcpy(out + static_cast<size_t>(j) * plane_bytes + d / 8, &bits, sizeof(bits));
      }
    }
  }
  return _mm512_reduce_add_epi32(sums);
}

Kernels MakeAvx512Table(Level level) {
  Kernels table;
  table.level = level;
  table.l2_squared = L2Squared;
  table.inner_product = InnerProduct;
  table.l2_squared_batch = L2SquaredBatch;
  table.inner_product_batch = InnerProductBatch;
  table.inner_product_and_norm_batch = InnerProductAndNormBatch;
  table.l2_squared_transposed = L2SquaredTransposed;
  table.inner_product_transposed = InnerProductTransposed;
  table.smallest = Smallest;
  table.indexes_at_most = IndexesAtMost;
  table.l2_squared_f16 = L2SquaredF16;
  table.inner_product_f16 = InnerProductF16;
  table.f16_to_f32 = HalfToFloatArray;
  table.dot_u8_s8 = DotU8S8;
  table.dot_u8_s8_batch = DotU8S8Batch;
  table.pq_adc_batch = PortablePqAdcBatch;
  table.pq4_fast_scan = Pq4FastScan;
  table.pq4_fast_scan_queries = Pq4FastScanQueries;
  table.pq4_quantize_tables = Pq4QuantizeTables;
  table.bit_plane_dot_batch =
      DetectCpuFeatures().avx512vpopcntdq ? VpopcntBitPlaneDotBatch : PopcntBitPlaneDotBatch;
  table.quantize_bit_planes = QuantizeBitPlanes;
  return table;
}

}  // namespace

// PQ asymmetric distance with gathers (kernel_tables.h says why the tables do not use it).
// Sixteen rows at a time: one gather of 32-bit words reads four codes of each row, then one
// gather per sub-quantizer looks up the sixteen table entries, added in order of j like the
// scalar kernel (bit-equal).
TESSERA_AVX512 void GatherPqAdcBatchAvx512(const uint8_t* codes, int64_t count, int m,
                                           const float* table, float* out) {
  int64_t r = 0;
  if (m >= 4) {
    const __m512i row_offsets =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(m));
    const __m512i byte_mask = _mm512_set1_epi32(0xff);
    for (; r + 16 <= count; r += 16) {
      const uint8_t* block = codes + r * m;
      __m512 sum = _mm512_setzero_ps();
      for (int j = 0; j < m; j += 4) {
        // Within each row: the word at j, or the row's last word when fewer than 4 codes remain.
        const int start = j + 4 <= m ? j : m - 4;
        const __m512i words = _mm512_i32gather_epi32(row_offsets, block + start, 1);
        const int end = j + 4 <= m ? j + 4 : m;
        for (int k = j; k < end; ++k) {
          const __m512i index = _mm512_and_si512(
              _mm512_srl_epi32(words, _mm_cvtsi32_si128(8 * (k - start))), byte_mask);
          sum = _mm512_add_ps(sum, _mm512_i32gather_ps(index, table + k * 256, 4));
        }
      }
      _mm512_storeu_ps(out + r, sum);
    }
  }
  PortablePqAdcBatch(codes + r * m, count - r, m, table, out + r);
}

const Kernels& Avx512Kernels() {
  static const Kernels kernels = MakeAvx512Table(Level::kAvx512);
  return kernels;
}

const Kernels& Avx512VnniKernels() {
  static const Kernels kernels = [] {
    Kernels table = MakeAvx512Table(Level::kAvx512Vnni);
    table.dot_u8_s8 = DotU8S8Vnni;
    table.dot_u8_s8_batch = DotU8S8BatchVnni;
    return table;
  }();
  return kernels;
}

}  // namespace tessera::index::vector::simd

#endif  // TESSERA_SIMD_X86
