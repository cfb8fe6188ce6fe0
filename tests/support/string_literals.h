// Filter text of strings, for the tests that generate substring leaves (contains, starts_with,
// LIKE, ILIKE) from random values: a value kept as code points (so that pieces cut it on
// characters) joined back into its text, a string literal of the filter language, and a piece
// escaped to stand for itself in a LIKE pattern.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera::testing {

// The text of a value kept as a sequence of code points.
inline std::string TextOf(const std::vector<std::string>& points) {
  std::string text;
  for (const auto& point : points) text += point;
  return text;
}

// `text` as a quoted string literal of the filter language (the lexer reads \\ as one
// backslash; a quote in `text` is not supported).
inline std::string FilterLiteral(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\\' ? std::string("\\\\") : std::string(1, c);
  return quoted + "'";
}

// `piece` with LIKE's wildcards and its default escape escaped: a pattern matching it literally.
inline std::string EscapedForLike(std::string_view piece) {
  std::string escaped;
  for (char c : piece) {
    if (c == '%' || c == '_' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace tessera::testing
