// TextSegmentReader: a segment of a full-text family (INVERTED) answering term lookups with
// posting lists, for BM25 scoring in the query layer (query/text_search.h). The segment knows
// nothing of scores: global statistics (document count, average length, document frequencies
// over all live documents of a version) are the query layer's, so a score never depends on how
// the data is split into segments.
//
// Invariants:
//  - Documents are the rows of the fragments the segment covers, every row (a null value is a
//    document of length 0 with no terms), numbered 0..document_count()-1 in ascending row
//    address order; row_address() is strictly increasing in the document number.
//  - A posting list holds the documents containing the term, ascending, each with its term
//    frequency (>= 1) and, when the segment has positions, the term's positions in ascending
//    order (list values: the elements continue one position sequence with a gap, see
//    docs/indexes.md).
//  - Postings are kept in blocks (kPostingBlockSize documents, the last one shorter). For each
//    block the cursor reports its last document, the largest term frequency and the smallest
//    document length in it: BM25 rises with the frequency and falls with the length, so
//    bm25(max frequency, min length) bounds every score in the block for any k1, b, IDF and
//    average length (block-max WAND).
//  - Readers ignore deletions (the query layer applies them) and may be used from many threads
//    at once; cursors are not shared between threads.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tessera/index/index_family.h"

namespace tessera::index {

inline constexpr uint32_t kPostingBlockSize = 128;
// The positions between the last token of one element of a list value and the first token of
// the next: elements continue one position sequence, and a phrase never spans two of them.
inline constexpr uint32_t kListElementPositionGap = 100;

// A term of a segment's dictionary: what a cursor needs to open its postings.
struct TermPostings {
  uint32_t document_frequency = 0;  // documents of the segment containing the term
  uint64_t offset = 0;              // family-private location of the posting list
  uint64_t length = 0;
};

// One term's postings, in document order. Starts on the first document; doc() is kEnd once
// exhausted. Errors (a damaged block) are Corrupt naming the segment file.
class PostingCursor {
 public:
  static constexpr uint32_t kEnd = UINT32_MAX;
  virtual ~PostingCursor() = default;

  virtual uint32_t doc() const = 0;
  virtual uint32_t term_frequency() const = 0;  // of doc()
  virtual arrow::Status Next() = 0;
  // Moves to the first document >= target (no move when doc() >= target already).
  virtual arrow::Status Advance(uint32_t target) = 0;

  // Block-max data without decoding documents: moves the block position (never backwards) to
  // the block holding the first document >= target, leaving doc() unchanged; then the
  // block_* accessors describe that block. block_last_doc() is kEnd past the last block. Read
  // the accessors after a ShallowAdvance: Next and Advance may or may not move the block
  // position along (the in-memory segment's cursors leave it).
  virtual arrow::Status ShallowAdvance(uint32_t target) = 0;
  virtual uint32_t block_last_doc() const = 0;
  virtual uint32_t block_max_term_frequency() const = 0;
  virtual uint32_t block_min_document_length() const = 0;

  // The decoded documents from doc() to the end of its block (the block ending at
  // block_last_doc() after ShallowAdvance(doc())) with their term frequencies, for loops that
  // score a block without a call per document; empty once exhausted. The cursor does not move:
  // Advance past them after. Valid until the cursor next moves.
  struct BlockRemainder {
    const uint32_t* docs = nullptr;
    const uint32_t* term_frequencies = nullptr;
    uint32_t size = 0;
  };
  virtual BlockRemainder RemainderOfBlock() const = 0;

  // The positions of the term in doc(), ascending, replacing the contents of `positions` (whose
  // capacity a caller reuses across documents). Unsupported (naming the index parameter
  // with_position) when the segment was built without positions.
  virtual arrow::Status PositionsInto(std::vector<uint32_t>* positions) = 0;
  arrow::Result<std::vector<uint32_t>> Positions() {
    std::vector<uint32_t> positions;
    ARROW_RETURN_NOT_OK(PositionsInto(&positions));
    return positions;
  }
};

class TextSegmentReader : public SegmentReader {
 public:
  TextSegmentReader* AsText() override { return this; }

  virtual uint32_t document_count() const = 0;
  virtual uint64_t row_address(uint32_t doc) const = 0;
  // The document number of a row address the segment covers; nullopt for any other address.
  virtual std::optional<uint32_t> document_of(uint64_t row_address) const = 0;
  // Terms of the document, counted as the analyzer counts positions after dropping long tokens
  // and stop words (the BM25 document length).
  virtual uint32_t document_length(uint32_t doc) const = 0;
  // The sum of document_length over all documents.
  virtual uint64_t total_length() const = 0;
  virtual bool has_positions() const = 0;

  // The term's postings; nullopt when no document of the segment holds it.
  virtual arrow::Result<std::optional<TermPostings>> FindTerm(std::string_view term) const = 0;
  // Every term starting with `prefix`, in byte order, until `visit` returns false (prefix and
  // fuzzy query expansion; an empty prefix visits the whole dictionary).
  virtual arrow::Status VisitTerms(
      std::string_view prefix,
      const std::function<bool(std::string_view term, const TermPostings& postings)>& visit)
      const = 0;
  virtual arrow::Result<std::unique_ptr<PostingCursor>> OpenPostings(
      const TermPostings& postings) const = 0;
};

}  // namespace tessera::index
