#include "tessera/expr/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace tessera::expr {

std::pair<int, int> LineAndColumn(std::string_view text, int position) {
  int line = 1;
  int column = 1;
  int character = 1;
  for (size_t at = 0; at < text.size() && character < position; ++at) {
    if ((static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) continue;  // UTF-8 continuation
    ++character;
    if (text[at] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

std::string ErrorPrefix(const SourceText& source, int position) {
  if (source.style == SourceText::Style::kStatement) {
    const auto [line, column] = LineAndColumn(source.text, position);
    return Concat("line ", line, ", column ", column, ": ");
  }
  const std::string_view text = source.text;
  // Very long filters (generated IN lists) would drown the message; the position still
  // points into the full text.
  constexpr size_t kMaxShown = 200;
  std::string shown(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) shown += "...";
  // Escaped here already (not only by MakeError), so a newline in the filter shows as \n.
  return Concat("filter \"", EscapeControlCharacters(shown), "\", position ", position, ": ");
}

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> previous(b.size() + 1);
  std::vector<int> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      current[j] =
          std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates) {
  int best_distance = -1;
  std::vector<std::string> best;
  for (const auto& candidate : candidates) {
    const int distance = EditDistance(name, candidate);
    // Beyond this a "suggestion" is noise: 'x' would suggest any one-letter column.
    const int tolerance = std::max<int>(2, static_cast<int>(name.size()) / 3);
    if (distance > tolerance || distance >= static_cast<int>(candidate.size())) continue;
    if (best_distance < 0 || distance < best_distance) {
      best_distance = distance;
      best.clear();
    }
    if (distance == best_distance && best.size() < 3) best.push_back(candidate);
  }
  return best;
}

std::string DidYouMean(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string text = "did you mean ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += "'" + names[i] + "'";
  }
  return text + "?";
}

std::string QuoteForMessage(std::string_view value) {
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'') quoted += '\'';
    quoted += c;
  }
  quoted += '\'';
  return quoted;
}

}  // namespace tessera::expr
