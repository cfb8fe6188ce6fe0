// The AVX2 kernels (AVX2 + FMA + F16C), for x86 CPUs without AVX-512.
//
// Every function carries the target attribute instead of the file being compiled with -mavx2:
// the rest of the library stays at the baseline ISA and this code runs only once KernelsFor
// has seen the CPU support it. Float sums keep four 8-lane FMA accumulators (independent
// dependency chains) and read tails with masked loads, so a batch row goes through exactly the
// instructions of the single-pair kernel: the batch kernels call the same inline routines.
#include "tessera/index/vector/simd/bit_plane_dot.h"
#include "tessera/index/vector/simd/fast_scan_pair.h"
#include "tessera/index/vector/simd/kernel_tables.h"

#if defined(TESSERA_SIMD_X86)

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#define TESSERA_AVX2 __attribute__((target("avx2,fma,f16c")))
// The bit-plane kernel needs POPCNT alone; the AVX-512 levels use it too.
#define TESSERA_POPCNT __attribute__((target("popcnt")))

namespace tessera::index::vector::simd {

namespace {

// kTailMask + 8 - n: the first n lanes set, for _mm256_maskload_ps (0 ≤ n ≤ 8).
alignas(32) constexpr int32_t kTailMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                               0,  0,  0,  0,  0,  0,  0,  0};

TESSERA_AVX2 inline __m256i TailMask(int n) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTailMask + 8 - n));
}

TESSERA_AVX2 inline float HorizontalSum(__m256 sum) {
  __m128 quarter = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  quarter = _mm_add_ps(quarter, _mm_movehl_ps(quarter, quarter));
  quarter = _mm_add_ss(quarter, _mm_movehdup_ps(quarter));
  return _mm_cvtss_f32(quarter);
}

TESSERA_AVX2 inline int32_t HorizontalSum(__m256i sum) {
  __m128i quarter = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  quarter = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, _MM_SHUFFLE(1, 0, 3, 2)));
  quarter = _mm_add_epi32(quarter, _mm_shuffle_epi32(quarter, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(quarter);
}

// --- float32 · float32 ---

TESSERA_AVX2 inline float L2SquaredInline(const float* a, const float* b, int dim) {
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
    const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16));
    const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24));
    sum0 = _mm256_fmadd_ps(d0, d0, sum0);
    sum1 = _mm256_fmadd_ps(d1, d1, sum1);
    sum2 = _mm256_fmadd_ps(d2, d2, sum2);
    sum3 = _mm256_fmadd_ps(d3, d3, sum3);
  }
  for (; i + 8 <= dim; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    sum0 = _mm256_fmadd_ps(d, d, sum0);
  }
  if (i < dim) {
    const __m256i mask = TailMask(dim - i);
    const __m256 d =
        _mm256_sub_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask));
    sum1 = _mm256_fmadd_ps(d, d, sum1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(sum0, sum1), _mm256_add_ps(sum2, sum3)));
}

TESSERA_AVX2 inline float InnerProductInline(const float* a, const float* b, int dim) {
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), sum0);
    sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), sum1);
    sum2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), sum2);
    sum3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), sum3);
  }
  for (; i + 8 <= dim; i += 8) {
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), sum0);
  }
  if (i < dim) {
    const __m256i mask = TailMask(dim - i);
    sum1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask), sum1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(sum0, sum1), _mm256_add_ps(sum2, sum3)));
}

