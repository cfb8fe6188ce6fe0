// Vector kernels with runtime CPU dispatch: the inner loops of every distance, quantized scan
// and PQ table lookup in tessera.
//
// One table of function pointers per instruction-set level. The best level the CPU supports is
// chosen once, at first use; TESSERA_SIMD=scalar|avx2|avx512|avx512_vnni lowers it (never
// raises it beyond what the CPU has), so tests and benchmarks can compare paths on one machine.
//
// Exactness contract (tests/index/vector/simd_kernels_test.cc checks every available level
// against the scalar one on random inputs, odd dimensions included):
//  - integer kernels (dot_u8_s8*, bit_plane_dot_batch) are exact at every level: bit-equal (the
//    AVX-512 levels count bit planes with VPOPCNTQ on CPUs that have AVX512_VPOPCNTDQ);
//  - pq_adc_batch adds the m table entries of a row in order j = 0..m-1 at every level: bit-equal;
//  - pq4_fast_scan sums bytes exactly in uint16 and scales the sum by one fused multiply-add,
//    pq4_quantize_tables and quantize_bit_planes only compare, subtract, multiply and round:
//    bit-equal;
//  - l2_squared_transposed and inner_product_transposed sum in order of d with one fused
//    multiply-add per term at every level: bit-equal;
//  - smallest and indexes_at_most compare only: exact at every level;
//  - float32/float16 distance kernels may sum in a different order per level, so they agree to
//    a relative tolerance only. Within one process every search path uses the same level, so
//    equal inputs still give bit-equal distances (docs/design.md, "Query semantics").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::index::vector::simd {

enum class Level { kScalar = 0, kAvx2 = 1, kAvx512 = 2, kAvx512Vnni = 3 };

// "scalar" | "avx2" | "avx512" | "avx512_vnni".
std::string_view LevelName(Level level);
// The inverse of LevelName (case-insensitive); nullopt for any other text.
std::optional<Level> ParseLevel(std::string_view text);
// The best level this CPU supports (AVX2 means AVX2+FMA+F16C+POPCNT; AVX-512 means F+BW+VL+DQ;
// VNNI adds AVX512_VNNI).
Level DetectedLevel();
// DetectedLevel(), lowered by TESSERA_SIMD when set (an unknown value is ignored). Read once,
// at first use; later changes to the environment have no effect.
Level ActiveLevel();
// The rule ActiveLevel() applies: `requested` (the TESSERA_SIMD text, null when unset) lowers
// `detected` and never raises it; an unparsable request leaves `detected`.
Level ChooseLevel(Level detected, const char* requested);

// The most pairs of 4-bit sub-quantizer codes a pq4_fast_scan row may have: 256 sums of bytes
// stay below 2^16.
inline constexpr int kPq4MaxPairs = 128;
// The most queries one pq4_fast_scan_queries call scores.
inline constexpr int kPq4MaxQueries = 4;

struct Kernels {
  Level level = Level::kScalar;

  // float32 · float32
  float (*l2_squared)(const float* a, const float* b, int dim) = nullptr;
  float (*inner_product)(const float* a, const float* b, int dim) = nullptr;
  // One query against `count` contiguous rows of `dim` floats: out[i] = f(query, rows + i·dim).
  // Equal, per row, to the single-pair kernel of the same level (bit-equal).
  void (*l2_squared_batch)(const float* query, const float* rows, int64_t count, int dim,
                           float* out) = nullptr;
  void (*inner_product_batch)(const float* query, const float* rows, int64_t count, int dim,
                              float* out) = nullptr;
  // Cosine's parts in one pass over each row: dots[i] = inner_product(query, row i) and
  // norms[i] = inner_product(row i, row i), each bit-equal to the single-pair kernel.
  void (*inner_product_and_norm_batch)(const float* query, const float* rows, int64_t count,
                                       int dim, float* dots, float* norms) = nullptr;

  // One point against `count` vectors stored transposed (coordinate d of vector c at
  // columns[d·stride + c], stride ≥ count): out[c] = Σ_{d=0..dim-1} (point[d] − column)², summed
  // from 0 in order of d by one fused multiply-add per term. Lane c of a vector register holds
  // vector c, so no horizontal sums: the fast way to meet few dimensions (PQ sub-vectors
  // against their 256 codebook entries). Reads and writes nothing past vector count − 1.
  // Returns smallest(out, count), found in registers on the way.
  float (*l2_squared_transposed)(const float* point, const float* columns, int64_t stride,
                                 int64_t count, int dim, float* out) = nullptr;
  // The same layout and order for inner products: out[c] = Σ_d point[d] · column, summed from 0
  // in order of d by one fused multiply-add per term (PQ query tables).
  void (*inner_product_transposed)(const float* point, const float* columns, int64_t stride,
                                   int64_t count, int dim, float* out) = nullptr;

  // The smallest of values[0..count) that is a number; +infinity when there is none. (Of +0
  // and −0, either: the levels may differ in that sign alone.)
  float (*smallest)(const float* values, int64_t count) = nullptr;
  // Writes the indexes i (increasing) with values[i] <= bound to `out` (room for `count`),
  // returns how many; NaN values never qualify.
  int64_t (*indexes_at_most)(const float* values, int64_t count, float bound,
                             int32_t* out) = nullptr;

