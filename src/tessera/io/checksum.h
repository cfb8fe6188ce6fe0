// CRC-32C (Castagnoli) of a byte range: detects torn and corrupted metadata files.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::io {

uint32_t Crc32c(const void* data, size_t size, uint32_t seed = 0);

}  // namespace tessera::io
