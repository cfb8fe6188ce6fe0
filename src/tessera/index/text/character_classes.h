// Character classes of the tokenizers. A word character is a Unicode letter (L*), mark (M*) or
// decimal digit (Nd); whitespace is the White_Space property. ASCII is answered from a table
// without calling ICU, since most text of most corpora is ASCII. U+FFFD, and so every ill-formed
// UTF-8 sequence, is neither a word character nor part of a whitespace-delimited token: it
// separates tokens everywhere (the raw tokenizer excepted).
#pragma once

#include <unicode/umachine.h>

#include <array>
#include <cstdint>

namespace tessera::index::text {

namespace character_classes_detail {
inline constexpr std::array<bool, 128> MakeAsciiWordTable() {
  std::array<bool, 128> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  return table;
}
inline constexpr std::array<bool, 128> kAsciiWord = MakeAsciiWordTable();
bool IsNonAsciiWordCharacter(UChar32 code_point);
bool IsNonAsciiWhitespace(UChar32 code_point);
}  // namespace character_classes_detail

// A letter, mark or decimal digit; false for kInvalidCodePoint and U+FFFD.
inline bool IsWordCharacter(UChar32 code_point) {
  if (code_point >= 0 && code_point < 0x80) return character_classes_detail::kAsciiWord[code_point];
  return code_point > 0 && character_classes_detail::IsNonAsciiWordCharacter(code_point);
}

// A character that separates whitespace tokens: White_Space, U+FFFD and ill-formed sequences.
inline bool IsTokenSeparator(UChar32 code_point) {
  if (code_point >= 0 && code_point < 0x80) {
    return code_point == ' ' || (code_point >= '\t' && code_point <= '\r');
  }
  return code_point < 0 || code_point == 0xFFFD ||
         character_classes_detail::IsNonAsciiWhitespace(code_point);
}

}  // namespace tessera::index::text
