// TextSources: where a full-text search of one string column finds the documents of each
// fragment of a version — a segment of an INVERTED index on the column, or the unindexed tail,
// analyzed on the fly into a MemoryTextSegment with the index's analyzer.
//
// Choice: the first INVERTED index on the column (manifest order) with a segment covering a
// live fragment serves every fragment one of its segments covers (first segment in definition
// order); other indexes on the column are not used (a note says so). The analyzer is that
// index's (or, with none serving, the first INVERTED index's on the column; else the default),
// so query terms are spelled as the index wrote them.
//
// Invariants: every live fragment is served by exactly one source; per source, `live` marks the
// documents that are rows of the fragments it serves and not deleted (empty: all are), and
// `accepted` those a search may return (live and, with a prefilter, passing it; empty: all
// are). Statistics count `live` documents, top-k admits `accepted` ones. The tail is read once
// per OpenTextSources call (only its live rows become documents); TextSearch makes that call
// once per snapshot and column when there is no prefilter (Snapshot::Derived).
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/index/text/analyzer.h"
#include "tessera/index/text/analyzer_pool.h"
#include "tessera/index/text_segment.h"
#include "tessera/query/eligible_rows.h"
#include "tessera/query/memory_text_segment.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

inline constexpr const char* kInvertedFamily = "INVERTED";

struct TextSource {
  std::string index_name;                             // empty for the unindexed tail
  std::string segment_uuid;                           // empty for the unindexed tail
  std::shared_ptr<const index::SegmentReader> owner;  // keeps `reader` alive
  const index::TextSegmentReader* reader = nullptr;
  std::vector<uint32_t> fragment_ids;  // served, manifest order
  std::vector<uint8_t> live;           // per document, 1 when live; empty: every document
  std::vector<uint8_t> accepted;       // per document, 1 when it may be returned; empty: every
  uint64_t live_count = 0;
  uint64_t live_length = 0;

  bool is_tail() const { return segment_uuid.empty(); }
  bool Live(uint32_t doc) const { return live.empty() || live[doc] != 0; }
  bool Accepted(uint32_t doc) const { return accepted.empty() || accepted[doc] != 0; }
};

struct TextSources {
  std::string index_name;  // of the analyzer; empty for the default analyzer
  index::text::AnalyzerOptions analyzer;
  // Analyzers of `analyzer` for the searches of these sources (never null once opened).
  std::shared_ptr<index::text::AnalyzerPool> analyzers;
  std::vector<TextSource> sources;  // segments first, the tail (when any fragment) last
  std::vector<std::string> notes;   // explain: indexes not used, and why
};

// `live`: EligibleRows without a prefilter; `accepted`: with it (the same object without one).
// Errors: opening a segment (Corrupt naming it), reading the tail's fragments, and the
// analyzer parameters of a definition (InvalidArgument naming the index).
arrow::Result<TextSources> OpenTextSources(const Snapshot& snapshot, int column_index,
                                           const EligibleRows& live, const EligibleRows& accepted);

// The values of row `row` of a string or list-of-strings column (none for a null).
void RowValues(const arrow::Array& column, int64_t row, std::vector<std::string_view>* values);
// Whether `type` is a column full-text search reads: utf8, large_utf8, or a list of them.
bool IsTextType(const arrow::DataType& type);

}  // namespace tessera::query
