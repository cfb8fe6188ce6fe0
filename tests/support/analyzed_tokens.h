// An analyzer's output as test values: the tokens (term, position, byte offsets) or only the
// terms it gives for a text, from an analyzer or from the options to make one with.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/text/analyzer.h"

namespace tessera::testing {

struct AnalyzedToken {
  std::string term;
  uint32_t position;
  uint32_t begin;
  uint32_t end;
  bool operator==(const AnalyzedToken&) const = default;
};

inline std::ostream& operator<<(std::ostream& out, const AnalyzedToken& token) {
  return out << "{" << token.term << " @" << token.position << " [" << token.begin << ","
             << token.end << ")}";
}

inline std::vector<AnalyzedToken> AnalyzeText(index::text::Analyzer& analyzer,
                                              std::string_view text, uint32_t first = 0) {
  std::vector<AnalyzedToken> tokens;
  analyzer.Analyze(text, first, [&](const index::text::Token& token) {
    tokens.push_back({std::string(token.term), token.position, token.begin, token.end});
  });
  return tokens;
}

// Throws (gtest reports it) when the options cannot make an analyzer.
inline std::vector<AnalyzedToken> AnalyzeText(const index::text::AnalyzerOptions& options,
                                              std::string_view text) {
  auto analyzer = index::text::Analyzer::Make(options).ValueOrDie();
  return AnalyzeText(*analyzer, text);
}

template <typename AnalyzerOrOptions>
std::vector<std::string> TermsOf(AnalyzerOrOptions&& analyzer, std::string_view text) {
  std::vector<std::string> terms;
  for (auto& token : AnalyzeText(analyzer, text)) terms.push_back(std::move(token.term));
  return terms;
}

}  // namespace tessera::testing
