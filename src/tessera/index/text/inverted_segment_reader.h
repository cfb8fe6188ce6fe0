// InvertedSegmentReader: an opened INVERTED segment (inverted_family.h), the TextSegmentReader
// of index/text_segment.h over the files of inverted_files.h.
//
// Open reads each file once through its block checksums (memory-mapped on local storage): the
// dictionary's sparse index and the document table are verified and parsed at once; posting
// records and position blocks are verified when a cursor first touches them (each checksum
// block once per opened dataset). The reader is immutable after Open, so any number of threads
// may use it; each cursor decodes its term's blocks lazily, one block at a time. Damage found
// at any point is Corrupt naming the file and the segment.
//
// Block position of a cursor: ShallowAdvance moves it to the block of the first document >=
// target; Next and Advance move it along with the document when they enter a later block. It
// never moves backwards.
#pragma once

#include <arrow/buffer.h>
#include <arrow/result.h>

#include <memory>
#include <string>

#include "tessera/index/text/inverted_files.h"
#include "tessera/index/text/term_dictionary.h"
#include "tessera/index/text_segment.h"
#include "tessera/io/verified_file.h"

namespace tessera::index::text {

class InvertedSegmentReader final : public TextSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<InvertedSegmentReader>> Open(
      const format::SegmentMeta& segment, const SegmentDirectory& directory);

  const format::SegmentMeta& meta() const override { return meta_; }
  uint32_t document_count() const override { return documents_.document_count(); }
  uint64_t row_address(uint32_t doc) const override { return documents_.row_address(doc); }
  std::optional<uint32_t> document_of(uint64_t row_address) const override {
    return documents_.document_of(row_address);
  }
  uint32_t document_length(uint32_t doc) const override { return documents_.length(doc); }
  uint64_t total_length() const override { return documents_.total_length(); }
  bool has_positions() const override { return documents_.has_positions(); }

  arrow::Result<std::optional<TermPostings>> FindTerm(std::string_view term) const override;
  arrow::Status VisitTerms(
      std::string_view prefix,
      const std::function<bool(std::string_view term, const TermPostings& postings)>& visit)
      const override;
  arrow::Result<std::unique_ptr<PostingCursor>> OpenPostings(
      const TermPostings& postings) const override;

  const TermDictionary& dictionary() const { return dictionary_; }
  const DocumentTable& documents() const { return documents_; }
  uint64_t num_terms() const { return dictionary_.num_terms(); }

  // Reads and checks every term, block and position (what Open leaves to the cursors): for a
  // segment from elsewhere, before it is published (IndexFamily::Verify).
  arrow::Status CheckAll() const;

  // Corrupt naming `file` of this segment.
  arrow::Status Damaged(std::string_view file, std::string_view problem) const;
  // Verifies bytes of the postings or positions file before they are decoded.
  arrow::Status VerifyPostings(const uint8_t* data, uint64_t size) const;
  arrow::Status VerifyPositions(const uint8_t* data, uint64_t size) const;
  const uint8_t* postings_data() const { return postings_->data(); }
  uint64_t postings_size() const { return static_cast<uint64_t>(postings_->size()); }
  const uint8_t* positions_data() const { return positions_->data(); }
  uint64_t positions_size() const { return static_cast<uint64_t>(positions_->size()); }

 private:
  InvertedSegmentReader() = default;

  format::SegmentMeta meta_;
  std::shared_ptr<io::VerifiedFile> terms_file_;
  std::shared_ptr<io::VerifiedFile> postings_file_;
  std::shared_ptr<io::VerifiedFile> positions_file_;
  std::shared_ptr<io::VerifiedFile> documents_file_;
  std::shared_ptr<arrow::Buffer> terms_;
  std::shared_ptr<arrow::Buffer> postings_;
  std::shared_ptr<arrow::Buffer> positions_;
  std::shared_ptr<arrow::Buffer> documents_buffer_;
  TermDictionary dictionary_;
  DocumentTable documents_;
};

}  // namespace tessera::index::text
