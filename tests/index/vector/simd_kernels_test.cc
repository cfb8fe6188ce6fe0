// SIMD vector kernels (index/vector/simd/kernels.h): every level this CPU supports against the
// scalar level on random inputs of odd and even dimensions — float kernels within a rounding
// error bound, integer and PQ kernels bit-equal — plus batch = single per row, exact float16
// conversion, extreme integer inputs, strides, empty batches, unaligned pointers, and the
// TESSERA_SIMD override rule.
#include "tessera/index/vector/simd/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/index/vector/distance.h"
#include "tessera/index/vector/simd/kernel_tables.h"

namespace tessera::index::vector::simd::simd_kernels_test {
namespace {

constexpr int kDims[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 127, 128, 129, 255, 768, 1000};
constexpr Level kAllLevels[] = {Level::kScalar, Level::kAvx2, Level::kAvx512, Level::kAvx512Vnni};

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::vector<float> RandomFloats(std::mt19937& random, size_t count) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(random);
  return values;
}

// Finite binary16 values between about 2^-10 and 2^5 in magnitude, of either sign, with some
// subnormals and zeros.
std::vector<uint16_t> RandomHalves(std::mt19937& random, size_t count) {
  std::uniform_int_distribution<int> exponent(0, 20), mantissa(0, 0x3ff), sign(0, 1);
  std::vector<uint16_t> values(count);
  for (uint16_t& value : values) {
    value =
        static_cast<uint16_t>((sign(random) << 15) | (exponent(random) << 10) | mantissa(random));
  }
  return values;
}

// IEEE binary16 → double, written independently of the kernels.
double HalfValue(uint16_t half) {
  const int exponent = (half >> 10) & 0x1f;
  const int mantissa = half & 0x3ff;
  const double sign = (half & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f) return mantissa == 0 ? sign * INFINITY : NAN;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// Two float sums of the same terms in different orders (and with or without fused
// multiply-adds) differ by a few ulps of Σ|terms| per term at most; the tests allow 1e-5 of
// Σ|terms|, far above what dims ≤ 1000 of random data produce and far below a wrong term.
void ExpectClose(float actual, float expected, double magnitude) {
  EXPECT_LE(std::fabs(static_cast<double>(actual) - expected), 1e-5 * magnitude + 1e-30)
      << "actual " << actual << ", expected " << expected << ", magnitude " << magnitude;
}

double L2Magnitude(const float* a, const float* b, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; ++i) sum += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  return sum;
}

double DotMagnitude(const float* a, const float* b, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; ++i) sum += std::fabs(double{a[i]} * b[i]);
  return sum;
}

class SimdKernelsTest : public ::testing::TestWithParam<Level> {
 protected:
  void SetUp() override {
    if (GetParam() > DetectedLevel()) {
      GTEST_SKIP() << "this CPU does not support " << LevelName(GetParam());
    }
  }
  const Kernels& kernels() const { return KernelsFor(GetParam()); }
  const Kernels& scalar() const { return KernelsFor(Level::kScalar); }
};

TEST_P(SimdKernelsTest, TableIsCompleteAndOfItsLevel) {
  const Kernels& table = kernels();
  EXPECT_EQ(table.level, GetParam());
  EXPECT_NE(table.l2_squared, nullptr);
  EXPECT_NE(table.inner_product, nullptr);
  EXPECT_NE(table.l2_squared_batch, nullptr);
  EXPECT_NE(table.inner_product_batch, nullptr);
  EXPECT_NE(table.inner_product_and_norm_batch, nullptr);
  EXPECT_NE(table.l2_squared_f16, nullptr);
  EXPECT_NE(table.inner_product_f16, nullptr);
  EXPECT_NE(table.f16_to_f32, nullptr);
  EXPECT_NE(table.dot_u8_s8, nullptr);
  EXPECT_NE(table.dot_u8_s8_batch, nullptr);
  EXPECT_NE(table.pq_adc_batch, nullptr);
  EXPECT_NE(table.l2_squared_transposed, nullptr);
  EXPECT_NE(table.inner_product_transposed, nullptr);
  EXPECT_NE(table.smallest, nullptr);
  EXPECT_NE(table.indexes_at_most, nullptr);
  EXPECT_NE(table.bit_plane_dot_batch, nullptr);
  EXPECT_NE(table.quantize_bit_planes, nullptr);
  EXPECT_NE(table.pq4_fast_scan, nullptr);
  EXPECT_NE(table.pq4_quantize_tables, nullptr);
  EXPECT_NE(table.pq4_fast_scan_queries, nullptr);
}

