#include "tessera/index/text/posting_codec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace tessera::index::text {

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool GetVarint(const uint8_t** data, const uint8_t* end, uint64_t* value) {
  uint64_t result = 0;
  const uint8_t* p = *data;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return false;
    const uint8_t byte = *p++;
    if (shift == 63 && byte > 1) return false;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *data = p;
      *value = result;
      return true;
    }
  }
  return false;
}

bool GetVarint32(const uint8_t** data, const uint8_t* end, uint32_t* value) {
  uint64_t wide = 0;
  if (!GetVarint(data, end, &wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

void PackBits(const uint32_t* values, size_t count, std::string* out) {
  uint32_t all = 0;
  for (size_t i = 0; i < count; ++i) all |= values[i];
  const int width = all == 0 ? 0 : 32 - std::countl_zero(all);
  out->push_back(static_cast<char>(width));
  if (width == 0) return;
  const size_t bytes = (count * static_cast<size_t>(width) + 7) / 8;
  const size_t start = out->size();
  out->resize(start + bytes);
  auto* target = reinterpret_cast<uint8_t*>(out->data() + start);
  uint64_t buffer = 0;
  int filled = 0;
  size_t written = 0;
  for (size_t i = 0; i < count; ++i) {
    buffer |= static_cast<uint64_t>(values[i]) << filled;
    filled += width;
    while (filled >= 8) {
      target[written++] = static_cast<uint8_t>(buffer);
      buffer >>= 8;
      filled -= 8;
    }
  }
  if (filled > 0) target[written++] = static_cast<uint8_t>(buffer);
}

namespace {

// The first values of a run of `count` values of `Width` bits whose 8-byte load from their first
// byte stays inside the `available` bytes, with the shifts and mask fixed at compile time;
// returns how many it unpacked (the caller reads the rest byte by byte).
template <int Width>
size_t UnpackWithWideLoads(const uint8_t* p, size_t available, size_t count, uint32_t* values) {
  constexpr uint64_t kMask = Width == 32 ? 0xffffffffull : ((uint64_t{1} << Width) - 1);
  // Value i starts at byte i·Width/8, which is at most available − 8 for i ≤ 8(available − 8)/W.
  const size_t wide = available < sizeof(uint64_t)
                          ? 0
                          : std::min(count, 8 * (available - sizeof(uint64_t)) / Width + 1);
  for (size_t i = 0; i < wide; ++i) {
    const size_t bit = i * Width;
    uint64_t word;
    std::memcpy(&word, p + (bit >> 3), sizeof(word));
    values[i] = static_cast<uint32_t>((word >> (bit & 7)) & kMask);
  }
  return wide;
}

using WideUnpacker = size_t (*)(const uint8_t*, size_t, size_t, uint32_t*);

template <size_t... Widths>
constexpr std::array<WideUnpacker, sizeof...(Widths)> WideUnpackers(
    std::index_sequence<Widths...>) {
  return {&UnpackWithWideLoads<static_cast<int>(Widths) + 1>...};
}

// kWideUnpackers[w - 1] unpacks width w, for w in 1..32.
constexpr auto kWideUnpackers = WideUnpackers(std::make_index_sequence<32>());

}  // namespace

bool UnpackBits(const uint8_t** data, const uint8_t* end, size_t count, uint32_t* values) {
  const uint8_t* p = *data;
  if (p >= end) return false;
  const int width = *p++;
  if (width > 32) return false;
  if (width == 0) {
    std::fill(values, values + count, 0u);
    *data = p;
    return true;
  }
  const size_t bytes = (count * static_cast<size_t>(width) + 7) / 8;
  if (static_cast<size_t>(end - p) < bytes) return false;
  const uint64_t mask = width == 32 ? 0xffffffffull : ((uint64_t{1} << width) - 1);
  size_t i = kWideUnpackers[width - 1](p, static_cast<size_t>(end - p), count, values);
  uint64_t bit = static_cast<uint64_t>(i) * static_cast<uint64_t>(width);
  // The last values, byte by byte, never reading past `end`.
  for (; i < count; ++i, bit += width) {
    uint64_t word = 0;
    const size_t first = bit >> 3;
    const size_t last = (bit + static_cast<uint64_t>(width) - 1) >> 3;
    for (size_t b = first; b <= last; ++b) word |= static_cast<uint64_t>(p[b]) << (8 * (b - first));
    values[i] = static_cast<uint32_t>((word >> (bit & 7)) & mask);
  }
  *data = p + bytes;
  return true;
}

void PackBitsInRuns(const uint32_t* values, size_t count, std::string* out) {
  for (size_t begin = 0; begin < count; begin += kPostingBlockSize) {
    PackBits(values + begin, std::min<size_t>(kPostingBlockSize, count - begin), out);
  }
}

bool UnpackBitsInRuns(const uint8_t** data, const uint8_t* end, size_t count, uint32_t* values) {
  for (size_t begin = 0; begin < count; begin += kPostingBlockSize) {
    if (!UnpackBits(data, end, std::min<size_t>(kPostingBlockSize, count - begin),
                    values + begin)) {
      return false;
    }
  }
  return true;
}

bool DecodePostingHeaders(const uint8_t* data, uint64_t size, uint32_t document_frequency,
                          bool has_positions, std::vector<PostingBlockHeader>* headers,
                          std::string* problem) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  uint64_t position_offset = 0;
  if (has_positions && !GetVarint(&p, end, &position_offset)) {
    *problem = "a posting record without its positions offset";
    return false;
  }
  const uint32_t blocks = (document_frequency + kPostingBlockSize - 1) / kPostingBlockSize;
  headers->resize(blocks);
  uint64_t last = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    PostingBlockHeader& header = (*headers)[b];
    uint32_t delta = 0;
    if (!GetVarint32(&p, end, &delta) || !GetVarint32(&p, end, &header.max_term_frequency) ||
        !GetVarint32(&p, end, &header.min_document_length) ||
        !GetVarint32(&p, end, &header.doc_bytes) ||
        (has_positions && !GetVarint32(&p, end, &header.position_bytes))) {
      *problem = "a truncated block header";
      return false;
    }
    const uint32_t count =
        b + 1 < blocks ? kPostingBlockSize : document_frequency - b * kPostingBlockSize;
    // Each block's documents are distinct and ascending: its last one lies at least `count`
    // after the previous block's last (block 0: at least count - 1 after 0).
    const uint64_t least = b == 0 ? count - 1 : count;
    if (delta < least || last + delta > UINT32_MAX - 1 || header.max_term_frequency == 0) {
      *problem = "a block header out of order";
      return false;
    }
    last += delta;
    header.last_doc = static_cast<uint32_t>(last);
    header.position_offset = position_offset;
    position_offset += header.position_bytes;
  }
  uint64_t offset = static_cast<uint64_t>(p - data);
  for (auto& header : *headers) {
    header.doc_offset = offset;
    offset += header.doc_bytes;
  }
  if (offset != size) {
    *problem = "a posting record whose blocks do not fill it";
    return false;
  }
  return true;
}

bool DecodeDocumentBlock(const uint8_t* data, const PostingBlockHeader& header, uint32_t count,
                         bool first_block, uint32_t previous_last, uint32_t* docs,
                         uint32_t* term_frequencies) {
  const uint32_t expected_last = header.last_doc;
  if (count == 1) {
    docs[0] = header.last_doc;
    term_frequencies[0] = header.max_term_frequency;
    return header.doc_bytes == 0 && (first_block || header.last_doc > previous_last);
  }
  const uint8_t* p = data;
  const uint8_t* end = data + header.doc_bytes;
  if (!UnpackBits(&p, end, count, docs) || !UnpackBits(&p, end, count, term_frequencies) ||
      p != end) {
    return false;
  }
  uint64_t doc = first_block ? 0 : static_cast<uint64_t>(previous_last) + 1;
  for (uint32_t i = 0; i < count; ++i) {
    doc += docs[i];
    if (doc >= UINT32_MAX || term_frequencies[i] == UINT32_MAX) return false;
    docs[i] = static_cast<uint32_t>(doc);
    term_frequencies[i] += 1;
    ++doc;
  }
  return docs[count - 1] == expected_last;
}

PostingListEncoder::PostingListEncoder(const std::vector<uint32_t>* document_lengths,
                                       ByteSink* positions)
    : document_lengths_(document_lengths), positions_(positions) {}

void PostingListEncoder::Begin() {
  document_frequency_ = 0;
  has_last_block_ = false;
  previous_last_ = 0;
  count_ = 0;
  block_positions_.clear();
  headers_.clear();
  payloads_.clear();
  if (positions_ != nullptr) {
    positions_start_ = positions_->size();
    PutVarint(positions_start_, &headers_);
  }
}

void PostingListEncoder::Add(uint32_t doc, uint32_t term_frequency, const uint32_t* positions) {
  if (count_ > 0 && docs_[count_ - 1] == doc) {
    frequencies_[count_ - 1] += term_frequency;
  } else {
    if (count_ == kPostingBlockSize) FlushBlock();
    docs_[count_] = doc;
    frequencies_[count_] = term_frequency;
    ++count_;
    ++document_frequency_;
    last_position_ = 0;
  }
  if (positions_ != nullptr && positions != nullptr) {
    for (uint32_t i = 0; i < term_frequency; ++i) {
      block_positions_.push_back(positions[i] - last_position_);
      last_position_ = positions[i];
    }
  }
}

void PostingListEncoder::FlushBlock() {
  if (count_ == 0) return;
  const size_t start = payloads_.size();
  uint32_t max_frequency = 0;
  uint32_t min_length = UINT32_MAX;
  uint32_t previous = has_last_block_ ? previous_last_ + 1 : 0;
  for (uint32_t i = 0; i < count_; ++i) {
    scratch_values_[i] = docs_[i] - previous;
    previous = docs_[i] + 1;
    max_frequency = std::max(max_frequency, frequencies_[i]);
    min_length = std::min(min_length, (*document_lengths_)[docs_[i]]);
  }
  if (count_ > 1) {  // one document: the header says it all
    PackBits(scratch_values_, count_, &payloads_);
    for (uint32_t i = 0; i < count_; ++i) scratch_values_[i] = frequencies_[i] - 1;
    PackBits(scratch_values_, count_, &payloads_);
  }
  const uint32_t last = docs_[count_ - 1];
  PutVarint(has_last_block_ ? last - previous_last_ : last, &headers_);
  PutVarint(max_frequency, &headers_);
  PutVarint(min_length, &headers_);
  PutVarint(payloads_.size() - start, &headers_);
  if (positions_ != nullptr) {
    scratch_.clear();
    PackBitsInRuns(block_positions_.data(), block_positions_.size(), &scratch_);
    positions_->Append(scratch_);
    PutVarint(scratch_.size(), &headers_);
    block_positions_.clear();
  }
  has_last_block_ = true;
  previous_last_ = last;
  count_ = 0;
}

uint32_t PostingListEncoder::Finish(std::string* record) {
  FlushBlock();
  record->append(headers_);
  record->append(payloads_);
  return document_frequency_;
}

}  // namespace tessera::index::text
