// The scalar kernels: portable C++, the reference every SIMD level is tested against and the
// fallback on CPUs without AVX2. Float sums use eight independent partial sums, which the
// compiler can keep in vector registers at the baseline ISA (and which round closer to the
// exact sum than one running total); integer and PQ kernels define the exact results the SIMD
// levels must reproduce.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/simd/bit_plane_dot.h"
#include "tessera/index/vector/simd/kernel_tables.h"

namespace tessera::index::vector::simd {

namespace {

constexpr int kLanes = 8;

float SumLanes(const float* lanes) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// IEEE binary16 → binary32, exact. A NaN keeps its sign and payload and comes back quiet,
// exactly as F16C's VCVTPH2PS converts it, so every level gives the same bits.
float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13) | (mantissa != 0 ? 0x400000u : 0u);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal half: normalise; every one is a normal float.
    uint32_t float_exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --float_exponent;
    }
    bits = sign | (float_exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float L2Squared(const float* a, const float* b, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float difference = a[i + j] - b[i + j];
      lanes[j] += difference * difference;
    }
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) {
    const float difference = a[i] - b[i];
    sum += difference * difference;
  }
  return sum;
}

float InnerProduct(const float* a, const float* b, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += a[i + j] * b[i + j];
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

void L2SquaredBatch(const float* query, const float* rows, int64_t count, int dim, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = L2Squared(query, rows + i * dim, dim);
}

void InnerProductBatch(const float* query, const float* rows, int64_t count, int dim, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = InnerProduct(query, rows + i * dim, dim);
}

void InnerProductAndNormBatch(const float* query, const float* rows, int64_t count, int dim,
                              float* dots, float* norms) {
  for (int64_t i = 0; i < count; ++i) {
    const float* row = rows + i * dim;
    dots[i] = InnerProduct(query, row, dim);
    norms[i] = InnerProduct(row, row, dim);
  }
}

float L2SquaredF16(const float* query, const uint16_t* row, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float difference = query[i + j] - HalfToFloat(row[i + j]);
      lanes[j] += difference * difference;
    }
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) {
    const float difference = query[i] - HalfToFloat(row[i]);
    sum += difference * difference;
  }
  return sum;
}

float InnerProductF16(const float* query, const uint16_t* row, int dim) {
  float lanes[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= dim; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += query[i + j] * HalfToFloat(row[i + j]);
  }
  float sum = SumLanes(lanes);
  for (; i < dim; ++i) sum += query[i] * HalfToFloat(row[i]);
  return sum;
}

void HalfToFloatArray(const uint16_t* in, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = HalfToFloat(in[i]);
}

int32_t DotU8S8(const uint8_t* codes, const int8_t* weights, int dim) {
  int32_t sum = 0;
  for (int i = 0; i < dim; ++i) sum += static_cast<int32_t>(codes[i]) * weights[i];
  return sum;
}

void DotU8S8Batch(const uint8_t* codes, int64_t stride, int64_t count, const int8_t* weights,
                  int dim, int32_t* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = DotU8S8(codes + i * stride, weights, dim);
}

}  // namespace

namespace {

// The sum of row `row`'s entries, in order of j.
float PqAdcRow(const uint8_t* row, int m, const float* table) {
  float sum = 0.0f;
  for (int j = 0; j < m; ++j) sum += table[j * 256 + row[j]];
  return sum;
}

// The reference of Kernels::pq4_fast_scan: row by row, sub-quantizer by sub-quantizer.
void Pq4FastScan(const uint8_t* blocks, int64_t num_blocks, int pairs, const uint8_t* luts,
                 float offset, float step, float* out) {
  for (int64_t b = 0; b < num_blocks; ++b) {
    const uint8_t* block = blocks + b * 32 * pairs;
    for (int i = 0; i < 32; ++i) {
      uint32_t sum = 0;
      for (int p = 0; p < pairs; ++p) {
        const uint8_t byte = block[p * 32 + i];
        sum += luts[(2 * p) * 16 + (byte & 0x0f)];
        sum += luts[(2 * p + 1) * 16 + (byte >> 4)];
      }
      out[b * 32 + i] = std::fma(step, static_cast<float>(sum), offset);
    }
  }
}

float Pq4QuantizeTables(const float* table, int m, uint8_t* luts, float* lowest) {
  float widest = 0.0f;
  for (int j = 0; j < m; ++j) {
    const float* row = table + j * 16;
    float low = row[0];
    float high = row[0];
    for (int c = 1; c < 16; ++c) {
      low = std::min(low, row[c]);
      high = std::max(high, row[c]);
    }
    lowest[j] = low;
    widest = std::max(widest, high - low);
  }
  const float scale = widest > 0.0f ? 255.0f / widest : 0.0f;
  for (int j = 0; j < m; ++j) {
    for (int c = 0; c < 16; ++c) {
      const float scaled = (table[j * 16 + c] - lowest[j]) * scale;
      const float level = std::min(RoundHalfEven(scaled), 255.0f);
      // NaN (an infinite table: ∞ · 0) becomes 0, as the SIMD conversions make it.
      luts[j * 16 + c] = level >= 0.0f ? static_cast<uint8_t>(level) : 0;
    }
  }
  return widest;
}

}  // namespace