TEST_P(SimdKernelsTest, FloatKernelsMatchScalarWithinRounding) {
  std::mt19937 random(7);
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    for (int offset : {0, 1}) {  // 1: pointers one float off their allocation's alignment
      const std::vector<float> a = RandomFloats(random, dim + 1);
      const std::vector<float> b = RandomFloats(random, dim + 1);
      const float* x = a.data() + offset;
      const float* y = b.data() + offset;
      const double l2 = L2Magnitude(x, y, dim);
      const double dot = DotMagnitude(x, y, dim);
      ExpectClose(kernels().l2_squared(x, y, dim), scalar().l2_squared(x, y, dim), l2);
      ExpectClose(kernels().inner_product(x, y, dim), scalar().inner_product(x, y, dim), dot);
      // And both against the exact sums.
      double exact_l2 = 0, exact_dot = 0;
      for (int i = 0; i < dim; ++i) {
        exact_l2 += (double{x[i]} - y[i]) * (double{x[i]} - y[i]);
        exact_dot += double{x[i]} * y[i];
      }
      ExpectClose(kernels().l2_squared(x, y, dim), static_cast<float>(exact_l2), l2);
      ExpectClose(kernels().inner_product(x, y, dim), static_cast<float>(exact_dot), dot);
    }
  }
}

TEST_P(SimdKernelsTest, FloatBatchEqualsSingleBitForBit) {
  std::mt19937 random(11);
  constexpr int64_t kCount = 37;
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    const std::vector<float> query = RandomFloats(random, dim + 1);
    const std::vector<float> rows = RandomFloats(random, kCount * dim + 1);
    for (int offset : {0, 1}) {
      const float* q = query.data() + offset;
      const float* r = rows.data() + offset;
      std::vector<float> l2(kCount + 1), dot(kCount + 1);
      kernels().l2_squared_batch(q, r, kCount, dim, l2.data() + offset);
      kernels().inner_product_batch(q, r, kCount, dim, dot.data() + offset);
      for (int64_t i = 0; i < kCount; ++i) {
        ASSERT_EQ(Bits(l2[i + offset]), Bits(kernels().l2_squared(q, r + i * dim, dim))) << i;
        ASSERT_EQ(Bits(dot[i + offset]), Bits(kernels().inner_product(q, r + i * dim, dim))) << i;
      }
    }
  }
}

TEST_P(SimdKernelsTest, DotAndNormBatchEqualsSingleBitForBit) {
  std::mt19937 random(13);
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    for (int64_t count : {1, 2, 3, 37}) {
      const std::vector<float> query = RandomFloats(random, dim + 1);
      const std::vector<float> rows = RandomFloats(random, count * dim + 1);
      for (int offset : {0, 1}) {
        const float* q = query.data() + offset;
        const float* r = rows.data() + offset;
        std::vector<float> dots(count), norms(count);
        kernels().inner_product_and_norm_batch(q, r, count, dim, dots.data(), norms.data());
        for (int64_t i = 0; i < count; ++i) {
          const float* row = r + i * dim;
          ASSERT_EQ(Bits(dots[i]), Bits(kernels().inner_product(q, row, dim))) << i;
          ASSERT_EQ(Bits(norms[i]), Bits(kernels().inner_product(row, row, dim))) << i;
        }
      }
    }
  }
}

TEST_P(SimdKernelsTest, HalfKernelsMatchScalarWithinRounding) {
  std::mt19937 random(13);
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    for (int offset : {0, 1}) {
      const std::vector<float> query = RandomFloats(random, dim + 1);
      const std::vector<uint16_t> row = RandomHalves(random, dim + 1);
      const float* q = query.data() + offset;
      const uint16_t* h = row.data() + offset;
      std::vector<float> widened(dim);
      for (int i = 0; i < dim; ++i) widened[i] = static_cast<float>(HalfValue(h[i]));
      const double l2 = L2Magnitude(q, widened.data(), dim);
      const double dot = DotMagnitude(q, widened.data(), dim);
      ExpectClose(kernels().l2_squared_f16(q, h, dim), scalar().l2_squared_f16(q, h, dim), l2);
      ExpectClose(kernels().inner_product_f16(q, h, dim), scalar().inner_product_f16(q, h, dim),
                  dot);
      ExpectClose(kernels().l2_squared_f16(q, h, dim), scalar().l2_squared(q, widened.data(), dim),
                  l2);
      ExpectClose(kernels().inner_product_f16(q, h, dim),
                  scalar().inner_product(q, widened.data(), dim), dot);
    }
  }
}

TEST_P(SimdKernelsTest, HalfToFloatIsExactOnEveryBitPattern) {
  std::vector<uint16_t> halves(65536 + 1);
  for (uint32_t i = 0; i < 65536; ++i) halves[i + 1] = static_cast<uint16_t>(i);
  std::vector<float> converted(65536 + 1), reference(65536);
  // Offset by one element: neither array is vector-aligned.
  kernels().f16_to_f32(halves.data() + 1, 65536, converted.data() + 1);
  scalar().f16_to_f32(halves.data() + 1, 65536, reference.data());
  for (uint32_t i = 0; i < 65536; ++i) {
    const float value = converted[i + 1];
    const double expected = HalfValue(static_cast<uint16_t>(i));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(value)) << std::hex << i;
      ASSERT_EQ(std::signbit(value), (i & 0x8000) != 0) << std::hex << i;
    } else {
      ASSERT_EQ(Bits(value), Bits(static_cast<float>(expected))) << std::hex << i;
    }
    // NaNs included: every level quiets a NaN the same way and keeps its payload.
    ASSERT_EQ(Bits(value), Bits(reference[i])) << std::hex << i;
  }
}

