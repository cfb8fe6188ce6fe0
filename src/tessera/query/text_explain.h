// The explain lines a full-text search adds (query/explain.h), in this order:
//   text search: match over column 'body', k 10, BM25 k1 1.2 b 0.75 (N 1200, average length 9.5)
//   <the prefilter's lines: how its allow-list was found>
//   index 'body_old' not used: index 'body_idx' on the same column serves it
//   fragments [0..3]: INVERTED index 'body_idx' segment 1b2c3d4e (800 documents)
//   fragment 4: unindexed, analyzed on the fly (400 documents)
//   column 'body': block-max WAND, 120 of 4000 postings scored
// and the postfilter's line. Text for people; programs must not parse it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/query/block_max_wand.h"
#include "tessera/query/explain.h"
#include "tessera/query/text_search.h"
#include "tessera/query/text_sources.h"
#include "tessera/query/text_statistics.h"

namespace tessera::query {

struct TextColumnExplain {
  std::string column;
  const TextSources* sources = nullptr;
  TextStatistics statistics;
  bool has_terms = false;  // false: the query analyzed to no term
  // How the top k was found: "block-max WAND", "phrase bounds" or "every posting scored".
  std::string_view scoring = "every posting scored";
  ScoringCounters counters;
};

void ExplainTextSearch(const TextSearchOptions& options, const format::Manifest& manifest,
                       const std::vector<TextColumnExplain>& columns, const Explain& prefilter,
                       Explain* explain);

}  // namespace tessera::query