  // float32 query · float16 row (IEEE binary16 bits as uint16_t).
  float (*l2_squared_f16)(const float* query, const uint16_t* row, int dim) = nullptr;
  float (*inner_product_f16)(const float* query, const uint16_t* row, int dim) = nullptr;
  // float16 → float32 conversion of `count` values (exact).
  void (*f16_to_f32)(const uint16_t* in, int64_t count, float* out) = nullptr;

  // Scalar quantization: Σ_d codes[d] · weights[d] with unsigned 8-bit codes and signed 8-bit
  // weights, exact in int32 (dim ≤ 65536).
  int32_t (*dot_u8_s8)(const uint8_t* codes, const int8_t* weights, int dim) = nullptr;
  // `count` code rows, `stride` bytes apart (stride ≥ dim): out[i] = dot_u8_s8(codes + i·stride).
  void (*dot_u8_s8_batch)(const uint8_t* codes, int64_t stride, int64_t count,
                          const int8_t* weights, int dim, int32_t* out) = nullptr;

  // Product quantization, asymmetric distance: `count` rows of m one-byte codes (row i at
  // codes + i·m); table holds m × 256 floats (sub-quantizer j at table + j·256):
  // out[i] = Σ_{j=0..m-1} table[j·256 + codes[i·m + j]], added in order of j.
  void (*pq_adc_batch)(const uint8_t* codes, int64_t count, int m, const float* table,
                       float* out) = nullptr;

  // 4-bit product quantization, fast scan: `num_blocks` blocks of 32 rows, each row 2 × pairs
  // sub-quantizer codes of 4 bits. A block is stored pair-major, 32 × pairs bytes: byte i of pair
  // p (at block + p·32 + i) holds row i's code of sub-quantizer 2p in its low nibble and of
  // 2p + 1 in its high nibble. luts holds 2 × pairs tables of 16 unsigned bytes (sub-quantizer j
  // at luts + j·16), so a table fits one 128-bit register and a byte shuffle looks up 16 or 32
  // rows at once. With S = Σ_j luts[j·16 + code j of row i of block b], exact in uint16 (pairs
  // ≤ kPq4MaxPairs): out[b·32 + i] = fma(step, S, offset), one rounding. With no block it reads
  // nothing.
  void (*pq4_fast_scan)(const uint8_t* blocks, int64_t num_blocks, int pairs, const uint8_t* luts,
                        float offset, float step, float* out) = nullptr;
  // pq4_fast_scan for 1 to kPq4MaxQueries queries over the same blocks: query i's tables at
  // luts[i], its offset and step at offsets[i] and steps[i], its output at outs[i], each
  // bit-equal to pq4_fast_scan's for that query alone. Levels that can load and split a code
  // byte once for all the queries do.
  void (*pq4_fast_scan_queries)(const uint8_t* blocks, int64_t num_blocks, int pairs,
                                int num_queries, const uint8_t* const* luts, const float* offsets,
                                const float* steps, float* const* outs) = nullptr;
  // The byte tables of pq4_fast_scan from m float tables of 16 entries (sub-quantizer j at
  // table + j·16): lowest[j] = the smallest entry of table j, W = the widest range of any table
  // (largest − smallest entry), and luts[j·16 + c] = min(round((table − lowest[j]) · (255 / W)),
  // 255), rounded half to even (0 when W is 0). Returns W. Exact at every level: the same IEEE
  // operations per entry.
  float (*pq4_quantize_tables)(const float* table, int m, uint8_t* luts, float* lowest) = nullptr;

  // Bit-plane inner products (RaBitQ): `count` codes `stride` bytes apart, each starting with
  // `code_planes` planes of `plane_bytes` bytes (plane b at code + b·plane_bytes), against a query
  // of `query_planes` (≤ 16) planes of `plane_bytes` bytes:
  // out[i] = Σ_b Σ_j 2^(b+j) · popcount(plane b of code i AND query plane j), exact.
  void (*bit_plane_dot_batch)(const uint8_t* codes, int64_t stride, int64_t count, int code_planes,
                              const uint8_t* query, int query_planes, int plane_bytes,
                              uint64_t* out) = nullptr;
  // RaBitQ's query rounding: the levels v_d = min(round((values[d] − low) · scale), top) of
  // `count` values (a multiple of 64, count · top < 2^31; values ≥ low, scale ≥ 0, 1 ≤ planes ≤
  // 16, top = 2^planes − 1), rounded half to even; a product above top, infinite or NaN (∞ · 0)
  // gives top. Written as `planes` bit planes of count / 8 bytes (plane j at out + j·count/8, bit j
  // of v_d in bit d mod 8 of byte d / 8 of it); returns Σ_d v_d. Exact at every level: the same
  // IEEE subtraction, product, comparison and rounding per value.
  int64_t (*quantize_bit_planes)(const float* values, int count, float low, float scale, int top,
                                 int planes, uint8_t* out) = nullptr;
};

// The kernels of `level`, which must not exceed DetectedLevel() (it is clamped to it).
const Kernels& KernelsFor(Level level);
// The kernels of ActiveLevel().
const Kernels& ActiveKernels();

}  // namespace tessera::index::vector::simd