TEST_P(SimdKernelsTest, HalfToFloatWritesExactlyCountValues) {
  std::mt19937 random(17);
  const std::vector<uint16_t> halves = RandomHalves(random, 64);
  for (int64_t count = 0; count <= 40; ++count) {
    SCOPED_TRACE(count);
    std::vector<float> out(64, -7.0f);
    kernels().f16_to_f32(halves.data() + 1, count, out.data() + 1);
    EXPECT_EQ(out[0], -7.0f);
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(Bits(out[i + 1]), Bits(static_cast<float>(HalfValue(halves[i + 1])))) << i;
    }
    for (int64_t i = count + 1; i < 64; ++i) ASSERT_EQ(out[i], -7.0f) << i;
  }
}

TEST_P(SimdKernelsTest, DotU8S8IsExact) {
  std::mt19937 random(19);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    for (int offset : {0, 1}) {  // 1: pointers one byte off
      std::vector<uint8_t> codes(dim + 1);
      std::vector<int8_t> weights(dim + 1);
      for (uint8_t& code : codes) code = static_cast<uint8_t>(byte(random));
      for (int8_t& weight : weights) weight = static_cast<int8_t>(byte(random) - 128);
      int64_t expected = 0;
      for (int i = 0; i < dim; ++i) expected += codes[i + offset] * weights[i + offset];
      EXPECT_EQ(kernels().dot_u8_s8(codes.data() + offset, weights.data() + offset, dim), expected);
      EXPECT_EQ(scalar().dot_u8_s8(codes.data() + offset, weights.data() + offset, dim), expected);
    }
  }
}

TEST_P(SimdKernelsTest, DotU8S8IsExactAtExtremeValues) {
  for (int dim : {1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4097, 65535, 65536}) {
    SCOPED_TRACE(dim);
    const std::vector<uint8_t> codes(static_cast<size_t>(dim) * 5, 255);
    for (int8_t weight : {int8_t{-128}, int8_t{127}}) {
      const std::vector<int8_t> weights(dim, weight);
      const int32_t expected = 255 * weight * dim;
      EXPECT_EQ(kernels().dot_u8_s8(codes.data(), weights.data(), dim), expected);
      std::vector<int32_t> out(5);
      kernels().dot_u8_s8_batch(codes.data(), dim, 5, weights.data(), dim, out.data());
      for (int32_t value : out) EXPECT_EQ(value, expected);
    }
  }
}

TEST_P(SimdKernelsTest, DotU8S8BatchEqualsSingleWithStrideAndOffsets) {
  std::mt19937 random(23);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int dim : kDims) {
    SCOPED_TRACE(dim);
    for (int64_t count : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{5}, int64_t{11}}) {
      const int64_t stride = dim + 5;
      std::vector<uint8_t> codes(static_cast<size_t>(stride * count + 1));
      std::vector<int8_t> weights(dim + 1);
      for (uint8_t& code : codes) code = static_cast<uint8_t>(byte(random));
      for (int8_t& weight : weights) weight = static_cast<int8_t>(byte(random) - 128);
      std::vector<int32_t> out(count + 2, -1);
      kernels().dot_u8_s8_batch(codes.data() + 1, stride, count, weights.data() + 1, dim,
                                out.data() + 1);
      EXPECT_EQ(out[0], -1);
      EXPECT_EQ(out[count + 1], -1);
      for (int64_t i = 0; i < count; ++i) {
        const uint8_t* row = codes.data() + 1 + i * stride;
        ASSERT_EQ(out[i + 1], scalar().dot_u8_s8(row, weights.data() + 1, dim)) << i;
        ASSERT_EQ(out[i + 1], kernels().dot_u8_s8(row, weights.data() + 1, dim)) << i;
      }
    }
  }
}

using PqAdcKernel = void (*)(const uint8_t* codes, int64_t count, int m, const float* table,
                             float* out);

// `kernel` adds the m table entries of each row in order of j, bit for bit.
void ExpectInOrderPqSums(PqAdcKernel kernel) {
  std::mt19937 random(29);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int m : {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 32, 64}) {
    SCOPED_TRACE(m);
    std::vector<float> table = RandomFloats(random, static_cast<size_t>(m) * 256);
    for (float& entry : table) entry *= 100.0f;
    for (int64_t count : {1, 7, 8, 9, 15, 16, 17, 33, 100}) {
      SCOPED_TRACE(count);
      std::vector<uint8_t> codes(static_cast<size_t>(count * m + 1));
      for (uint8_t& code : codes) code = static_cast<uint8_t>(byte(random));
      std::vector<float> out(count + 2, -1.0f);
      kernel(codes.data() + 1, count, m, table.data(), out.data() + 1);  // unaligned codes
      EXPECT_EQ(out[0], -1.0f);
      EXPECT_EQ(out[count + 1], -1.0f);
      for (int64_t i = 0; i < count; ++i) {
        float expected = 0.0f;
        for (int j = 0; j < m; ++j) expected += table[j * 256 + codes[1 + i * m + j]];
        ASSERT_EQ(Bits(out[i + 1]), Bits(expected)) << i;
      }
    }
  }
}

