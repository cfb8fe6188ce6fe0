// The files of an INVERTED segment (docs/format.md, "INVERTED segments") and the pieces every
// one of them shares: their names, a buffered checksummed output (io/checksummed_output.h) that
// the encoders append to, and the document table (docs.bin).
//
// docs.bin: a fixed header (magic u32, version u32, flags u32 (bit 0: positions), document count
// u32, fragment count u32, length width u32, total length u64), the fragment table (fragment id
// u32, rows u32 per fragment, ascending ids: document numbers run through the fragments in
// that order), then the document lengths bit-packed at one width (O(1) access), padded with 8
// zero bytes.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/text/posting_codec.h"

namespace tessera::index::text {

inline constexpr std::string_view kTermsFile = "terms.bin";
inline constexpr std::string_view kPostingsFile = "postings.bin";
inline constexpr std::string_view kPositionsFile = "positions.bin";
inline constexpr std::string_view kDocumentsFile = "docs.bin";

// The four files, in the order above.
std::vector<std::string_view> InvertedFileNames();

// A segment file written through block checksums, buffered (appends cost no call per term).
class FileOutput final : public ByteSink {
 public:
  static arrow::Result<std::unique_ptr<FileOutput>> Open(const SegmentDirectory& directory,
                                                         std::string_view name);
  void Append(std::string_view bytes) override;
  uint64_t size() const override { return size_; }
  // The first write error, if any (Append cannot return one).
  arrow::Status status() const { return status_; }
  // Flushes, closes (writing the checksums) and syncs the file.
  arrow::Status Close();

 private:
  void Flush();

  std::shared_ptr<io::Storage> storage_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::string buffer_;
  uint64_t size_ = 0;
  arrow::Status status_;
};

struct FragmentRows {
  uint32_t fragment_id = 0;
  uint32_t rows = 0;
  uint32_t first_doc = 0;  // derived: the documents of the fragments before it
};

std::string EncodeDocumentTable(const std::vector<FragmentRows>& fragments,
                                const std::vector<uint32_t>& lengths, bool has_positions);

class DocumentTable {
 public:
  // Corrupt with the problem (for the caller to name the file) when malformed. `data` must
  // outlive the table.
  static arrow::Result<DocumentTable> Parse(const uint8_t* data, uint64_t size);

  uint32_t document_count() const { return document_count_; }
  uint64_t total_length() const { return total_length_; }
  bool has_positions() const { return has_positions_; }
  const std::vector<FragmentRows>& fragments() const { return fragments_; }
  uint32_t length(uint32_t doc) const {
    if (width_ == 0) return 0;
    const uint64_t bit = static_cast<uint64_t>(doc) * width_;
    uint64_t word;
    std::memcpy(&word, lengths_ + bit / 8, sizeof(word));
    return static_cast<uint32_t>((word >> (bit % 8)) & mask_);
  }
  uint64_t row_address(uint32_t doc) const;
  std::optional<uint32_t> document_of(uint64_t row_address) const;

 private:
  uint32_t document_count_ = 0;
  uint64_t total_length_ = 0;
  bool has_positions_ = false;
  std::vector<FragmentRows> fragments_;
  uint32_t width_ = 0;
  uint64_t mask_ = 0;
  const uint8_t* lengths_ = nullptr;
};

}  // namespace tessera::index::text
