// Tokenizers: the first step of the analysis pipeline (analyzer.h). A tokenizer splits UTF-8
// text into tokens, each a byte range [begin, end) of the text with an ordinal (its position
// relative to the value's first); the later steps read the token's bytes from the text itself.
//
//  - simple: maximal runs of word characters (letters, marks, decimal digits).
//  - whitespace: maximal runs of characters that are not whitespace (nor U+FFFD).
//  - raw: the whole value, one token (none for an empty value).
//  - ngram: every run of ngram_min..ngram_max characters (not bytes) of each simple token, in
//    order of their first character, then of length; all n-grams of one simple token share its
//    ordinal, and a simple token shorter than ngram_min yields none but still takes its ordinal.
//  - icu: ICU's word boundaries (UAX #29 with dictionaries for Chinese, Japanese, Thai, ...);
//    only the segments ICU classes as words (letters, numbers, kana, ideographs) are tokens,
//    not spaces, punctuation or symbols (emoji).
//
// Ordinals count the tokens produced, from 0, and never decrease. Offsets lie on character
// boundaries; an ill-formed UTF-8 sequence is never inside a token except for raw. Tokenizing
// keeps no copy of the text: memory is constant (ngram: at most ngram_max + 1 offsets).
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "tessera/index/text/analyzer.h"

namespace tessera::index::text {

// Receives one token: its byte range in the text and its ordinal.
using TokenSink = std::function<void(size_t begin, size_t end, uint32_t ordinal)>;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // InvalidArgument for n-gram lengths out of range; an ICU failure to create the word break
  // iterator (missing data) is an Internal error.
  static arrow::Result<std::unique_ptr<Tokenizer>> Make(const AnalyzerOptions& options);

  // Calls `sink` for every token of `text` in text order; returns the number of ordinals used
  // (the last token's ordinal + 1, 0 for none).
  virtual uint32_t Tokenize(std::string_view text, const TokenSink& sink) = 0;
};

}  // namespace tessera::index::text