TEST_P(SimdKernelsTest, PqAdcAddsTableEntriesInOrderBitForBit) {
  ExpectInOrderPqSums(kernels().pq_adc_batch);
}

#if defined(TESSERA_SIMD_X86)
// The gather kernels are not in the tables (kernel_tables.h) but must stay bit-equal.
TEST(SimdGatherPqTest, GatherKernelsAddInOrderBitForBit) {
  if (DetectedLevel() < Level::kAvx2) GTEST_SKIP() << "no AVX2";
  ExpectInOrderPqSums(GatherPqAdcBatchAvx2);
  if (DetectedLevel() < Level::kAvx512) GTEST_SKIP() << "no AVX-512";
  ExpectInOrderPqSums(GatherPqAdcBatchAvx512);
}
#endif

// Counts around the register widths (8, 16) and the passes of four registers (32, 64).
constexpr int64_t kCounts[] = {1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 256, 257};

TEST_P(SimdKernelsTest, TransposedL2SumsInOrderOfDimensionBitForBit) {
  std::mt19937 random(17);
  for (int dim : {1, 2, 3, 4, 8, 12, 16, 17, 32, 33}) {
    for (int64_t count : kCounts) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " count " << count);
      const int64_t stride = count + 5;  // wider than count: no column is read past count
      const std::vector<float> point = RandomFloats(random, static_cast<size_t>(dim));
      const std::vector<float> columns = RandomFloats(random, static_cast<size_t>(dim * stride));
      std::vector<float> out(static_cast<size_t>(count) + 3, -7.0f);
      const float smallest = kernels().l2_squared_transposed(point.data(), columns.data(), stride,
                                                             count, dim, out.data());
      for (int64_t c = 0; c < count; ++c) {
        float expected = 0.0f;  // the definition, written independently of the kernels
        for (int d = 0; d < dim; ++d) {
          const float difference = point[d] - columns[d * stride + c];
          expected = std::fma(difference, difference, expected);
        }
        ASSERT_EQ(Bits(out[c]), Bits(expected)) << c;
      }
      EXPECT_EQ(Bits(smallest), Bits(*std::min_element(out.begin(), out.begin() + count)));
      for (size_t c = static_cast<size_t>(count); c < out.size(); ++c) ASSERT_EQ(out[c], -7.0f);
    }
  }
  // NaN sums never become the smallest; with all of them NaN it is +infinity.
  std::vector<float> point(4, 0.5f), columns(4 * 100, 0.25f), out(100);
  columns[2 * 100 + 70] = NAN;  // vector 70's sum is NaN
  columns[3 * 100 + 99] = 0.0f;
  EXPECT_EQ(kernels().l2_squared_transposed(point.data(), columns.data(), 100, 100, 4, out.data()),
            out[0]);
  EXPECT_TRUE(std::isnan(out[70]));
  point[1] = NAN;
  EXPECT_EQ(kernels().l2_squared_transposed(point.data(), columns.data(), 100, 100, 4, out.data()),
            INFINITY);
}

TEST_P(SimdKernelsTest, TransposedInnerProductSumsInOrderOfDimensionBitForBit) {
  std::mt19937 random(29);
  for (int dim : {1, 2, 3, 4, 8, 12, 16, 17, 32, 33}) {
    for (int64_t count : kCounts) {
      SCOPED_TRACE(::testing::Message() << "dim " << dim << " count " << count);
      const int64_t stride = count + 3;
      const std::vector<float> point = RandomFloats(random, static_cast<size_t>(dim));
      const std::vector<float> columns = RandomFloats(random, static_cast<size_t>(dim * stride));
      std::vector<float> out(static_cast<size_t>(count) + 3, -7.0f);
      kernels().inner_product_transposed(point.data(), columns.data(), stride, count, dim,
                                         out.data());
      for (int64_t c = 0; c < count; ++c) {
        float expected = 0.0f;  // the definition, written independently of the kernels
        for (int d = 0; d < dim; ++d)
          expected = std::fma(point[d], columns[d * stride + c], expected);
        ASSERT_EQ(Bits(out[c]), Bits(expected)) << c;
      }
      for (size_t c = static_cast<size_t>(count); c < out.size(); ++c) ASSERT_EQ(out[c], -7.0f);
    }
  }
}

TEST_P(SimdKernelsTest, SmallestIgnoresNaNs) {
  std::mt19937 random(19);
  for (int64_t count : kCounts) {
    SCOPED_TRACE(count);
    std::vector<float> values = RandomFloats(random, static_cast<size_t>(count));
    float expected = INFINITY;
    for (float value : values) expected = std::min(expected, value);
    EXPECT_EQ(Bits(kernels().smallest(values.data(), count)), Bits(expected));
    // NaN in any lane, first or last, changes nothing; all NaN is +infinity.
    values.front() = NAN;
    values.back() = NAN;
    expected = INFINITY;
    for (float value : values) {
      if (!std::isnan(value)) expected = std::min(expected, value);
    }
    EXPECT_EQ(Bits(kernels().smallest(values.data(), count)), Bits(expected));
    std::fill(values.begin(), values.end(), NAN);
    EXPECT_EQ(kernels().smallest(values.data(), count), INFINITY);
  }
  EXPECT_EQ(kernels().smallest(nullptr, 0), INFINITY);
}

