// CRC-32C (io/checksum.h): the hardware path, its interleaved streams and the per-block form
// all equal the table-driven definition, and the known check value.
#include "tessera/io/checksum.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tessera::io::checksum_test {
namespace {

TEST(Crc32c, MatchesTheStandardCheckValue) {
  const char text[] = "123456789";
  EXPECT_EQ(Crc32c(text, 9), 0xE3069283u);
  EXPECT_EQ(Crc32cPortable(text, 9), 0xE3069283u);
}

TEST(Crc32c, EqualsThePortableDefinitionForEverySizeAndAlignment) {
  std::mt19937 random(7);
  std::vector<uint8_t> bytes(70000);
  for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
  for (size_t size : {0, 1, 7, 8, 9, 63, 4095, 4096, 12287, 12288, 12289, 24577, 65536, 69000}) {
    for (size_t shift : {0, 1, 3, 5}) {
      ASSERT_EQ(Crc32c(bytes.data() + shift, size), Crc32cPortable(bytes.data() + shift, size))
          << size << " bytes at +" << shift;
    }
  }
}

TEST(Crc32c, ContinuesFromASeed) {
  std::vector<uint8_t> bytes(30000, 0);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  for (size_t cut : {0, 1, 4096, 12288, 20001}) {
    const uint32_t head = Crc32c(bytes.data(), cut);
    EXPECT_EQ(Crc32c(bytes.data() + cut, bytes.size() - cut, head),
              Crc32c(bytes.data(), bytes.size()));
  }
}

TEST(Crc32c, OfBlocksEqualsOneChecksumPerBlock) {
  std::mt19937 random(11);
  std::vector<uint8_t> bytes(5 * 4096 + 123);
  for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
  for (size_t size :
       {size_t{0}, size_t{4096}, size_t{3 * 4096}, size_t{4 * 4096 + 5}, bytes.size()}) {
    const size_t blocks = (size + 4095) / 4096;
    std::vector<uint32_t> crcs(blocks);
    Crc32cOfBlocks(bytes.data(), size, 4096, crcs.data());
    for (size_t b = 0; b < blocks; ++b) {
      const size_t length = std::min<size_t>(4096, size - b * 4096);
      EXPECT_EQ(crcs[b], Crc32cPortable(bytes.data() + b * 4096, length)) << size << " " << b;
    }
  }
}

}  // namespace
}  // namespace tessera::io::checksum_test