void PortablePqAdcBatch(const uint8_t* codes, int64_t count, int m, const float* table,
                        float* out) {
  int64_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    if (m % 8 == 0) {
      // Four rows at once, each summed in order of j: four independent chains of additions
      // (one row's chain alone waits on every add's latency). One load for eight codes, then
      // shifts: the loads left are the table's, which bound the scan on CPUs with two or three
      // load ports.
      for (; i + 4 <= count; i += 4) {
        const uint8_t* rows = codes + i * m;
        float sums[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int j = 0; j < m; j += 8) {
          const float* entries = table + j * 256;
          for (int r = 0; r < 4; ++r) {
            uint64_t word;
            std::memcpy(&word, rows + r * m + j, sizeof word);
            // Spelled out: GCC -O2 keeps a loop here, with a variable shift per code.
            float sum = sums[r];
            sum += entries[word & 0xff];
            sum += entries[256 + ((word >> 8) & 0xff)];
            sum += entries[512 + ((word >> 16) & 0xff)];
            sum += entries[768 + ((word >> 24) & 0xff)];
            sum += entries[1024 + ((word >> 32) & 0xff)];
            sum += entries[1280 + ((word >> 40) & 0xff)];
            sum += entries[1536 + ((word >> 48) & 0xff)];
            sum += entries[1792 + (word >> 56)];
            sums[r] = sum;
          }
        }
        for (int r = 0; r < 4; ++r) out[i + r] = sums[r];
      }
    }
  }
  for (; i < count; ++i) out[i] = PqAdcRow(codes + i * m, m, table);
}

int64_t PortableQuantizeBitPlanes(const float* values, int count, float low, float scale, int top,
                                  int planes, uint8_t* out) {
  const float most = static_cast<float>(top);
  const int plane_bytes = count / 8;
  int64_t sum = 0;
  for (int g = 0; g < plane_bytes; ++g) {
    // The levels' low and high bytes of coordinates 8g … 8g + 7, one per byte of a word.
    uint64_t low_bytes = 0;
    uint64_t high_bytes = 0;
    for (int i = 0; i < 8; ++i) {
      // Clamped before rounding, as the SIMD levels do: NaN and anything above top give top
      // (and RoundHalfEven only ever sees [0, top]).
      const float scaled = (values[8 * g + i] - low) * scale;
      const auto level = static_cast<uint32_t>(RoundHalfEven(scaled < most ? scaled : most));
      sum += level;
      low_bytes |= static_cast<uint64_t>(level & 0xff) << (8 * i);
      high_bytes |= static_cast<uint64_t>(level >> 8) << (8 * i);
    }
    // (word >> j) puts bit j of byte i at bit 8i; the multiply moves bit 8i to bit 56 + i (the
    // products land on distinct bits, so nothing carries).
    for (int j = 0; j < planes; ++j) {
      const uint64_t source = j < 8 ? low_bytes >> j : high_bytes >> (j - 8);
      out[static_cast<size_t>(j) * plane_bytes + g] =
          static_cast<uint8_t>(((source & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
    }
  }
  return sum;
}

void PortableBitPlaneDotBatch(const uint8_t* codes, int64_t stride, int64_t count, int code_planes,
                              const uint8_t* query, int query_planes, int plane_bytes,
                              uint64_t* out) {
  BitPlaneDotBatchBody(codes, stride, count, code_planes, query, query_planes, plane_bytes, out);
}

namespace {

float L2SquaredTransposed(const float* point, const float* columns, int64_t stride, int64_t count,
                          int dim, float* out) {
  float smallest = INFINITY;
  for (int64_t c = 0; c < count; ++c) {
    float sum = 0.0f;
    for (int d = 0; d < dim; ++d) {
      const float difference = point[d] - columns[d * stride + c];
      sum = std::fma(difference, difference, sum);
    }
    out[c] = sum;
    smallest = sum < smallest ? sum : smallest;
  }
  return smallest;
}

void InnerProductTransposed(const float* point, const float* columns, int64_t stride, int64_t count,
                            int dim, float* out) {
  for (int64_t c = 0; c < count; ++c) {
    float sum = 0.0f;
    for (int d = 0; d < dim; ++d) sum = std::fma(point[d], columns[d * stride + c], sum);
    out[c] = sum;
  }
}

float Smallest(const float* values, int64_t count) {
  float smallest = INFINITY;
  for (int64_t i = 0; i < count; ++i) smallest = values[i] < smallest ? values[i] : smallest;
  return smallest;
}

int64_t IndexesAtMost(const float* values, int64_t count, float bound, int32_t* out) {
  int64_t found = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (values[i] <= bound) out[found++] = static_cast<int32_t>(i);
  }
  return found;
}

}  // namespace

const Kernels& ScalarKernels() {
  static const Kernels kernels = [] {
    Kernels table;
    table.level = Level::kScalar;
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
    table.bit_plane_dot_batch = PortableBitPlaneDotBatch;
    table.quantize_bit_planes = PortableQuantizeBitPlanes;
    return table;
  }();
  return kernels;
}

}  // namespace tessera::index::vector::simd