TEST_P(SimdKernelsTest, IndexesAtMostListsQualifyingIndexesInOrder) {
  std::mt19937 random(23);
  for (int64_t count : kCounts) {
    SCOPED_TRACE(count);
    std::vector<float> values = RandomFloats(random, static_cast<size_t>(count));
    values[static_cast<size_t>(count) / 2] = NAN;
    values.back() = 0.25f;  // equal to the bound: qualifies
    for (float bound : {-2.0f, -0.5f, 0.25f, 2.0f, INFINITY}) {
      std::vector<int32_t> expected;
      for (int64_t i = 0; i < count; ++i) {
        if (values[i] <= bound) expected.push_back(static_cast<int32_t>(i));
      }
      std::vector<int32_t> found(static_cast<size_t>(count), -1);
      const int64_t n = kernels().indexes_at_most(values.data(), count, bound, found.data());
      found.resize(static_cast<size_t>(n));
      EXPECT_EQ(found, expected) << "bound " << bound;
    }
  }
}

// Σ_b Σ_j 2^(b+j) · |plane b ∩ query plane j|, one bit at a time.
uint64_t ReferenceBitPlaneDot(const uint8_t* code, int code_planes, const uint8_t* query,
                              int query_planes, int plane_bytes) {
  uint64_t total = 0;
  for (int b = 0; b < code_planes; ++b) {
    for (int j = 0; j < query_planes; ++j) {
      for (int bit = 0; bit < plane_bytes * 8; ++bit) {
        const int c = (code[b * plane_bytes + bit / 8] >> (bit % 8)) & 1;
        const int q = (query[j * plane_bytes + bit / 8] >> (bit % 8)) & 1;
        total += static_cast<uint64_t>(c & q) << (b + j);
      }
    }
  }
  return total;
}

TEST_P(SimdKernelsTest, BitPlaneDotsCountEveryPairOfPlanesExactly) {
  std::mt19937_64 random(71);
  // Whole words and tails, one to eight code planes, the query plane counts RaBitQ uses and
  // others (the general path), codes with a stride beyond their planes.
  // 1 to 4 chunks of 64 bytes for the AVX-512 kernel, whole and masked, and the 16- and 32-byte
  // planes it packs four or two rows to a register (nine rows: a tail too).
  for (int plane_bytes : {1, 6, 8, 13, 16, 32, 64, 96, 136, 192, 200}) {
    for (int code_planes : {1, 2, 5, 8}) {
      for (int query_planes : {1, 4, 7, 11, 16}) {
        const int64_t stride = int64_t{code_planes} * plane_bytes + 12;
        const int64_t count = 9;
        std::vector<uint8_t> codes(static_cast<size_t>(stride * count));
        std::vector<uint8_t> query(static_cast<size_t>(query_planes) * plane_bytes);
        for (auto& byte : codes) byte = static_cast<uint8_t>(random());
        for (auto& byte : query) byte = static_cast<uint8_t>(random());
        if (code_planes == 8) std::fill(codes.begin(), codes.end(), 0xff);  // the largest sums
        std::vector<uint64_t> out(static_cast<size_t>(count) + 1, 7);
        kernels().bit_plane_dot_batch(codes.data(), stride, count, code_planes, query.data(),
                                      query_planes, plane_bytes, out.data());
        for (int64_t i = 0; i < count; ++i) {
          EXPECT_EQ(out[i], ReferenceBitPlaneDot(codes.data() + i * stride, code_planes,
                                                 query.data(), query_planes, plane_bytes))
              << plane_bytes << " bytes, " << code_planes << " x " << query_planes << " planes";
        }
        EXPECT_EQ(out[count], 7u);  // nothing written past count
      }
    }
  }
}

// Kernels::quantize_bit_planes against its definition: levels rounded half to even (exact ties
// included) and clamped to top, each plane's bits, and the levels' sum.
TEST_P(SimdKernelsTest, QuantizeBitPlanesRoundsEveryValueLikeTheDefinition) {
  std::mt19937_64 random(89);
  std::uniform_real_distribution<float> uniform(-3.0f, 5.0f);
  for (int count : {64, 128, 768, 4096}) {
    for (int planes : {4, 5, 8, 9, 11}) {
      const int top = (1 << planes) - 1;
      for (bool ties : {false, true}) {
        std::vector<float> values(static_cast<size_t>(count));
        float low = 0.0f;
        float scale = 1.0f;
        if (ties) {
          // (value − 0) · 1 = k + ½ for every k, and values past top: clamped.
          for (int d = 0; d < count; ++d) values[d] = static_cast<float>(d % (top + 3)) + 0.5f;
        } else {
          for (float& value : values) value = uniform(random);
          low = *std::min_element(values.begin(), values.end());
          const float high = *std::max_element(values.begin(), values.end());
          scale = static_cast<float>(top) / (high - low);
        }
        std::vector<uint8_t> out(static_cast<size_t>(planes) * count / 8 + 1, 0xa5);
        const int64_t sum = kernels().quantize_bit_planes(values.data(), count, low, scale, top,
                                                          planes, out.data());
        int64_t expected_sum = 0;
        for (int d = 0; d < count; ++d) {
          const float scaled = (values[d] - low) * scale;
          const int level = std::min(static_cast<int>(std::nearbyint(scaled)), top);
          expected_sum += level;
          for (int j = 0; j < planes; ++j) {
            const int bit = (out[static_cast<size_t>(j) * count / 8 + d / 8] >> (d % 8)) & 1;
            ASSERT_EQ(bit, (level >> j) & 1)
                << count << " values, " << planes << " planes, value " << d << " plane " << j;
          }
        }
        EXPECT_EQ(sum, expected_sum);
        EXPECT_EQ(out.back(), 0xa5);  // nothing written past the planes
      }
    }
  }
}

