// Analyzer: how the text of one field value becomes the terms of a full-text (INVERTED) index,
// and how query text becomes the terms it looks up. Index build and query use the same
// Analyzer built from the same normalized parameters, so a term a query asks for is spelled
// exactly as the index wrote it.
//
// The pipeline, in order: tokenizer (splits the UTF-8 text into tokens with byte offsets) →
// tokens longer than max_token_length bytes are dropped → lower_case (Unicode case folding) →
// ascii_folding (accents and ligatures to their ASCII base: "café" → "cafe") → stop-word
// removal (the language's list) → stem (the language's Snowball stemmer).
//
// Invariants:
//  - Positions count the tokens the tokenizer produced, before long tokens and stop words are
//    dropped, so a phrase query over a removed stop word keeps its gap ("out of stock" finds the
//    text "out of stock" and not "out stock").
//  - Byte offsets [begin, end) index the analyzed text itself (for highlighting); they always
//    lie on UTF-8 character boundaries of valid input.
//  - Invalid UTF-8 never fails and never crashes: each invalid byte reads as U+FFFD, which no
//    tokenizer treats as part of a word (the raw tokenizer keeps it, as U+FFFD).
//  - Memory is bounded by the longest token, not by the text: a value of any size is analyzed
//    by streaming over it.
//  - An Analyzer is not thread-safe (stemmer state, buffers): one per thread. Make() is cheap.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/params.h"

namespace tessera::index::text {

enum class TokenizerKind {
  kSimple,      // maximal runs of Unicode letters, marks and digits
  kWhitespace,  // maximal runs of non-whitespace characters
  kRaw,         // the whole value is one token
  kNgram,       // every run of ngram_min..ngram_max characters of each simple token
  kIcu,         // ICU word boundaries (languages written without spaces); words only
};

struct AnalyzerOptions {
  TokenizerKind tokenizer = TokenizerKind::kSimple;
  int ngram_min = 3;  // kNgram only; 1 <= ngram_min <= ngram_max <= 16
  int ngram_max = 3;
  bool lower_case = true;
  bool ascii_folding = true;
  bool stem = true;
  std::string language = "english";  // of the stemmer and the stop-word list
  bool remove_stop_words = true;
  int max_token_length = 40;  // bytes; longer tokens are dropped; 1..65535

  bool operator==(const AnalyzerOptions&) const = default;
};

// The parameter keys the analyzer owns (tokenizer, ngram_min, ngram_max, lower_case,
// ascii_folding, stem, language, remove_stop_words, max_token_length), for a family's
// RejectUnknownParams together with its own keys.
const std::vector<std::string_view>& AnalyzerParamKeys();

// Reads the analyzer keys of `params` (other keys are ignored), with defaults. InvalidArgument
// naming the family, the key, the value and the accepted values for an unknown tokenizer or
// language, a non-boolean flag, lengths out of range, or a language without a stemmer (stem) or
// without a stop-word list (remove_stop_words).
arrow::Result<AnalyzerOptions> ParseAnalyzerOptions(const Params& params, std::string_view family);

// Every analyzer key with its canonical value: what Validate() stores, so that equal analyzers
// have equal parameters.
Params AnalyzerParams(const AnalyzerOptions& options);

// Languages with a Snowball stemmer, and those with a stop-word list (lower case, sorted).
std::vector<std::string> StemmerLanguages();
std::vector<std::string> StopWordLanguages();

// One term of analyzed text. `term` is valid only during the callback that receives it.
struct Token {
  std::string_view term;
  uint32_t position = 0;  // first_position + the token's ordinal among the tokenizer's tokens
  uint32_t begin = 0;     // byte offsets of the token in the analyzed text
  uint32_t end = 0;
};

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  static arrow::Result<std::unique_ptr<Analyzer>> Make(const AnalyzerOptions& options);

  const AnalyzerOptions& options() const { return options_; }

  // Calls `emit` for every term of `text`, in text order. Returns the position after the last
  // token the tokenizer produced (first_position + its token count), so that the elements of a
  // list value can continue one position sequence.
  virtual uint32_t Analyze(std::string_view text, uint32_t first_position,
                           const std::function<void(const Token&)>& emit) = 0;

  // The steps that apply to a single word of a prefix or fuzzy query: lower_case and
  // ascii_folding only (a prefix must not be stemmed or dropped as a stop word).
  virtual std::string NormalizeWord(std::string_view word) = 0;

 protected:
  explicit Analyzer(AnalyzerOptions options) : options_(std::move(options)) {}
  AnalyzerOptions options_;
};

}  // namespace tessera::index::text
