#include "tessera/io/checksum.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace tessera::io {

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

uint32_t UpdatePortable(uint32_t crc, const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) crc = kTable[(crc ^ bytes[i]) & 0xFFu] ^ (crc >> 8);
  return crc;
}

// Multiplication in GF(2) modulo the (reflected) polynomial: shifting a CRC over `n` zero
// bytes is a multiplication by x^(8n), which lets independent streams be combined.
uint32_t MultiplyModulo(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if (a & 0x80000000u) product ^= b;
    a <<= 1;
    b = (b >> 1) ^ ((b & 1u) ? kPolynomial : 0u);
  }
  return product;
}

// x^(8 * bytes) modulo the polynomial, reflected.
uint32_t ShiftFactor(size_t bytes) {
  uint32_t result = 0x80000000u;  // x^0
  uint32_t power = 0x00800000u;   // x^8
  for (size_t n = bytes; n != 0; n >>= 1) {
    if (n & 1u) result = MultiplyModulo(result, power);
    power = MultiplyModulo(power, power);
  }
  return result;
}

#if defined(__x86_64__)

// Bytes per stream of one interleaved round; the three streams' CRCs are combined by shifting.
// Bytes per stream of one interleaved round: long rounds for long inputs, short ones so that a
// single 4 KiB block (a take's unit of verification) is not checksummed latency-bound.
constexpr size_t kLongStreamBytes = 4096;
constexpr size_t kShortStreamBytes = 1360;  // 3 × 1360 + 16 = 4096

// Three streams of `stream_bytes` side by side, combined: the CRC of 3 × stream_bytes bytes.
__attribute__((target("sse4.2"))) inline uint32_t ThreeStreams(uint32_t crc, const uint8_t* bytes,
                                                               size_t stream_bytes,
                                                               uint32_t shift_one,
                                                               uint32_t shift_two) {
  uint64_t a = crc, b = 0, c = 0;
  const uint8_t* end = bytes + stream_bytes;
  for (const uint8_t* p = bytes; p < end; p += 8) {
    uint64_t x, y, z;
    std::memcpy(&x, p, 8);
    std::memcpy(&y, p + stream_bytes, 8);
    std::memcpy(&z, p + 2 * stream_bytes, 8);
    a = _mm_crc32_u64(a, x);
    b = _mm_crc32_u64(b, y);
    c = _mm_crc32_u64(c, z);
  }
  return MultiplyModulo(static_cast<uint32_t>(a), shift_two) ^
         MultiplyModulo(static_cast<uint32_t>(b), shift_one) ^ static_cast<uint32_t>(c);
}

__attribute__((target("sse4.2"))) uint32_t UpdateHardware(uint32_t crc, const uint8_t* bytes,
                                                          size_t size) {
  static const uint32_t kLongShiftOne = ShiftFactor(kLongStreamBytes);
  static const uint32_t kLongShiftTwo = ShiftFactor(2 * kLongStreamBytes);
  static const uint32_t kShortShiftOne = ShiftFactor(kShortStreamBytes);
  static const uint32_t kShortShiftTwo = ShiftFactor(2 * kShortStreamBytes);
  for (; size >= 3 * kLongStreamBytes;
       bytes += 3 * kLongStreamBytes, size -= 3 * kLongStreamBytes) {
    crc = ThreeStreams(crc, bytes, kLongStreamBytes, kLongShiftOne, kLongShiftTwo);
  }
  for (; size >= 3 * kShortStreamBytes;
       bytes += 3 * kShortStreamBytes, size -= 3 * kShortStreamBytes) {
    crc = ThreeStreams(crc, bytes, kShortStreamBytes, kShortShiftOne, kShortShiftTwo);
  }
  uint64_t wide = crc;
  for (; size >= 8; bytes += 8, size -= 8) {
    uint64_t x;
    std::memcpy(&x, bytes, 8);
    wide = _mm_crc32_u64(wide, x);
  }
  crc = static_cast<uint32_t>(wide);
  for (; size > 0; ++bytes, --size) crc = _mm_crc32_u8(crc, *bytes);
  return crc;
}

// Three blocks of `block_bytes` (a multiple of 8) at once, one CRC stream each.
__attribute__((target("sse4.2"))) void ThreeBlocksHardware(const uint8_t* bytes, size_t block_bytes,
                                                           uint32_t* crcs) {
  uint64_t a = ~0u, b = ~0u, c = ~0u;
  for (size_t i = 0; i < block_bytes; i += 8) {
    uint64_t x, y, z;
    std::memcpy(&x, bytes + i, 8);
    std::memcpy(&y, bytes + block_bytes + i, 8);
    std::memcpy(&z, bytes + 2 * block_bytes + i, 8);
    a = _mm_crc32_u64(a, x);
    b = _mm_crc32_u64(b, y);
    c = _mm_crc32_u64(c, z);
  }
  crcs[0] = ~static_cast<uint32_t>(a);
  crcs[1] = ~static_cast<uint32_t>(b);
  crcs[2] = ~static_cast<uint32_t>(c);
}

bool HasHardwareCrc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  return (ecx & bit_SSE4_2) != 0;
}

#endif

#if defined(__x86_64__)
bool UseHardware() {
  static const bool hardware = HasHardwareCrc();
  return hardware;
}
#endif

}  // namespace

uint32_t Crc32cPortable(const void* data, size_t size, uint32_t seed) {
  return ~UpdatePortable(~seed, static_cast<const uint8_t*>(data), size);
}

uint32_t Crc32c(const void* data, size_t size, uint32_t seed) {
#if defined(__x86_64__)
  if (UseHardware()) return ~UpdateHardware(~seed, static_cast<const uint8_t*>(data), size);
#endif
  return Crc32cPortable(data, size, seed);
}

void Crc32cOfBlocks(const void* data, size_t size, size_t block_bytes, uint32_t* crcs) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  size_t block = 0;
#if defined(__x86_64__)
  if (UseHardware() && block_bytes % 8 == 0) {
    for (; size >= 3 * block_bytes; bytes += 3 * block_bytes, size -= 3 * block_bytes) {
      ThreeBlocksHardware(bytes, block_bytes, crcs + block);
      block += 3;
    }
  }
#endif
  for (; size > 0; ++block) {
    const size_t length = size < block_bytes ? size : block_bytes;
    crcs[block] = Crc32c(bytes, length);
    bytes += length;
    size -= length;
  }
}

}  // namespace tessera::io
