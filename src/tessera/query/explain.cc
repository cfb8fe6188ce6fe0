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

}  // namespace tessera::query