// InnerProductInline(query, row) and InnerProductInline(row, row) in one pass over the row:
// each sum goes through exactly that function's operations, in its order.
TESSERA_AVX2 inline void InnerProductAndNormInline(const float* query, const float* row, int dim,
                                                   float* dot, float* norm) {
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
  __m256 norm0 = _mm256_setzero_ps(), norm1 = _mm256_setzero_ps();
  __m256 norm2 = _mm256_setzero_ps(), norm3 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256 r0 = _mm256_loadu_ps(row + i), r1 = _mm256_loadu_ps(row + i + 8);
    const __m256 r2 = _mm256_loadu_ps(row + i + 16), r3 = _mm256_loadu_ps(row + i + 24);
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), r0, sum0);
    sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 8), r1, sum1);
    sum2 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 16), r2, sum2);
    sum3 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 24), r3, sum3);
    norm0 = _mm256_fmadd_ps(r0, r0, norm0);
    norm1 = _mm256_fmadd_ps(r1, r1, norm1);
    norm2 = _mm256_fmadd_ps(r2, r2, norm2);
    norm3 = _mm256_fmadd_ps(r3, r3, norm3);
  }
  for (; i + 8 <= dim; i += 8) {
    const __m256 r = _mm256_loadu_ps(row + i);
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), r, sum0);
    norm0 = _mm256_fmadd_ps(r, r, norm0);
  }
  if (i < dim) {
    const __m256i mask = TailMask(dim - i);
    const __m256 r = _mm256_maskload_ps(row + i, mask);
    sum1 = _mm256_fmadd_ps(_mm256_maskload_ps(query + i, mask), r, sum1);
    norm1 = _mm256_fmadd_ps(r, r, norm1);
  }
  *dot = HorizontalSum(_mm256_add_ps(_mm256_add_ps(sum0, sum1), _mm256_add_ps(sum2, sum3)));
  *norm = HorizontalSum(_mm256_add_ps(_mm256_add_ps(norm0, norm1), _mm256_add_ps(norm2, norm3)));
}

TESSERA_AVX2 float L2Squared(const float* a, const float* b, int dim) {
  return L2SquaredInline(a, b, dim);
}

TESSERA_AVX2 float InnerProduct(const float* a, const float* b, int dim) {
  return InnerProductInline(a, b, dim);
}

// Row by row: sharing query loads between two rows (as the AVX-512 kernels do with four) measured
// slower here, with only 16 ymm registers for the accumulators.
TESSERA_AVX2 void L2SquaredBatch(const float* query, const float* rows, int64_t count, int dim,
                                 float* out) {
  for (int64_t i = 0; i < count; ++i) {
    if (i + 2 < count)
      _mm_prefetch(reinterpret_cast<const char*>(rows + (i + 2) * dim), _MM_HINT_T0);
    out[i] = L2SquaredInline(query, rows + i * dim, dim);
  }
}

TESSERA_AVX2 void InnerProductBatch(const float* query, const float* rows, int64_t count, int dim,
                                    float* out) {
  for (int64_t i = 0; i < count; ++i) {
    if (i + 2 < count)
      _mm_prefetch(reinterpret_cast<const char*>(rows + (i + 2) * dim), _MM_HINT_T0);
    out[i] = InnerProductInline(query, rows + i * dim, dim);
  }
}

TESSERA_AVX2 void InnerProductAndNormBatch(const float* query, const float* rows, int64_t count,
                                           int dim, float* dots, float* norms) {
  for (int64_t i = 0; i < count; ++i) {
    if (i + 2 < count)
      _mm_prefetch(reinterpret_cast<const char*>(rows + (i + 2) * dim), _MM_HINT_T0);
    InnerProductAndNormInline(query, rows + i * dim, dim, dots + i, norms + i);
  }
}

// --- float32 query · float16 row ---

TESSERA_AVX2 inline __m256 LoadHalves(const uint16_t* row) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row)));
}

// The n < 8 halves at row, zero-padded: AVX2 has no 16-bit masked load.
TESSERA_AVX2 inline __m256 LoadHalvesTail(const uint16_t* row, int n) {
  alignas(16) uint16_t padded[8] = {};
  std::memcpy(padded, row, static_cast<size_t>(n) * sizeof(uint16_t));
  return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(padded)));
}

TESSERA_AVX2 float L2SquaredF16(const float* query, const uint16_t* row, int dim) {
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(query + i), LoadHalves(row + i));
    const __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(query + i + 8), LoadHalves(row + i + 8));
    const __m256 d2 = _mm256_sub_ps(_mm256_loadu_ps(query + i + 16), LoadHalves(row + i + 16));
    const __m256 d3 = _mm256_sub_ps(_mm256_loadu_ps(query + i + 24), LoadHalves(row + i + 24));
    sum0 = _mm256_fmadd_ps(d0, d0, sum0);
    sum1 = _mm256_fmadd_ps(d1, d1, sum1);
    sum2 = _mm256_fmadd_ps(d2, d2, sum2);
    sum3 = _mm256_fmadd_ps(d3, d3, sum3);
  }
  for (; i + 8 <= dim; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(query + i), LoadHalves(row + i));
    sum0 = _mm256_fmadd_ps(d, d, sum0);
  }
  if (i < dim) {
    const __m256 q = _mm256_maskload_ps(query + i, TailMask(dim - i));
    const __m256 d = _mm256_sub_ps(q, LoadHalvesTail(row + i, dim - i));
    sum1 = _mm256_fmadd_ps(d, d, sum1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(sum0, sum1), _mm256_add_ps(sum2, sum3)));
}

