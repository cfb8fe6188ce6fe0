#include "tessera/query/text_term_expansion.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace tessera::query {

namespace {

struct Candidate {
  std::string term;
  int distance = 0;
  uint64_t document_frequency = 0;
};

// Every term of any source starting with `prefix` and accepted by `keep`.
template <typename Keep>
arrow::Result<std::set<std::string>> GlobalTerms(const TextSources& sources,
                                                 std::string_view prefix, const Keep& keep) {
  std::set<std::string> found;
  for (const TextSource& source : sources.sources) {
    ARROW_RETURN_NOT_OK(
        source.reader->VisitTerms(prefix, [&](std::string_view term, const index::TermPostings&) {
          if (keep(term)) found.emplace(term);
          return true;
        }));
  }
  return found;
}

arrow::Result<std::vector<std::string>> Cap(std::vector<Candidate> candidates, int max_expansions) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& left, const Candidate& right) {
              if (left.distance != right.distance) return left.distance < right.distance;
              if (left.document_frequency != right.document_frequency) {
                return left.document_frequency > right.document_frequency;
              }
              return left.term < right.term;
            });
  std::vector<std::string> kept;
  for (auto& candidate : candidates) {
    if (static_cast<int>(kept.size()) >= max_expansions) break;
    kept.push_back(std::move(candidate.term));
  }
  return kept;
}

}  // namespace

int DamerauLevenshtein(std::string_view left, std::string_view right, int limit) {
  const int n = static_cast<int>(left.size());
  const int m = static_cast<int>(right.size());
  if (std::abs(n - m) > limit) return limit + 1;
  // Three rows of the optimal-string-alignment table.
  std::vector<int> before(static_cast<size_t>(m) + 1), previous(before.size()), row(before.size());
  for (int j = 0; j <= m; ++j) previous[static_cast<size_t>(j)] = j;
  for (int i = 1; i <= n; ++i) {
    row[0] = i;
    int row_min = row[0];
    for (int j = 1; j <= m; ++j) {
      const auto uj = static_cast<size_t>(j);
      const int cost = left[static_cast<size_t>(i - 1)] == right[uj - 1] ? 0 : 1;
      int value = std::min({previous[uj] + 1, row[uj - 1] + 1, previous[uj - 1] + cost});
      if (i > 1 && j > 1 && left[static_cast<size_t>(i - 1)] == right[uj - 2] &&
          left[static_cast<size_t>(i - 2)] == right[uj - 1]) {
        value = std::min(value, before[uj - 2] + 1);
      }
      row[uj] = value;
      row_min = std::min(row_min, value);
    }
    if (row_min > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return std::min(previous[static_cast<size_t>(m)], limit + 1);
}

arrow::Result<std::vector<std::string>> ExpandPrefix(const TextSources& sources,
                                                     std::string_view prefix, int max_expansions,
                                                     TermTable& terms) {
  ARROW_ASSIGN_OR_RAISE(auto found,
                        GlobalTerms(sources, prefix, [](std::string_view) { return true; }));
  std::vector<Candidate> candidates;
  for (const std::string& term : found) {
    ARROW_ASSIGN_OR_RAISE(const TermInfo* info, terms.Find(term));
    if (info->document_frequency == 0) continue;
    candidates.push_back({term, 0, info->document_frequency});
  }
  return Cap(std::move(candidates), max_expansions);
}

arrow::Result<std::vector<std::string>> ExpandFuzzy(const TextSources& sources,
                                                    std::string_view word, int fuzziness,
                                                    int max_expansions, TermTable& terms) {
  ARROW_ASSIGN_OR_RAISE(auto found, GlobalTerms(sources, "", [&](std::string_view term) {
                          return DamerauLevenshtein(word, term, fuzziness) <= fuzziness;
                        }));
  std::vector<Candidate> candidates;
  for (const std::string& term : found) {
    ARROW_ASSIGN_OR_RAISE(const TermInfo* info, terms.Find(term));
    if (info->document_frequency == 0) continue;
    candidates.push_back(
        {term, DamerauLevenshtein(word, term, fuzziness), info->document_frequency});
  }
  return Cap(std::move(candidates), max_expansions);
}

}  // namespace tessera::query
