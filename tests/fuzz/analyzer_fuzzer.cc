// Fuzz target: the full-text analyzer (index/text/analyzer.h) on arbitrary bytes. Byte 0 picks
// the options: bits 0-2 the tokenizer (value % 5: simple, whitespace, raw, ngram, icu), bit 3
// lower_case, bit 4 ascii_folding, bit 5 stem and stop words (word tokenizers), bits 6-7 the
// n-gram lengths (1..1, 1..3, 2..4, 3..16) and max_token_length (8 or 65535); the rest is the
// text. Properties: every token lies inside the text with a non-empty term, positions never
// decrease and stay below the returned next position, and, with no filter on, a word token's
// term is its bytes in the text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz_support.h"
#include "tessera/index/text/analyzer.h"

namespace {

using tessera::index::text::Analyzer;
using tessera::index::text::AnalyzerOptions;
using tessera::index::text::Token;
using tessera::index::text::TokenizerKind;

AnalyzerOptions OptionsOf(uint8_t selector) {
  constexpr TokenizerKind kKinds[] = {TokenizerKind::kSimple, TokenizerKind::kWhitespace,
                                      TokenizerKind::kRaw, TokenizerKind::kNgram,
                                      TokenizerKind::kIcu};
  constexpr int kNgramLengths[4][2] = {{1, 1}, {1, 3}, {2, 4}, {3, 16}};
  AnalyzerOptions options;
  options.tokenizer = kKinds[(selector & 7) % 5];
  options.lower_case = (selector & 8) != 0;
  options.ascii_folding = (selector & 16) != 0;
  const bool words =
      options.tokenizer != TokenizerKind::kRaw && options.tokenizer != TokenizerKind::kNgram;
  options.stem = words && (selector & 32) != 0;
  options.remove_stop_words = options.stem;
  options.ngram_min = kNgramLengths[selector >> 6][0];
  options.ngram_max = kNgramLengths[selector >> 6][1];
  options.max_token_length = (selector >> 6) % 2 == 0 ? 65535 : 8;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tessera::fuzz::InitializeProcess();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const AnalyzerOptions options = OptionsOf(data[0]);
  const std::string_view text = tessera::fuzz::BytesOf(data + 1, size - 1);
  auto analyzer = Analyzer::Make(options);
  if (!analyzer.ok()) std::abort();
  const bool verbatim = !options.lower_case && !options.ascii_folding && !options.stem &&
                        options.tokenizer != TokenizerKind::kRaw;
  constexpr uint32_t kFirst = 5;
  uint32_t previous = kFirst;
  bool emitted = false;
  const uint32_t next = (*analyzer)->Analyze(text, kFirst, [&](const Token& token) {
    if (token.begin > token.end || token.end > text.size()) std::abort();
    if (token.position < previous || token.term.empty()) std::abort();
    if (verbatim && token.term != text.substr(token.begin, token.end - token.begin)) std::abort();
    previous = token.position;
    emitted = true;
  });
  if (next < kFirst || (emitted && next <= previous)) std::abort();
  (*analyzer)->NormalizeWord(text.substr(0, 256));
  return 0;
}
