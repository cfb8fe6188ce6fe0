#include "tessera/server/wire.h"

namespace tessera::server {

namespace {

void AppendLittleEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

PayloadWriter& PayloadWriter::U8(uint8_t value) {
  payload_.push_back(static_cast<char>(value));
  return *this;
}
PayloadWriter& PayloadWriter::U16(uint16_t value) {
  AppendLittleEndian(value, 2, &payload_);
  return *this;
}
PayloadWriter& PayloadWriter::U24(uint32_t value) {
  AppendLittleEndian(value, 3, &payload_);
  return *this;
}
PayloadWriter& PayloadWriter::U32(uint32_t value) {
  AppendLittleEndian(value, 4, &payload_);
  return *this;
}
PayloadWriter& PayloadWriter::U64(uint64_t value) {
  AppendLittleEndian(value, 8, &payload_);
  return *this;
}

PayloadWriter& PayloadWriter::LengthEncoded(uint64_t value) {
  if (value < 0xFB) return U8(static_cast<uint8_t>(value));
  if (value <= 0xFFFF) return U8(0xFC).U16(static_cast<uint16_t>(value));
  if (value <= 0xFFFFFF) return U8(0xFD).U24(static_cast<uint32_t>(value));
  return U8(0xFE).U64(value);
}

PayloadWriter& PayloadWriter::LengthEncodedString(std::string_view text) {
  LengthEncoded(text.size());
  return Bytes(text);
}

PayloadWriter& PayloadWriter::NulTerminated(std::string_view text) {
  Bytes(text);
  return U8(0);
}

PayloadWriter& PayloadWriter::Bytes(std::string_view bytes) {
  payload_.append(bytes);
  return *this;
}

PayloadWriter& PayloadWriter::Zeros(size_t count) {
  payload_.append(count, '\0');
  return *this;
}

std::optional<std::string_view> PayloadReader::Bytes(size_t count) {
  if (count > remaining()) return std::nullopt;
  std::string_view bytes = payload_.substr(at_, count);
  at_ += count;
  return bytes;
}

namespace {

template <typename T>
std::optional<T> LittleEndian(std::optional<std::string_view> bytes) {
  if (!bytes) return std::nullopt;
  T value = 0;
  for (size_t i = 0; i < bytes->size(); ++i) {
    value |= static_cast<T>(static_cast<uint8_t>((*bytes)[i])) << (8 * i);
  }
  return value;
}

}  // namespace

std::optional<uint8_t> PayloadReader::U8() { return LittleEndian<uint8_t>(Bytes(1)); }
std::optional<uint16_t> PayloadReader::U16() { return LittleEndian<uint16_t>(Bytes(2)); }
std::optional<uint32_t> PayloadReader::U32() { return LittleEndian<uint32_t>(Bytes(4)); }

std::optional<uint64_t> PayloadReader::LengthEncoded() {
  auto first = U8();
  if (!first) return std::nullopt;
  switch (*first) {
    case 0xFC:
      return LittleEndian<uint64_t>(Bytes(2));
    case 0xFD:
      return LittleEndian<uint64_t>(Bytes(3));
    case 0xFE:
      return LittleEndian<uint64_t>(Bytes(8));
    case 0xFB:  // NULL in a row; never a length
    case 0xFF:  // an ERR packet's header
      return std::nullopt;
    default:
      return *first;
  }
}

std::optional<std::string_view> PayloadReader::LengthEncodedString() {
  auto length = LengthEncoded();
  if (!length || *length > remaining()) return std::nullopt;
  return Bytes(static_cast<size_t>(*length));
}

std::optional<std::string_view> PayloadReader::NulTerminated() {
  const size_t end = payload_.find('\0', at_);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view text = payload_.substr(at_, end - at_);
  at_ = end + 1;
  return text;
}

std::string_view PayloadReader::Rest() {
  std::string_view rest = payload_.substr(at_);
  at_ = payload_.size();
  return rest;
}

}  // namespace tessera::server
