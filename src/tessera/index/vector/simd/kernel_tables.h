// The kernel table of each instruction-set level, for kernels.cc to dispatch between.
//
// Each table lives in its own file, whose functions carry the GCC/Clang `target` attribute of
// their level instead of per-file -m flags: the whole library keeps the baseline ISA, and a
// level's code runs only after KernelsFor has checked the CPU supports it. The SIMD tables
// exist on x86 only (TESSERA_SIMD_X86).
#pragma once

#include "tessera/index/vector/simd/kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#define TESSERA_SIMD_X86 1
#endif

namespace tessera::index::vector::simd {

const Kernels& ScalarKernels();
#if defined(TESSERA_SIMD_X86)
const Kernels& Avx2Kernels();
const Kernels& Avx512Kernels();
const Kernels& Avx512VnniKernels();
#endif

// PQ asymmetric distance, the pq_adc_batch of every level. It reads eight codes with one
// 64-bit load and sums the table entries in order of j. On the AMD Zen 4 tessera is measured
// on, it scans about twice as fast as the gather kernels below (vgatherdps is slow there;
// bench/simd_kernels_benchmark.cc compares them), and all are bit-equal, so the choice never
// changes a result.
void PortablePqAdcBatch(const uint8_t* codes, int64_t count, int m, const float* table, float* out);
// Kernels::bit_plane_dot_batch with the portable bit count (the scalar level) and with the
// POPCNT instruction (every x86 level above it: AVX2 implies POPCNT).
void PortableBitPlaneDotBatch(const uint8_t* codes, int64_t stride, int64_t count, int code_planes,
                              const uint8_t* query, int query_planes, int plane_bytes,
                              uint64_t* out);
// `value` rounded to an integer, half to even (the SIMD levels' conversion), for values in
// [0, 2^22): adding and subtracting 1.5 · 2^23 leaves the integer. Two statements, so that no
// multiply before it fuses into the addition: the library builds with -ffp-contract=off, and a
// contraction across statements is not allowed anyway.
inline float RoundHalfEven(float value) {
  constexpr float kRound = 12582912.0f;
  const float shifted = value + kRound;
  return shifted - kRound;
}
// Kernels::quantize_bit_planes in portable code: the scalar and AVX2 levels'.
int64_t PortableQuantizeBitPlanes(const float* values, int count, float low, float scale, int top,
                                  int planes, uint8_t* out);
// Kernels::pq4_fast_scan_queries of a level that scores one query at a time: `single` (that
// level's pq4_fast_scan) once per query.
template <auto single>
void Pq4FastScanEachQuery(const uint8_t* blocks, int64_t num_blocks, int pairs, int num_queries,
                          const uint8_t* const* luts, const float* offsets, const float* steps,
                          float* const* outs) {
  for (int i = 0; i < num_queries; ++i) {
    single(blocks, num_blocks, pairs, luts[i], offsets[i], steps[i], outs[i]);
  }
}
#if defined(TESSERA_SIMD_X86)
void PopcntBitPlaneDotBatch(const uint8_t* codes, int64_t stride, int64_t count, int code_planes,
                            const uint8_t* query, int query_planes, int plane_bytes, uint64_t* out);
// The same sums with one vgatherdps per sub-quantizer over 8 (AVX2) or 16 (AVX-512) rows, kept
// for CPUs with fast gathers; callable only at a level the CPU supports.
void GatherPqAdcBatchAvx2(const uint8_t* codes, int64_t count, int m, const float* table,
                          float* out);
void GatherPqAdcBatchAvx512(const uint8_t* codes, int64_t count, int m, const float* table,
                            float* out);
#endif

}  // namespace tessera::index::vector::simd