// Products that overflow to infinity, ∞ · 0 (NaN) and finite ones far above top all give top, at
// every level; values at low give 0.
TEST_P(SimdKernelsTest, QuantizeBitPlanesClampsInfiniteNaNAndHugeProductsToTop) {
  constexpr int kPlanes = 4;
  constexpr int kTop = 15;
  const float low = -3e38f;
  std::vector<float> values(64);
  for (int d = 0; d < 64; ++d) {
    values[d] = d % 3 == 0 ? 3e38f : d % 3 == 1 ? low : 1e30f;  // − low: ∞, 0, about 3e38
  }
  for (float scale : {1.0f, 0.0f, 1e-30f}) {
    std::vector<uint8_t> out(kPlanes * 8);
    const int64_t sum =
        kernels().quantize_bit_planes(values.data(), 64, low, scale, kTop, kPlanes, out.data());
    int64_t expected_sum = 0;
    for (int d = 0; d < 64; ++d) {
      // ∞ · s is ∞ (s > 0) or NaN (s = 0): top; 0 · s is 0; 3e38 · s is huge or 0 or 3e8.
      const int level = d % 3 == 1 ? 0 : (d % 3 == 2 && scale == 0.0f) ? 0 : kTop;
      expected_sum += level;
      for (int j = 0; j < kPlanes; ++j) {
        ASSERT_EQ((out[j * 8 + d / 8] >> (d % 8)) & 1, (level >> j) & 1)
            << "scale " << scale << ", value " << d << ", plane " << j;
      }
    }
    EXPECT_EQ(sum, expected_sum) << "scale " << scale;
  }
}

// Kernels::pq4_fast_scan's sums, computed from the definition: row i of block b has code j in
// the low (j even) or high (j odd) nibble of byte j / 2 of pair-major row i. With step 1 and
// offset 0 the output is the sum itself; with others, one fused multiply-add of it.
TEST_P(SimdKernelsTest, FastScanSumsEveryRowsTableBytesExactly) {
  std::mt19937_64 random(83);
  // One to 128 pairs (the most: sums up to 256 × 255), odd and even block counts (AVX-512 takes
  // pairs of sub-quantizers two at a time), all-0xff tables for the largest sums.
  for (int pairs : {1, 2, 3, 8, 24, 128}) {
    for (int64_t blocks : {1, 2, 3, 6}) {
      for (bool largest : {false, true}) {
        std::vector<uint8_t> codes(static_cast<size_t>(blocks) * 32 * pairs);
        std::vector<uint8_t> luts(static_cast<size_t>(pairs) * 32);
        for (auto& byte : codes) byte = static_cast<uint8_t>(random());
        for (auto& byte : luts) byte = largest ? 0xff : static_cast<uint8_t>(random());
        std::vector<float> sums(static_cast<size_t>(blocks) * 32 + 1, 7.0f);
        std::vector<float> scaled(sums.size(), 7.0f);
        kernels().pq4_fast_scan(codes.data(), blocks, pairs, luts.data(), 0.0f, 1.0f, sums.data());
        kernels().pq4_fast_scan(codes.data(), blocks, pairs, luts.data(), -3.25f, 0.0371f,
                                scaled.data());
        for (int64_t b = 0; b < blocks; ++b) {
          for (int i = 0; i < 32; ++i) {
            uint32_t expected = 0;
            for (int j = 0; j < 2 * pairs; ++j) {
              const uint8_t byte = codes[static_cast<size_t>(b * 32 * pairs + (j / 2) * 32 + i)];
              expected += luts[static_cast<size_t>(j) * 16 + ((byte >> (4 * (j % 2))) & 0x0f)];
            }
            const size_t at = static_cast<size_t>(b * 32 + i);
            ASSERT_EQ(sums[at], static_cast<float>(expected))
                << pairs << " pairs, " << blocks << " blocks, block " << b << " row " << i;
            ASSERT_EQ(scaled[at], std::fma(0.0371f, static_cast<float>(expected), -3.25f));
          }
        }
        EXPECT_EQ(sums.back(), 7.0f);  // nothing written past the last block
        EXPECT_EQ(scaled.back(), 7.0f);
      }
    }
  }
}

