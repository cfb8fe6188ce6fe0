#include "tessera/io/uuid.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace tessera::io {

std::string NewUuid() {
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }()};
  uint64_t high = generator();
  uint64_t low = generator();
  high = (high & ~0xF000ull) | 0x4000ull;            // version 4
  low = (low & ~(0xC0ull << 56)) | (0x80ull << 56);  // RFC 4122 variant
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(high >> 32), static_cast<unsigned>((high >> 16) & 0xFFFF),
                static_cast<unsigned>(high & 0xFFFF), static_cast<unsigned>(low >> 48),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFull));
  return text;
}

}  // namespace tessera::io
