// Fixed-width integers in the INVERTED segment files: host byte order, which is little-endian
// on every platform tessera builds for (docs/format.md), copied through memcpy so that reads
// from unaligned offsets of a mapped file are defined.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace tessera::index::text {

template <typename T>
void PutFixed(T value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

template <typename T>
T GetFixed(const uint8_t* data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

}  // namespace tessera::index::text
