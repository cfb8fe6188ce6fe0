// MemoryTextSegment: a TextSegmentReader held in memory, for documents no INVERTED segment
// covers (the unindexed tail of a full-text search, analyzed once per query) and for tests that
// need postings without files.
//
// Invariants: documents are numbered in the order they are added, which must be ascending row
// address order (AddDocument rejects any other); postings are ascending by document, positions
// ascending within a document, one block per kPostingBlockSize documents with its max tf and
// min length, exactly as a segment on disk reports them. Immutable once built; cursors are
// independent.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/index/text_segment.h"

namespace tessera::query {

class MemoryTextSegment final : public index::TextSegmentReader {
 public:
  explicit MemoryTextSegment(bool with_positions = true);

  // One document: its terms with their positions (any order), and its BM25 length.
  struct Term {
    std::string term;
    uint32_t position = 0;
  };
  arrow::Status AddDocument(uint64_t row_address, uint32_t length, std::vector<Term> terms);
  // Analyzes the values of one row (several for a list value, continuing one position sequence
  // with a gap of index::kListElementPositionGap, as INVERTED
  // segments do) and adds them as a document.
  arrow::Status AddAnalyzed(uint64_t row_address, const std::vector<std::string_view>& values,
                            index::text::Analyzer& analyzer);

  const format::SegmentMeta& meta() const override { return meta_; }
  uint32_t document_count() const override { return static_cast<uint32_t>(rows_.size()); }
  uint64_t row_address(uint32_t doc) const override { return rows_[doc]; }
  std::optional<uint32_t> document_of(uint64_t row_address) const override;
  uint32_t document_length(uint32_t doc) const override { return lengths_[doc]; }
  uint64_t total_length() const override { return total_length_; }
  bool has_positions() const override { return with_positions_; }
  arrow::Result<std::optional<index::TermPostings>> FindTerm(std::string_view term) const override;
  arrow::Status VisitTerms(
      std::string_view prefix,
      const std::function<bool(std::string_view term, const index::TermPostings& postings)>& visit)
      const override;
  arrow::Result<std::unique_ptr<index::PostingCursor>> OpenPostings(
      const index::TermPostings& postings) const override;

  struct TermData {
    uint64_t offset = 0;  // its index in by_offset_
    std::vector<uint32_t> docs;
    std::vector<uint32_t> frequencies;
    std::vector<uint32_t> position_starts;  // per posting, into positions; one extra at the end
    std::vector<uint32_t> positions;
    std::vector<uint32_t> block_max_frequency;
    std::vector<uint32_t> block_min_length;
  };

 private:
  bool with_positions_;
  format::SegmentMeta meta_;
  std::vector<uint64_t> rows_;
  std::vector<uint32_t> lengths_;
  uint64_t total_length_ = 0;
  std::map<std::string, TermData, std::less<>> terms_;
  std::vector<const TermData*> by_offset_;  // TermPostings::offset indexes this
  std::vector<MemoryTextSegment::Term> scratch_;
};

}  // namespace tessera::query