TESSERA_AVX2 float InnerProductF16(const float* query, const uint16_t* row, int dim) {
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), LoadHalves(row + i), sum0);
    sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 8), LoadHalves(row + i + 8), sum1);
    sum2 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 16), LoadHalves(row + i + 16), sum2);
    sum3 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 24), LoadHalves(row + i + 24), sum3);
  }
  for (; i + 8 <= dim; i += 8) {
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(query + i), LoadHalves(row + i), sum0);
  }
  if (i < dim) {
    const __m256 q = _mm256_maskload_ps(query + i, TailMask(dim - i));
    sum1 = _mm256_fmadd_ps(q, LoadHalvesTail(row + i, dim - i), sum1);
  }
  return HorizontalSum(_mm256_add_ps(_mm256_add_ps(sum0, sum1), _mm256_add_ps(sum2, sum3)));
}

TESSERA_AVX2 void HalfToFloatArray(const uint16_t* in, int64_t count, float* out) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(out + i, LoadHalves(in + i));
  if (i < count) {
    const int n = static_cast<int>(count - i);
    _mm256_maskstore_ps(out + i, TailMask(n), LoadHalvesTail(in + i, n));
  }
}

// --- unsigned 8-bit codes · signed 8-bit weights ---
// Both widen to 16 bits and multiply-add pairs into 32 bits (vpmaddwd), which cannot overflow
// for u8 · s8; vpmaddubsw would saturate its 16-bit pair sums.

TESSERA_AVX2 inline __m256i WidenCodes(const uint8_t* codes) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes)));
}

TESSERA_AVX2 inline __m256i WidenWeights(const int8_t* weights) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(weights)));
}

TESSERA_AVX2 inline int32_t DotTail(const uint8_t* codes, const int8_t* weights, int from,
                                    int dim) {
  int32_t sum = 0;
  for (int i = from; i < dim; ++i) sum += static_cast<int32_t>(codes[i]) * weights[i];
  return sum;
}

TESSERA_AVX2 int32_t DotU8S8(const uint8_t* codes, const int8_t* weights, int dim) {
  __m256i sum0 = _mm256_setzero_si256(), sum1 = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= dim; i += 32) {
    sum0 =
        _mm256_add_epi32(sum0, _mm256_madd_epi16(WidenCodes(codes + i), WidenWeights(weights + i)));
    sum1 = _mm256_add_epi32(
        sum1, _mm256_madd_epi16(WidenCodes(codes + i + 16), WidenWeights(weights + i + 16)));
  }
  for (; i + 16 <= dim; i += 16) {
    sum0 =
        _mm256_add_epi32(sum0, _mm256_madd_epi16(WidenCodes(codes + i), WidenWeights(weights + i)));
  }
  return HorizontalSum(_mm256_add_epi32(sum0, sum1)) + DotTail(codes, weights, i, dim);
}

// Four rows at a time share each widened weight vector.
TESSERA_AVX2 void DotU8S8Batch(const uint8_t* codes, int64_t stride, int64_t count,
                               const int8_t* weights, int dim, int32_t* out) {
  int64_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const uint8_t* row0 = codes + r * stride;
    const uint8_t* row1 = row0 + stride;
    const uint8_t* row2 = row1 + stride;
    const uint8_t* row3 = row2 + stride;
    __m256i sum0 = _mm256_setzero_si256(), sum1 = _mm256_setzero_si256();
    __m256i sum2 = _mm256_setzero_si256(), sum3 = _mm256_setzero_si256();
    int i = 0;
    for (; i + 16 <= dim; i += 16) {
      const __m256i w = WidenWeights(weights + i);
      sum0 = _mm256_add_epi32(sum0, _mm256_madd_epi16(WidenCodes(row0 + i), w));
      sum1 = _mm256_add_epi32(sum1, _mm256_madd_epi16(WidenCodes(row1 + i), w));
      sum2 = _mm256_add_epi32(sum2, _mm256_madd_epi16(WidenCodes(row2 + i), w));
      sum3 = _mm256_add_epi32(sum3, _mm256_madd_epi16(WidenCodes(row3 + i), w));
    }
    out[r] = HorizontalSum(sum0) + DotTail(row0, weights, i, dim);
    out[r + 1] = HorizontalSum(sum1) + DotTail(row1, weights, i, dim);
    out[r + 2] = HorizontalSum(sum2) + DotTail(row2, weights, i, dim);
    out[r + 3] = HorizontalSum(sum3) + DotTail(row3, weights, i, dim);
  }
  for (; r < count; ++r) out[r] = DotU8S8(codes + r * stride, weights, dim);
}

}  // namespace

