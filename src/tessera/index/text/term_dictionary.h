// Term dictionary: the sorted distinct terms of an INVERTED segment (terms.bin), each with its
// document frequency and the location of its posting record in postings.bin.
//
// Layout (docs/format.md): blocks of kTermsPerBlock terms; in a block each term is stored as
// (varint shared prefix with the previous term, varint suffix length, suffix, varint document
// frequency, varint record length), the first term whole; a block starts with the varint offset
// of its first term's record (records are contiguous, so each next offset is the previous one
// plus its length). After the blocks, the sparse index: per block its first term (varint
// length, bytes) and its file offset (varint); then a fixed footer (index offset u64, term
// count u64, block count u32, magic u32). The reader keeps only the sparse index in memory
// (views into the file) and binary-searches it, then scans one block.
// Invariant: terms are strictly ascending in byte order.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/text/posting_codec.h"
#include "tessera/index/text_segment.h"

namespace tessera::index::text {

inline constexpr uint32_t kTermsPerBlock = 32;
inline constexpr uint32_t kTermDictionaryMagic = 0x43494454;  // "TDIC"

class TermDictionaryWriter {
 public:
  explicit TermDictionaryWriter(ByteSink* out) : out_(out) {}
  // Terms strictly ascending; records contiguous in the order of the terms.
  void Add(std::string_view term, uint32_t document_frequency, uint64_t record_offset,
           uint64_t record_length);
  void Finish();
  uint64_t num_terms() const { return num_terms_; }

 private:
  ByteSink* out_;
  std::string previous_;
  std::string block_;
  std::string index_;
  uint64_t num_terms_ = 0;
  uint32_t num_blocks_ = 0;
};

// Reads a dictionary from its bytes (which must outlive it). Errors are returned as a problem
// text for the caller to wrap in a Corrupt naming the file.
class TermDictionary {
 public:
  static arrow::Result<TermDictionary> Parse(const uint8_t* data, uint64_t size,
                                             uint64_t postings_size);

  uint64_t num_terms() const { return num_terms_; }
  std::optional<TermPostings> Find(std::string_view term, std::string* problem) const;
  // Visits the terms starting with `prefix` in order until `visit` returns false; false with
  // `problem` set on a malformed block.
  bool Visit(std::string_view prefix,
             const std::function<bool(std::string_view, const TermPostings&)>& visit,
             std::string* problem) const;

  // Iterates every term in order (merges, checks).
  class Iterator {
   public:
    explicit Iterator(const TermDictionary* dictionary) : dictionary_(dictionary) {}
    // Moves to the next term; false at the end or on damage (then problem() is set).
    bool Next();
    std::string_view term() const { return term_; }
    const TermPostings& postings() const { return postings_; }
    const std::string& problem() const { return problem_; }

   private:
    const TermDictionary* dictionary_;
    uint32_t block_ = 0;
    uint32_t in_block_ = 0;
    uint32_t block_terms_ = 0;
    const uint8_t* p_ = nullptr;
    const uint8_t* end_ = nullptr;
    std::string term_;
    TermPostings postings_;
    bool started_ = false;
    std::string problem_;
  };

 private:
  struct BlockEntry {
    std::string_view first_term;
    uint64_t offset = 0;
  };
  uint32_t TermsInBlock(uint32_t block) const;
  // Reads the next entry of a block scan into `term` / `postings`.
  bool ReadEntry(const uint8_t** p, const uint8_t* end, bool first, std::string* term,
                 TermPostings* postings) const;
  bool OpenBlock(uint32_t block, const uint8_t** p, const uint8_t** end,
                 TermPostings* postings) const;
  // The last block whose first term is <= term (0 when none).
  uint32_t BlockFor(std::string_view term) const;

  const uint8_t* data_ = nullptr;
  uint64_t index_offset_ = 0;
  uint64_t num_terms_ = 0;
  uint64_t postings_size_ = 0;
  std::vector<BlockEntry> blocks_;
};

}  // namespace tessera::index::text
