// The boolean query language of full-text search (query/text_search.h, type boolean): clauses
// separated by white space, each a word, a "quoted phrase" with an optional ~N slop, word*
// (prefix), word~N (fuzzy, N 1 or 2) or a parenthesized query, prefixed by + (must), - (must not)
// or nothing (should). The parser only finds the structure; the words are analyzed later by the
// column's analyzer.
//
// Invariants: clauses keep their order in the text (scores are summed in that order, so every
// part of a search adds the same numbers in the same order); an error names the byte position
// in the text and what to write instead: an unterminated quote or parenthesis, a ')' without
// '(', a '~' not followed by a number, a fuzziness other than 1 or 2, an empty clause after + or
// -, and nesting deeper than kMaxTextQueryDepth.
#pragma once

#include <arrow/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace tessera::query {

inline constexpr int kMaxTextQueryDepth = 32;

enum class Occur { kShould, kMust, kMustNot };

struct TextClause {
  enum class Kind { kWord, kPhrase, kPrefix, kFuzzy, kGroup };
  Occur occur = Occur::kShould;
  Kind kind = Kind::kWord;
  std::string text;   // the word, the phrase's text or the prefix (without '*'); empty for groups
  int slop = 0;       // kPhrase
  int fuzziness = 1;  // kFuzzy
  std::vector<TextClause> children;  // kGroup
};

arrow::Result<std::vector<TextClause>> ParseBooleanQuery(std::string_view text);

}  // namespace tessera::query