// PQ asymmetric distance with gathers (kernel_tables.h says why the tables do not use it).
// Eight rows at a time: one gather of 32-bit words reads four codes of each row, then one
// gather per sub-quantizer looks up the eight table entries, added in order of j like the
// scalar kernel (bit-equal).
TESSERA_AVX2 void GatherPqAdcBatchAvx2(const uint8_t* codes, int64_t count, int m,
                                       const float* table, float* out) {
  int64_t r = 0;
  if (m >= 4) {
    const __m256i row_offsets =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(m));
    const __m256i byte_mask = _mm256_set1_epi32(0xff);
    for (; r + 8 <= count; r += 8) {
      const uint8_t* block = codes + r * m;
      __m256 sum = _mm256_setzero_ps();
      for (int j = 0; j < m; j += 4) {
        // Within each row: the word at j, or the row's last word when fewer than 4 codes remain.
        const int start = j + 4 <= m ? j : m - 4;
        const __m256i words =
            _mm256_i32gather_epi32(reinterpret_cast<const int*>(block + start), row_offsets, 1);
        const int end = j + 4 <= m ? j + 4 : m;
        for (int k = j; k < end; ++k) {
          const __m256i index = _mm256_and_si256(
              _mm256_srl_epi32(words, _mm_cvtsi32_si128(8 * (k - start))), byte_mask);
          sum = _mm256_add_ps(sum, _mm256_i32gather_ps(table + k * 256, index, 4));
        }
      }
      _mm256_storeu_ps(out + r, sum);
    }
  }
  PortablePqAdcBatch(codes + r * m, count - r, m, table, out + r);
}