// pq4_fast_scan_queries gives each of its 1 to 4 queries what pq4_fast_scan gives it alone, bit
// for bit, with odd and even pair counts.
TEST_P(SimdKernelsTest, FastScanOfSeveralQueriesEqualsEachAlone) {
  std::mt19937_64 random(97);
  for (int pairs : {1, 3, 16, 33, kPq4MaxPairs}) {
    const int64_t blocks = pairs == 3 ? 0 : 3;  // no block: nothing written
    std::vector<uint8_t> codes(static_cast<size_t>(blocks) * 32 * pairs);
    for (auto& byte : codes) byte = static_cast<uint8_t>(random());
    for (int queries = 1; queries <= kPq4MaxQueries; ++queries) {
      std::vector<std::vector<uint8_t>> luts(static_cast<size_t>(queries));
      std::vector<std::vector<float>> outs(static_cast<size_t>(queries));
      const uint8_t* lut_pointers[kPq4MaxQueries];
      float* out_pointers[kPq4MaxQueries];
      float offsets[kPq4MaxQueries];
      float steps[kPq4MaxQueries];
      for (int i = 0; i < queries; ++i) {
        luts[i].resize(static_cast<size_t>(pairs) * 32);
        for (auto& byte : luts[i]) byte = static_cast<uint8_t>(random());
        outs[i].assign(static_cast<size_t>(blocks) * 32, -1.0f);
        lut_pointers[i] = luts[i].data();
        out_pointers[i] = outs[i].data();
        offsets[i] = 0.5f * static_cast<float>(i) - 1.0f;
        steps[i] = 0.013f * static_cast<float>(i + 1);
      }
      kernels().pq4_fast_scan_queries(codes.data(), blocks, pairs, queries, lut_pointers, offsets,
                                      steps, out_pointers);
      for (int i = 0; i < queries; ++i) {
        std::vector<float> alone(static_cast<size_t>(blocks) * 32);
        kernels().pq4_fast_scan(codes.data(), blocks, pairs, luts[i].data(), offsets[i], steps[i],
                                alone.data());
        EXPECT_EQ(outs[i], alone) << pairs << " pairs, query " << i << " of " << queries;
      }
    }
  }
}

// pq4_quantize_tables at every level equals the scalar reference byte for byte, and the
// reference follows its definition: each table's smallest entry becomes 0, the widest table's
// largest 255, and halves round to even.
TEST_P(SimdKernelsTest, FastScanTablesQuantizeLikeTheScalarReference) {
  std::mt19937_64 random(89);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int m : {1, 2, 7, 64}) {
    std::vector<float> table(static_cast<size_t>(m) * 16);
    for (float& entry : table) entry = normal(random);
    std::vector<uint8_t> luts(table.size());
    std::vector<uint8_t> reference(table.size());
    std::vector<float> lowest(static_cast<size_t>(m));
    std::vector<float> reference_lowest(static_cast<size_t>(m));
    const float widest = kernels().pq4_quantize_tables(table.data(), m, luts.data(), lowest.data());
    const float reference_widest =
        scalar().pq4_quantize_tables(table.data(), m, reference.data(), reference_lowest.data());
    EXPECT_EQ(widest, reference_widest);
    EXPECT_EQ(lowest, reference_lowest);
    EXPECT_EQ(luts, reference) << m << " tables";
    bool full = false;
    for (int j = 0; j < m; ++j) {
      const auto row = std::vector<float>(table.begin() + j * 16, table.begin() + (j + 1) * 16);
      EXPECT_EQ(lowest[j], *std::min_element(row.begin(), row.end()));
      EXPECT_EQ(*std::min_element(luts.begin() + j * 16, luts.begin() + (j + 1) * 16), 0);
      full = full || *std::max_element(luts.begin() + j * 16, luts.begin() + (j + 1) * 16) == 255;
    }
    EXPECT_TRUE(full);
  }
  // Entries that land exactly half way: 0.5 → 0, 1.5 → 2, 2.5 → 2 (a range of 255 scales by 1).
  std::vector<float> halves(16, 0.0f);
  halves[1] = 0.5f;
  halves[2] = 1.5f;
  halves[3] = 2.5f;
  halves[4] = 255.0f;
  std::vector<uint8_t> luts(16);
  float lowest = 0;
  EXPECT_EQ(kernels().pq4_quantize_tables(halves.data(), 1, luts.data(), &lowest), 255.0f);
  EXPECT_EQ(luts[1], 0);
  EXPECT_EQ(luts[2], 2);
  EXPECT_EQ(luts[3], 2);
  EXPECT_EQ(luts[4], 255);
  // One value everywhere: no range, every byte 0.
  std::vector<float> flat(32, 4.0f);
  std::vector<uint8_t> zero(32, 9);
  float flat_lowest[2];
  EXPECT_EQ(kernels().pq4_quantize_tables(flat.data(), 2, zero.data(), flat_lowest), 0.0f);
  EXPECT_EQ(zero, std::vector<uint8_t>(32, 0));
}

