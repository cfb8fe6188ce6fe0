// Posting codec: the byte encodings of an INVERTED segment's postings (docs/format.md,
// "INVERTED segments"): varints, bit-packed runs of uint32 values, and the encoder that turns one
// term's documents into blocks of kPostingBlockSize documents.
//
// A term's posting record (in postings.bin) is
//   [varint positions_start, when the segment has positions]
//   [one header per block: varint last_doc delta, max_tf, min_length, doc_bytes, (pos_bytes)]
//   [the blocks' document payloads, doc_bytes each]
// and its positions (in positions.bin, from positions_start) are the blocks' position payloads,
// pos_bytes each. Headers come first so that a cursor skips blocks (ShallowAdvance) without
// decoding any document. A document payload is the bit-packed gaps between documents (minus
// one) then the bit-packed term frequencies (minus one); a position payload is, per document,
// the gaps between its positions (the first from 0), bit-packed in runs of 128 values. A block
// of one document (most terms are in one document) has an empty document payload: its header
// holds the document (last_doc) and its frequency (max_tf).
// Invariant: the block count is ceil(document_frequency / kPostingBlockSize), every block but
// the last holds exactly kPostingBlockSize documents, so neither counts are stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/text_segment.h"

namespace tessera::index::text {

void PutVarint(uint64_t value, std::string* out);
// Reads a varint at `*data` (< end), advancing it; false when it runs past `end` or over 64 bits.
bool GetVarint(const uint8_t** data, const uint8_t* end, uint64_t* value);
bool GetVarint32(const uint8_t** data, const uint8_t* end, uint32_t* value);

// Appends `count` values (count <= 128 is typical, any count works) as one width byte and the
// values packed little-endian in that many bits each.
void PackBits(const uint32_t* values, size_t count, std::string* out);
// Reads what PackBits wrote for `count` values; false when the bytes are short or malformed.
bool UnpackBits(const uint8_t** data, const uint8_t* end, size_t count, uint32_t* values);
// PackBits over runs of 128 values (one width byte per run), for long sequences.
void PackBitsInRuns(const uint32_t* values, size_t count, std::string* out);
bool UnpackBitsInRuns(const uint8_t** data, const uint8_t* end, size_t count, uint32_t* values);

// The block-max data and sizes of one block, as the header stores them (last_doc absolute).
struct PostingBlockHeader {
  uint32_t last_doc = 0;
  uint32_t max_term_frequency = 0;
  uint32_t min_document_length = 0;
  uint32_t doc_bytes = 0;
  uint32_t position_bytes = 0;
  uint64_t doc_offset = 0;       // of its document payload, from the record's start
  uint64_t position_offset = 0;  // of its position payload, in positions.bin
};

// Decodes the headers of a posting record of `document_frequency` documents; false when the
// record is malformed (then `problem` says how). `data` is the record, `size` its length.
bool DecodePostingHeaders(const uint8_t* data, uint64_t size, uint32_t document_frequency,
                          bool has_positions, std::vector<PostingBlockHeader>* headers,
                          std::string* problem);

// Decodes the document payload of a block of `count` documents described by `header`, whose
// previous block ended at `previous_last` (ignored for block 0); checks that the last document
// is the header's. A block of one document has an empty payload: the header's last document
// and largest frequency are that document's.
bool DecodeDocumentBlock(const uint8_t* data, const PostingBlockHeader& header, uint32_t count,
                         bool first_block, uint32_t previous_last, uint32_t* docs,
                         uint32_t* term_frequencies);

// Where an encoder appends bytes: a file being written, with its running size.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void Append(std::string_view bytes) = 0;
  virtual uint64_t size() const = 0;
};

// Encodes one term's postings at a time: Add() each document ascending (the same document
// again adds to its frequency and positions: a document split between two spill runs), then
// Finish(). Buffers one block of documents and the term's document payloads; positions go to
// `positions` block by block.
class PostingListEncoder {
 public:
  // `document_lengths`: of every document of the segment (min length per block).
  PostingListEncoder(const std::vector<uint32_t>* document_lengths, ByteSink* positions);

  void Begin();
  // `positions`: `term_frequency` ascending positions, or null without positions.
  void Add(uint32_t doc, uint32_t term_frequency, const uint32_t* positions);
  uint32_t document_frequency() const { return document_frequency_; }
  // Appends the term's record to `postings` and returns its document frequency.
  uint32_t Finish(std::string* record);

 private:
  void FlushBlock();

  const std::vector<uint32_t>* document_lengths_;
  ByteSink* positions_;
  uint32_t document_frequency_ = 0;
  uint64_t positions_start_ = 0;
  bool has_last_block_ = false;
  uint32_t previous_last_ = 0;
  // The block being filled.
  uint32_t count_ = 0;
  uint32_t docs_[kPostingBlockSize];
  uint32_t frequencies_[kPostingBlockSize];
  std::vector<uint32_t> block_positions_;  // position gaps of the block's documents
  uint32_t last_position_ = 0;             // of the last document, to continue its gaps
  // The term so far.
  std::string headers_;
  std::string payloads_;
  std::string scratch_;
  uint32_t scratch_values_[kPostingBlockSize];
};

}  // namespace tessera::index::text