namespace {

// One step of a transposed sum: (x − column)² for l2, x · column for the inner product, fused
// into `sum`.
template <bool kL2>
TESSERA_AVX2 inline __m256 TransposedStep(__m256 x, __m256 column, __m256 sum) {
  if constexpr (kL2) {
    const __m256 difference = _mm256_sub_ps(x, column);
    return _mm256_fmadd_ps(difference, difference, sum);
  } else {
    return _mm256_fmadd_ps(x, column, sum);
  }
}

// The transposed sums of one point against `count` vectors (Kernels::l2_squared_transposed and
// inner_product_transposed): four registers of 8 vectors a pass (independent dependency
// chains), then 8 at a time, the last ones masked; every lane goes through the same operations
// in order of d. For l2 it also keeps the smallest sum: the running minimum goes second into
// MINPS, which returns its second operand when either is NaN, so a NaN sum leaves it unchanged.
template <bool kL2>
TESSERA_AVX2 inline float TransposedSums(const float* point, const float* columns, int64_t stride,
                                         int64_t count, int dim, float* out) {
  __m256 smallest = _mm256_set1_ps(INFINITY);
  int64_t c = 0;
  for (; c + 32 <= count; c += 32) {
    __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
    __m256 sum2 = _mm256_setzero_ps(), sum3 = _mm256_setzero_ps();
    for (int d = 0; d < dim; ++d) {
      const __m256 x = _mm256_set1_ps(point[d]);
      const float* column = columns + d * stride + c;
      sum0 = TransposedStep<kL2>(x, _mm256_loadu_ps(column), sum0);
      sum1 = TransposedStep<kL2>(x, _mm256_loadu_ps(column + 8), sum1);
      sum2 = TransposedStep<kL2>(x, _mm256_loadu_ps(column + 16), sum2);
      sum3 = TransposedStep<kL2>(x, _mm256_loadu_ps(column + 24), sum3);
    }
    _mm256_storeu_ps(out + c, sum0);
    _mm256_storeu_ps(out + c + 8, sum1);
    _mm256_storeu_ps(out + c + 16, sum2);
    _mm256_storeu_ps(out + c + 24, sum3);
    if constexpr (kL2) {
      smallest = _mm256_min_ps(_mm256_min_ps(sum0, sum1), smallest);
      smallest = _mm256_min_ps(_mm256_min_ps(sum2, sum3), smallest);
    }
  }
  for (; c < count; c += 8) {
    const __m256i mask = TailMask(static_cast<int>(std::min<int64_t>(8, count - c)));
    __m256 sum = _mm256_setzero_ps();
    for (int d = 0; d < dim; ++d) {
      sum = TransposedStep<kL2>(_mm256_set1_ps(point[d]),
                                _mm256_maskload_ps(columns + d * stride + c, mask), sum);
    }
    _mm256_maskstore_ps(out + c, mask, sum);
    if constexpr (kL2) {
      // Masked-off lanes hold +infinity, which never lowers the minimum.
      smallest = _mm256_min_ps(
          _mm256_blendv_ps(_mm256_set1_ps(INFINITY), sum, _mm256_castsi256_ps(mask)), smallest);
    }
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, smallest);
  float result = INFINITY;
  for (float lane : lanes) result = lane < result ? lane : result;
  return result;
}

TESSERA_AVX2 float L2SquaredTransposed(const float* point, const float* columns, int64_t stride,
                                       int64_t count, int dim, float* out) {
  return TransposedSums<true>(point, columns, stride, count, dim, out);
}

TESSERA_AVX2 void InnerProductTransposed(const float* point, const float* columns, int64_t stride,
                                         int64_t count, int dim, float* out) {
  TransposedSums<false>(point, columns, stride, count, dim, out);
}

// MINPS returns its second operand when either is NaN: the running minimum goes second, so a
// NaN value leaves it unchanged.
TESSERA_AVX2 float Smallest(const float* values, int64_t count) {
  // Four running minimums over 32 values a pass: independent dependency chains.
  __m256 smallest = _mm256_set1_ps(INFINITY);
  __m256 smallest1 = smallest, smallest2 = smallest, smallest3 = smallest;
  int64_t i = 0;
  for (; i + 32 <= count; i += 32) {
    smallest = _mm256_min_ps(_mm256_loadu_ps(values + i), smallest);
    smallest1 = _mm256_min_ps(_mm256_loadu_ps(values + i + 8), smallest1);
    smallest2 = _mm256_min_ps(_mm256_loadu_ps(values + i + 16), smallest2);
    smallest3 = _mm256_min_ps(_mm256_loadu_ps(values + i + 24), smallest3);
  }
  smallest = _mm256_min_ps(_mm256_min_ps(smallest, smallest1), _mm256_min_ps(smallest2, smallest3));
  for (; i + 8 <= count; i += 8) smallest = _mm256_min_ps(_mm256_loadu_ps(values + i), smallest);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, smallest);
  float result = INFINITY;
  for (float lane : lanes) result = lane < result ? lane : result;
  for (; i < count; ++i) result = values[i] < result ? values[i] : result;
  return result;
}

TESSERA_AVX2 int64_t IndexesAtMost(const float* values, int64_t count, float bound, int32_t* out) {
  const __m256 limit = _mm256_set1_ps(bound);
  int64_t found = 0;
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    // Ordered, non-signalling: false for NaN.
    auto mask = static_cast<unsigned>(
        _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(values + i), limit, _CMP_LE_OQ)));
    while (mask != 0) {
      out[found++] = static_cast<int32_t>(i + __builtin_ctz(mask));
      mask &= mask - 1;
    }
  }
  for (; i < count; ++i) {
    if (values[i] <= bound) out[found++] = static_cast<int32_t>(i);
  }
  return found;
}

