// Analyzer options as index parameters: the names of the tokenizers and the parsing rules
// behind ParseAnalyzerOptions / AnalyzerParams (declared in analyzer.h).
//
// Canonical form (what AnalyzerParams writes, so equal analyzers have equal parameters):
// every analyzer key, booleans as true/false, the language in lower case. Options that cannot
// affect the analysis are normalized: ngram_min/ngram_max are 3/3 unless the tokenizer is ngram,
// and stem/remove_stop_words are false for raw and ngram, whose tokens are not words (giving
// them as true there is an error rather than silently ignored).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "tessera/index/text/analyzer.h"

namespace tessera::index::text {

// "simple", "whitespace", "raw", "ngram", "icu".
std::string_view TokenizerName(TokenizerKind kind);
std::optional<TokenizerKind> TokenizerFromName(std::string_view name);

// Whether the tokenizer produces words, to which stop words and stemming apply.
bool ProducesWords(TokenizerKind kind);

}  // namespace tessera::index::text
