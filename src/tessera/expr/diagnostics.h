// Error messages of the filter language, in one shape for every error class:
//
//   filter "price >< 5", position 8: syntax error: expected a column or a literal, found '<'
//
// The position is a 1-based character offset into the filter text, so a user (or a tool that
// underlines the text) can find the culprit without guessing. Suggestions for misspelled
// column names use edit distance.
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/status.h"

namespace tessera::expr {

// The text an error points into, and how to point: a filter (a short expression, quoted whole
// with a character position) or a SQL statement (possibly megabytes over many lines, never
// quoted: a line and a column).
struct SourceText {
  enum class Style { kFilter, kStatement };
  SourceText(std::string_view text, Style style = Style::kFilter) : text(text), style(style) {}
  std::string_view text;
  Style style;
};

// `filter "<text>", position <n>: ` or `line <l>, column <c>: ` — the prefix of every
// positioned error.
std::string ErrorPrefix(const SourceText& source, int position);

// The 1-based line and column (in characters) of 1-based character `position` of `text`.
std::pair<int, int> LineAndColumn(std::string_view text, int position);

template <typename... Args>
arrow::Status FilterError(ErrorKind kind, const SourceText& source, int position, Args&&... args) {
  return MakeError(kind, ErrorPrefix(source, position) + Concat(std::forward<Args>(args)...));
}

// Case-insensitive Levenshtein distance.
int EditDistance(std::string_view a, std::string_view b);

// The candidates closest to `name` (all those tied at the smallest distance, at most three, in
// candidate order), if they are close enough to be a plausible typo or differ only by case.
std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates);

// "did you mean 'price'?" / "did you mean 'ts' or 'tags'?"; empty for no names.
std::string DidYouMean(const std::vector<std::string>& names);

// Quotes a string for a message, SQL style: 'it''s'.
std::string QuoteForMessage(std::string_view value);

}  // namespace tessera::expr
