// TermNormalizer: the character-level token filters of the pipeline, lower_case and
// ascii_folding, applied to one token.
//
//  - lower_case is Unicode simple case folding (u_foldCase): "Straße" → "straße", "ΣΟΦΟΣ" →
//    "σοφοσ" (a final sigma folds to σ too), "İ" → "i̇".
//  - ascii_folding removes accents and maps letters to their ASCII base: a character's NFKD
//    decomposition without its combining diacritical marks (U+0300..U+036F and the other
//    combining-diacritics blocks): "é" → "e", "ﬁ" → "fi", "Ａ" → "A", "ά" → "α"; plus the Latin
//    letters that have no decomposition: æ → ae, œ → oe, ß → ss, ø → o, ł → l, đ/ð → d,
//    þ → th, ı → i, ħ → h, ŧ → t, ŋ → n, ... Marks of other scripts (Devanagari vowel signs,
//    the virama) are kept, and characters whose canonical decomposition loses nothing (Hangul
//    syllables, kana with a voicing mark) stay composed.
//  - An ill-formed UTF-8 sequence becomes U+FFFD (only the raw tokenizer produces tokens that
//    contain one).
//
// ASCII is folded by table with no ICU call; the transformation of other code points is cached
// per normalizer (bounded), so a corpus pays ICU once per distinct character. Not thread-safe.
#pragma once

#include <unicode/umachine.h>

#include <string>
#include <string_view>
#include <unordered_map>

namespace tessera::index::text {

class TermNormalizer {
 public:
  TermNormalizer(bool lower_case, bool ascii_folding)
      : lower_case_(lower_case), ascii_folding_(ascii_folding) {}

  // The normalized `token`: a view of `token` itself when nothing changes it (ASCII without
  // lower_case), else of `*buffer`, which is overwritten.
  std::string_view Normalize(std::string_view token, std::string* buffer);

 private:
  // The normalized spelling of one non-ASCII code point, appended to `out`.
  void AppendTransformed(UChar32 code_point, std::string* out);
  std::string Transform(UChar32 code_point) const;

  bool lower_case_;
  bool ascii_folding_;
  std::unordered_map<UChar32, std::string> cache_;
};

}  // namespace tessera::index::text