TEST_P(SimdKernelsTest, EmptyBatchesWriteNothing) {
  const std::vector<float> floats(16, 1.0f);
  const std::vector<uint8_t> codes(16, 1);
  const std::vector<int8_t> weights(16, 1);
  std::vector<float> out(4, -1.0f);
  std::vector<int32_t> dots(4, -1);
  kernels().l2_squared_batch(floats.data(), floats.data(), 0, 16, out.data());
  kernels().inner_product_batch(floats.data(), floats.data(), 0, 16, out.data());
  kernels().inner_product_and_norm_batch(floats.data(), floats.data(), 0, 16, out.data(),
                                         out.data());
  kernels().pq_adc_batch(codes.data(), 0, 16, floats.data(), out.data());
  kernels().dot_u8_s8_batch(codes.data(), 16, 0, weights.data(), 16, dots.data());
  kernels().f16_to_f32(nullptr, 0, out.data());
  std::vector<uint64_t> bit_dots(4, 5);
  kernels().bit_plane_dot_batch(codes.data(), 16, 0, 1, codes.data(), 4, 2, bit_dots.data());
  for (uint64_t value : bit_dots) EXPECT_EQ(value, 5u);
  std::vector<float> sums(4, 9.0f);
  const std::vector<uint8_t> tables(8 * 32, 1);  // 8 pairs' tables
  kernels().pq4_fast_scan(codes.data(), 0, 8, tables.data(), 0.0f, 1.0f, sums.data());
  for (float value : sums) EXPECT_EQ(value, 9.0f);
  EXPECT_EQ(kernels().l2_squared_transposed(floats.data(), floats.data(), 16, 0, 1, out.data()),
            INFINITY);
  std::vector<int32_t> indexes(4, -1);
  EXPECT_EQ(kernels().indexes_at_most(floats.data(), 0, INFINITY, indexes.data()), 0);
  for (int32_t value : indexes) EXPECT_EQ(value, -1);
  for (float value : out) EXPECT_EQ(value, -1.0f);
  for (int32_t value : dots) EXPECT_EQ(value, -1);
}

INSTANTIATE_TEST_SUITE_P(Levels, SimdKernelsTest, ::testing::ValuesIn(kAllLevels),
                         [](const ::testing::TestParamInfo<Level>& info) {
                           return std::string(LevelName(info.param));
                         });

TEST(SimdLevelTest, ParseLevelReadsLevelNames) {
  for (Level level : kAllLevels) EXPECT_EQ(ParseLevel(LevelName(level)), level);
  EXPECT_EQ(ParseLevel("AVX512_VNNI"), Level::kAvx512Vnni);
  EXPECT_EQ(ParseLevel("Scalar"), Level::kScalar);
  EXPECT_EQ(ParseLevel(""), std::nullopt);
  EXPECT_EQ(ParseLevel("avx"), std::nullopt);
  EXPECT_EQ(ParseLevel("avx512vnni"), std::nullopt);
  EXPECT_EQ(ParseLevel("sse4"), std::nullopt);
}

TEST(SimdLevelTest, OverrideLowersButNeverRaises) {
  EXPECT_EQ(ChooseLevel(Level::kAvx512Vnni, nullptr), Level::kAvx512Vnni);
  EXPECT_EQ(ChooseLevel(Level::kAvx512Vnni, "scalar"), Level::kScalar);
  EXPECT_EQ(ChooseLevel(Level::kAvx512Vnni, "avx2"), Level::kAvx2);
  EXPECT_EQ(ChooseLevel(Level::kAvx512Vnni, "avx512"), Level::kAvx512);
  EXPECT_EQ(ChooseLevel(Level::kAvx2, "avx512_vnni"), Level::kAvx2);
  EXPECT_EQ(ChooseLevel(Level::kScalar, "avx512"), Level::kScalar);
  EXPECT_EQ(ChooseLevel(Level::kAvx512, "neon"), Level::kAvx512);
  EXPECT_EQ(ChooseLevel(Level::kAvx512, ""), Level::kAvx512);
}

TEST(SimdLevelTest, KernelsForClampsToTheDetectedLevel) {
  for (Level level : kAllLevels) {
    EXPECT_EQ(KernelsFor(level).level, std::min(level, DetectedLevel())) << LevelName(level);
  }
  EXPECT_LE(ActiveLevel(), DetectedLevel());
  EXPECT_EQ(ActiveKernels().level, ActiveLevel());
  EXPECT_EQ(ActiveLevel(), ChooseLevel(DetectedLevel(), std::getenv("TESSERA_SIMD")));
}

TEST(SimdLevelTest, DistancesRunOnTheActiveKernels) {
  std::mt19937 random(31);
  for (int dim : kDims) {
    const std::vector<float> a = RandomFloats(random, dim);
    const std::vector<float> b = RandomFloats(random, dim);
    EXPECT_EQ(Bits(L2Squared(a.data(), b.data(), dim)),
              Bits(ActiveKernels().l2_squared(a.data(), b.data(), dim)));
    EXPECT_EQ(Bits(InnerProduct(a.data(), b.data(), dim)),
              Bits(ActiveKernels().inner_product(a.data(), b.data(), dim)));
  }
}

}  // namespace
}  // namespace tessera::index::vector::simd::simd_kernels_test
