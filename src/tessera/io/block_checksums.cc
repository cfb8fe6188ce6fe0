#include "tessera/io/block_checksums.h"

#include <arrow/buffer.h>

#include <cstring>

#include "tessera/io/framed_file.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

constexpr char kChecksumMagic[8] = {'T', 'S', 'B', 'L', 'K', 'C', 'R', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = sizeof(kChecksumMagic) + 4 + 4 + 8;  // magic, version, block, size

void Put(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t Get(const char* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  }
  return value;
}

}  // namespace

std::string ChecksumPathOf(std::string_view path) {
  return std::string(path) + std::string(kChecksumSuffix);
}

std::array<std::string, 2> FileAndChecksums(std::string_view path) {
  return {std::string(path), ChecksumPathOf(path)};
}

bool IsChecksumPath(std::string_view path) {
  return path.size() > kChecksumSuffix.size() &&
         path.substr(path.size() - kChecksumSuffix.size()) == kChecksumSuffix;
}

std::string EncodeBlockChecksums(const BlockChecksums& checksums) {
  std::string payload;
  payload.reserve(kHeaderBytes + 4 * checksums.crcs.size());
  payload.append(kChecksumMagic, sizeof(kChecksumMagic));
  Put(payload, kFormatVersion, 4);
  Put(payload, checksums.block_bytes, 4);
  Put(payload, checksums.file_bytes, 8);
  for (uint32_t crc : checksums.crcs) Put(payload, crc, 4);
  return Frame(payload);
}

arrow::Result<BlockChecksums> DecodeBlockChecksums(std::string_view bytes,
                                                   std::string_view file_name) {
  arrow::Buffer buffer(reinterpret_cast<const uint8_t*>(bytes.data()),
                       static_cast<int64_t>(bytes.size()));
  ARROW_ASSIGN_OR_RAISE(std::string_view payload, Unframe(buffer, file_name));
  if (payload.size() < kHeaderBytes ||
      std::memcmp(payload.data(), kChecksumMagic, sizeof(kChecksumMagic)) != 0) {
    return Corrupt("checksum file ", file_name, " is not a tessera block checksum file");
  }
  const char* header = payload.data() + sizeof(kChecksumMagic);
  if (Get(header, 4) != kFormatVersion) {
    return Corrupt("checksum file ", file_name, " has format version ", Get(header, 4),
                   "; this build reads version ", kFormatVersion);
  }
  BlockChecksums checksums;
  checksums.block_bytes = static_cast<uint32_t>(Get(header + 4, 4));
  checksums.file_bytes = Get(header + 8, 8);
  if (checksums.block_bytes == 0 || checksums.block_bytes % 8 != 0) {
    return Corrupt("checksum file ", file_name, " has block size ", checksums.block_bytes);
  }
  const uint64_t blocks =
      (checksums.file_bytes + checksums.block_bytes - 1) / checksums.block_bytes;
  if ((payload.size() - kHeaderBytes) != 4 * blocks) {
    return Corrupt("checksum file ", file_name, " holds ", (payload.size() - kHeaderBytes) / 4,
                   " checksums for a file of ", checksums.file_bytes, " bytes (", blocks,
                   " blocks)");
  }
  checksums.crcs.resize(blocks);
  for (uint64_t i = 0; i < blocks; ++i) {
    checksums.crcs[i] = static_cast<uint32_t>(Get(payload.data() + kHeaderBytes + 4 * i, 4));
  }
  return checksums;
}

}  // namespace tessera::io
