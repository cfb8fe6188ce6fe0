#include "tessera/query/explain.h"

namespace tessera::query {

std::string Explain::ToString() const {
  std::string text;
  for (const auto& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

std::string DescribeFragments(const std::vector<uint32_t>& fragment_ids) {
  if (fragment_ids.size() == 1) return "fragment " + std::to_string(fragment_ids[0]);
  std::string text = "fragments [";
  size_t start = 0;
  while (start < fragment_ids.size()) {
    size_t end = start;
    while (end + 1 < fragment_ids.size() && fragment_ids[end + 1] == fragment_ids[end] + 1) ++end;
    if (start > 0) text += ", ";
    text += std::to_string(fragment_ids[start]);
    if (end > start) text += ".." + std::to_string(fragment_ids[end]);
    start = end + 1;
  }
  return text + "]";
}

// A node's rendering without the parentheses around the whole of it: "price < 10".
std::string PredicateText(const expr::Node& node) {
  std::string text = node.ToString();
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote reopens at once: same effect
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return text;  // the first parenthesis closes before the end
    }
  }
  return text.substr(1, text.size() - 2);
}

}  // namespace tessera::query
