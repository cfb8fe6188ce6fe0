// The writers of an INVERTED segment.
//
// SegmentFilesWriter writes the segment's files (inverted_files.h) from postings given term by
// term in byte order, each term's documents ascending; it holds one term's encoded document
// blocks at a time (positions go straight to their file). Build and Merge both end in it.
//
// InvertedSegmentWriter is the bounded-memory build: documents arrive in document order, their
// values are analyzed (one Analyzer per build) and each term's postings accumulate in memory.
// The writer accounts the bytes it holds for postings honestly: every posting vector's capacity
// (plus kAllocationOverheadBytes per allocation), every term's string, hash-map node and entry,
// and the hash map's bucket array. Before any growth that would take the accounted bytes past
// memory_limit it writes the postings held to a sorted spill run (spill_runs.h) and starts
// again, so the peak accounted bytes stay under memory_limit + kSpillSlackBytes (one growth
// step: a posting vector grows by at most kMaxGrowthBytes, a term is at most 64 KiB). At the
// end the runs are merged term by term into the segment files and removed. Outside the limit:
// 4 bytes per document (the lengths), the write buffers (about 1 MiB per file) and the merge's
// read buffers (64 KiB per run) and current term.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/index/text/inverted_files.h"
#include "tessera/index/text/posting_codec.h"
#include "tessera/index/text/term_dictionary.h"

namespace tessera::index::text {

inline constexpr uint64_t kAllocationOverheadBytes = 16;
inline constexpr uint64_t kMaxGrowthBytes = 64 << 10;
inline constexpr uint64_t kSpillSlackBytes = 256 << 10;

struct InvertedFileStats {
  uint64_t num_terms = 0;
  uint64_t num_postings = 0;  // the sum of the terms' document frequencies
  uint64_t num_documents = 0;
  uint64_t total_length = 0;
};

class SegmentFilesWriter {
 public:
  // `document_lengths`: of every document of the segment; must outlive the writer.
  static arrow::Result<std::unique_ptr<SegmentFilesWriter>> Open(
      const SegmentDirectory& out, bool has_positions,
      const std::vector<uint32_t>* document_lengths);

  void BeginTerm(std::string_view term);
  // Documents ascending (the same document again adds to it); `positions` null without them.
  void Add(uint32_t doc, uint32_t term_frequency, const uint32_t* positions) {
    encoder_.Add(doc, term_frequency, positions);
  }
  arrow::Status EndTerm();
  arrow::Result<InvertedFileStats> Finish(const std::vector<FragmentRows>& fragments);

 private:
  SegmentFilesWriter(const std::vector<uint32_t>* lengths, std::unique_ptr<FileOutput> positions,
                     bool has_positions);

  const std::vector<uint32_t>* lengths_;
  SegmentDirectory out_;
  bool has_positions_;
  std::unique_ptr<FileOutput> positions_;
  std::unique_ptr<FileOutput> postings_;
  std::unique_ptr<FileOutput> terms_;
  std::unique_ptr<TermDictionaryWriter> dictionary_;
  PostingListEncoder encoder_;
  std::string term_;
  std::string record_;
  InvertedFileStats stats_;
};

struct InvertedWriterOptions {
  bool has_positions = true;
  uint64_t memory_limit = 64 << 20;
};

class InvertedSegmentWriter {
 public:
  InvertedSegmentWriter(SegmentDirectory out, InvertedWriterOptions options,
                        std::unique_ptr<Analyzer> analyzer);
  ~InvertedSegmentWriter();  // removes spill runs left by a failed build

  // The fragments in ascending id order, each followed by its rows' documents.
  arrow::Status BeginFragment(uint32_t fragment_id, uint32_t rows);
  // One document: zero or more field values (a null value: none; list elements in order).
  void BeginDocument();
  arrow::Status AddValue(std::string_view text);
  void EndDocument();

  arrow::Result<InvertedFileStats> Finish();

  uint64_t peak_accounted_bytes() const { return peak_; }
  uint64_t accounted_bytes() const { return accounted_; }
  // The runs written (all merged and removed once Finish succeeds).
  uint32_t spill_runs() const { return spilled_ + static_cast<uint32_t>(runs_.size()); }

 private:
  struct TermEntry {
    const std::string* term = nullptr;
    std::vector<uint32_t> documents;  // (doc, frequency) pairs
    std::vector<uint32_t> positions;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };

  arrow::Status AddToken(std::string_view term, uint32_t position);
  arrow::Status Spill();
  void Clear();
  uint64_t BucketBytes() const;
  std::vector<TermEntry*> SortedEntries();
  void CountAccounted(int64_t delta);

  SegmentDirectory out_;
  InvertedWriterOptions options_;
  std::unique_ptr<Analyzer> analyzer_;
  std::vector<FragmentRows> fragments_;
  std::vector<uint32_t> lengths_;
  uint32_t doc_ = 0;
  uint32_t next_position_ = 0;
  uint32_t values_ = 0;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids_;
  std::deque<TermEntry> entries_;
  uint64_t accounted_ = 0;
  uint64_t peak_ = 0;
  std::vector<std::string> runs_;  // not yet removed
  uint32_t spilled_ = 0;
  arrow::Status status_;
};

}  // namespace tessera::index::text
