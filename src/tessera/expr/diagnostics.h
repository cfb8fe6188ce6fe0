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

// `filter "<text>", position <n>: ` — the prefix of every positioned filter error.
std::string ErrorPrefix(std::string_view text, int position);

template <typename... Args>
arrow::Status FilterError(ErrorKind kind, std::string_view text, int position, Args&&... args) {
  return MakeError(kind, ErrorPrefix(text, position) + Concat(std::forward<Args>(args)...));
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
