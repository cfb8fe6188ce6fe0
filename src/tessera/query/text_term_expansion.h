// Term expansion of prefix and fuzzy queries: the terms of the column's global dictionary (the
// union of every source's terms, the unindexed tail's included) that start with a prefix, or lie
// within a Damerau-Levenshtein distance of a word, capped at max_expansions.
//
// Invariants: the expansion depends only on the global dictionary and global (live) document
// frequencies, never on how documents are split into sources: terms no live document holds are
// left out; prefix keeps the most frequent terms (ties by term bytes), fuzzy the closest, then the
// most frequent, then by term bytes. The result is in that order.
#pragma once

#include <arrow/result.h>

#include <string>
#include <string_view>
#include <vector>

#include "tessera/query/text_statistics.h"

namespace tessera::query {

arrow::Result<std::vector<std::string>> ExpandPrefix(const TextSources& sources,
                                                     std::string_view prefix, int max_expansions,
                                                     TermTable& terms);

arrow::Result<std::vector<std::string>> ExpandFuzzy(const TextSources& sources,
                                                    std::string_view word, int fuzziness,
                                                    int max_expansions, TermTable& terms);

// The optimal-string-alignment Damerau-Levenshtein distance of `left` and `right` (bytes), or
// limit + 1 as soon as it must exceed `limit`.
int DamerauLevenshtein(std::string_view left, std::string_view right, int limit);

}  // namespace tessera::query
