// UTF-8 decoding for the analyzer: one code point at a time, with invalid input made total.
// An ill-formed sequence (a lone continuation byte, a truncated sequence, an overlong form, a
// surrogate, a value above U+10FFFF) decodes as kInvalidCodePoint and advances past its maximal
// subpart, as U8_NEXT and the Unicode standard do, so decoding never fails and never stalls.
#pragma once

#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::index::text {

// What an ill-formed sequence reads as (ICU's U8_NEXT yields a negative value for it).
inline constexpr UChar32 kInvalidCodePoint = -1;
inline constexpr UChar32 kReplacementCharacter = 0xFFFD;
inline constexpr std::string_view kReplacementCharacterUtf8 = "\xEF\xBF\xBD";

// The code point at text[*offset], advancing *offset past it; kInvalidCodePoint for an
// ill-formed sequence. Precondition: *offset < text.size().
inline UChar32 DecodeNext(std::string_view text, size_t* offset) {
  const auto byte = static_cast<unsigned char>(text[*offset]);
  if (byte < 0x80) {
    ++*offset;
    return byte;
  }
  // U8_NEXT takes int32 indices: decode from a window of at most 4 bytes, so that a value of
  // any size can be read.
  const size_t available = text.size() - *offset;
  const int32_t length = static_cast<int32_t>(available < 4 ? available : 4);
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data() + *offset);
  int32_t index = 0;
  UChar32 code_point = 0;
  U8_NEXT(bytes, index, length, code_point);
  *offset += static_cast<size_t>(index);
  return code_point < 0 ? kInvalidCodePoint : code_point;
}

// Appends `code_point` (a valid scalar value) to `out` as UTF-8.
inline void AppendUtf8(UChar32 code_point, std::string* out) {
  uint8_t bytes[U8_MAX_LENGTH];
  int32_t length = 0;
  UBool error = false;
  U8_APPEND(bytes, length, U8_MAX_LENGTH, code_point, error);
  if (error) {
    out->append(kReplacementCharacterUtf8);
    return;
  }
  out->append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
}

}  // namespace tessera::index::text
