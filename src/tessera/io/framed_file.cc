#include "tessera/io/framed_file.h"

#include <cstring>

#include "tessera/io/checksum.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

constexpr char kFrameMagic[8] = {'T', 'E', 'S', 'S', 'F', 'R', 'M', '1'};
constexpr size_t kFooterSize = 8 + 4 + 4 + sizeof(kFrameMagic);  // length, crc, reserved, magic

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t GetLittleEndian(const uint8_t* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

}  // namespace

std::string Frame(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + kFooterSize);
  out.append(payload);
  PutLittleEndian(out, payload.size(), 8);
  PutLittleEndian(out, Crc32c(payload.data(), payload.size()), 4);
  PutLittleEndian(out, 0, 4);
  out.append(kFrameMagic, sizeof(kFrameMagic));
  return out;
}

arrow::Result<std::string_view> Unframe(const arrow::Buffer& file, std::string_view file_name) {
  const auto size = static_cast<size_t>(file.size());
  if (size < kFooterSize) {
    return Corrupt("file ", file_name, " is truncated (", size,
                   " bytes, shorter than its footer); restore it or check out an older version");
  }
  const uint8_t* footer = file.data() + size - kFooterSize;
  if (std::memcmp(footer + 16, kFrameMagic, sizeof(kFrameMagic)) != 0) {
    return Corrupt("file ", file_name,
                   " has no tessera footer (truncated or overwritten); restore it or check out "
                   "an older version");
  }
  const uint64_t length = GetLittleEndian(footer, 8);
  if (length != size - kFooterSize) {
    return Corrupt("file ", file_name, " declares ", length, " payload bytes but holds ",
                   size - kFooterSize);
  }
  const auto expected_crc = static_cast<uint32_t>(GetLittleEndian(footer + 8, 4));
  if (Crc32c(file.data(), length) != expected_crc) {
    return Corrupt("file ", file_name, " fails its checksum: its contents were damaged");
  }
  return std::string_view(reinterpret_cast<const char*>(file.data()), length);
}

}  // namespace tessera::io
