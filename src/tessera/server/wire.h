// The byte-level encodings of the MySQL client/server protocol: little-endian fixed-width
// integers, length-encoded integers and strings, NUL-terminated strings.
//
// PayloadWriter appends to a packet's payload. PayloadReader reads one received payload with
// every read bounds-checked: a malformed or truncated packet from a client is an error value
// (nullopt), never a read past the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::server {

class PayloadWriter {
 public:
  PayloadWriter& U8(uint8_t value);
  PayloadWriter& U16(uint16_t value);
  PayloadWriter& U24(uint32_t value);
  PayloadWriter& U32(uint32_t value);
  PayloadWriter& U64(uint64_t value);
  // 1, 3, 4 or 9 bytes (0xFC, 0xFD, 0xFE prefixes).
  PayloadWriter& LengthEncoded(uint64_t value);
  PayloadWriter& LengthEncodedString(std::string_view text);
  PayloadWriter& NulTerminated(std::string_view text);
  PayloadWriter& Bytes(std::string_view bytes);
  PayloadWriter& Zeros(size_t count);

  const std::string& payload() const { return payload_; }
  std::string Take() { return std::move(payload_); }

 private:
  std::string payload_;
};

class PayloadReader {
 public:
  explicit PayloadReader(std::string_view payload) : payload_(payload) {}

  std::optional<uint8_t> U8();
  std::optional<uint16_t> U16();
  std::optional<uint32_t> U32();
  std::optional<uint64_t> LengthEncoded();
  std::optional<std::string_view> LengthEncodedString();
  std::optional<std::string_view> NulTerminated();
  std::optional<std::string_view> Bytes(size_t count);
  // Everything not read yet.
  std::string_view Rest();
  bool Skip(size_t count) { return Bytes(count).has_value(); }

  size_t remaining() const { return payload_.size() - at_; }

 private:
  std::string_view payload_;
  size_t at_ = 0;
};

}  // namespace tessera::server
