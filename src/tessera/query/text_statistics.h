// Global statistics of a full-text search over one column: the document count N, the total
// length (for the average length) and each query term's document frequency, over every live
// document of the version — all sources of text_sources.h, deleted rows and rows of fragments
// no longer in the version excluded, the unindexed tail included. Since they do not depend on
// how documents are split into sources, neither do the scores.
//
// Counting: a source whose documents are all live reports its stored counts; one with dead
// documents has its live documents counted once (TextSource::live_count / live_length) and its
// terms' postings walked to count the live ones. Each term is looked up once per query
// (TermTable), however often the query names it.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/text_segment.h"
#include "tessera/query/text_sources.h"

namespace tessera::query {

struct TextStatistics {
  uint64_t document_count = 0;
  uint64_t total_length = 0;
  double average_length() const {
    return document_count == 0
               ? 0.0
               : static_cast<double>(total_length) / static_cast<double>(document_count);
  }
};

TextStatistics CollectStatistics(const TextSources& sources);

// A term of the query: its live document frequency and its postings in each source.
struct TermInfo {
  uint64_t document_frequency = 0;
  std::vector<std::optional<index::TermPostings>> postings;  // parallel to sources.sources
};

class TermTable {
 public:
  explicit TermTable(const TextSources& sources) : sources_(sources) {}
  // Looks the term up in every source on first use.
  arrow::Result<const TermInfo*> Find(const std::string& term);

 private:
  const TextSources& sources_;
  std::map<std::string, TermInfo, std::less<>> terms_;
};

}  // namespace tessera::query