// Kernels::pq4_fast_scan: per pair of sub-quantizers, one load of the block's 32 code bytes and
// two byte shuffles look up 32 rows each (fast_scan_pair.h).
TESSERA_AVX2 void Pq4FastScan(const uint8_t* blocks, int64_t num_blocks, int pairs,
                              const uint8_t* luts, float offset, float step, float* out) {
  const __m256 offsets = _mm256_set1_ps(offset);
  const __m256 steps = _mm256_set1_ps(step);
  for (int64_t b = 0; b < num_blocks; ++b) {
    const uint8_t* block = blocks + b * 32 * pairs;
    __m256i total = _mm256_setzero_si256();
    __m256i odd = _mm256_setzero_si256();
    for (int p = 0; p < pairs; ++p) AddFastScanPair(block + p * 32, luts + 32 * p, total, odd);
    const __m256i even = _mm256_sub_epi16(total, _mm256_slli_epi16(odd, 8));
    // 16-bit lane k holds rows 2k (even) and 2k + 1 (odd); interleaving puts rows 0–7 and 16–23
    // in `first`, 8–15 and 24–31 in `second`.
    const __m256i first = _mm256_unpacklo_epi16(even, odd);
    const __m256i second = _mm256_unpackhi_epi16(even, odd);
    const __m256i rows[2] = {_mm256_permute2x128_si256(first, second, 0x20),
                             _mm256_permute2x128_si256(first, second, 0x31)};
    float* row_out = out + b * 32;
    for (int half = 0; half < 2; ++half) {
      for (int quarter = 0; quarter < 2; ++quarter) {
        const __m128i sums = quarter == 0 ? _mm256_castsi256_si128(rows[half])
                                          : _mm256_extracti128_si256(rows[half], 1);
        const __m256 values = _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(sums));
        _mm256_storeu_ps(row_out + half * 16 + quarter * 8,
                         _mm256_fmadd_ps(steps, values, offsets));
      }
    }
  }
}

// The smallest (kLargest: largest) of the 16 floats in a and b.
template <bool kLargest>
TESSERA_AVX2 inline float Extreme16(__m256 a, __m256 b) {
  const auto pick = [](__m128 x, __m128 y) {
    return kLargest ? _mm_max_ps(x, y) : _mm_min_ps(x, y);
  };
  const __m256 eight = kLargest ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
  __m128 four = pick(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  four = pick(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(pick(four, _mm_movehdup_ps(four)));
}

// Kernels::pq4_quantize_tables: VCVTPS2DQ rounds half to even (the default rounding mode).
TESSERA_AVX2 float Pq4QuantizeTables(const float* table, int m, uint8_t* luts, float* lowest) {
  float widest = 0.0f;
  for (int j = 0; j < m; ++j) {
    const __m256 a = _mm256_loadu_ps(table + j * 16);
    const __m256 b = _mm256_loadu_ps(table + j * 16 + 8);
    lowest[j] = Extreme16<false>(a, b);
    widest = std::max(widest, Extreme16<true>(a, b) - lowest[j]);
  }
  const __m256 scale = _mm256_set1_ps(widest > 0.0f ? 255.0f / widest : 0.0f);
  const __m256i most = _mm256_set1_epi32(255);
  for (int j = 0; j < m; ++j) {
    const __m256 low = _mm256_set1_ps(lowest[j]);
    const __m256i a =
        _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(
                             _mm256_sub_ps(_mm256_loadu_ps(table + j * 16), low), scale)),
                         most);
    const __m256i b =
        _mm256_min_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(
                             _mm256_sub_ps(_mm256_loadu_ps(table + j * 16 + 8), low), scale)),
                         most);
    // 16-bit packing works per 128-bit lane (a0–3 b0–3 | a4–7 b4–7): reorder the 64-bit
    // quarters, then pack to bytes.
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(luts + j * 16),
        _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1)));
  }
  return widest;
}

}  // namespace

TESSERA_POPCNT void PopcntBitPlaneDotBatch(const uint8_t* codes, int64_t stride, int64_t count,
                                           int code_planes, const uint8_t* query, int query_planes,
                                           int plane_bytes, uint64_t* out) {
  BitPlaneDotBatchBody(codes, stride, count, code_planes, query, query_planes, plane_bytes, out);
}

const Kernels& Avx2Kernels() {
  static const Kernels kernels = [] {
    Kernels table;
    table.level = Level::kAvx2;
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
    table.pq4_fast_scan_queries = Pq4FastScanEachQuery<Pq4FastScan>;
    table.pq4_quantize_tables = Pq4QuantizeTables;
    table.bit_plane_dot_batch = PopcntBitPlaneDotBatch;
    table.quantize_bit_planes = PortableQuantizeBitPlanes;
    return table;
  }();
  return kernels;
}

}  // namespace tessera::index::vector::simd

#endif  // TESSERA_SIMD_X86
