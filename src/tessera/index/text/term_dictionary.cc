#include "tessera/index/text/term_dictionary.h"

#include <algorithm>
#include <cstring>

#include "tessera/index/text/fixed_width.h"
#include "tessera/status.h"

namespace tessera::index::text {

namespace {

constexpr size_t kFooterBytes = 8 + 8 + 4 + 4;

size_t SharedPrefix(std::string_view a, std::string_view b) {
  const size_t limit = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

void TermDictionaryWriter::Add(std::string_view term, uint32_t document_frequency,
                               uint64_t record_offset, uint64_t record_length) {
  const bool first = num_terms_ % kTermsPerBlock == 0;
  if (first) {
    if (!block_.empty()) out_->Append(block_);
    block_.clear();
    PutVarint(term.size(), &index_);
    index_.append(term);
    PutVarint(out_->size(), &index_);
    ++num_blocks_;
    PutVarint(record_offset, &block_);
  }
  const size_t shared = first ? 0 : SharedPrefix(previous_, term);
  PutVarint(shared, &block_);
  PutVarint(term.size() - shared, &block_);
  block_.append(term.substr(shared));
  PutVarint(document_frequency, &block_);
  PutVarint(record_length, &block_);
  previous_.assign(term);
  ++num_terms_;
}

void TermDictionaryWriter::Finish() {
  if (!block_.empty()) out_->Append(block_);
  block_.clear();
  const uint64_t index_offset = out_->size();
  out_->Append(index_);
  std::string footer;
  PutFixed<uint64_t>(index_offset, &footer);
  PutFixed<uint64_t>(num_terms_, &footer);
  PutFixed<uint32_t>(num_blocks_, &footer);
  PutFixed<uint32_t>(kTermDictionaryMagic, &footer);
  out_->Append(footer);
}

arrow::Result<TermDictionary> TermDictionary::Parse(const uint8_t* data, uint64_t size,
                                                    uint64_t postings_size) {
  TermDictionary dictionary;
  dictionary.data_ = data;
  dictionary.postings_size_ = postings_size;
  if (size < kFooterBytes) return Corrupt("it is shorter than its footer");
  const uint8_t* footer = data + size - kFooterBytes;
  dictionary.index_offset_ = GetFixed<uint64_t>(footer);
  dictionary.num_terms_ = GetFixed<uint64_t>(footer + 8);
  const uint32_t num_blocks = GetFixed<uint32_t>(footer + 16);
  if (GetFixed<uint32_t>(footer + 20) != kTermDictionaryMagic) {
    return Corrupt("its footer lacks the dictionary's magic number");
  }
  const uint64_t expected_blocks = (dictionary.num_terms_ + kTermsPerBlock - 1) / kTermsPerBlock;
  if (dictionary.index_offset_ > size - kFooterBytes || num_blocks != expected_blocks) {
    return Corrupt("its footer is inconsistent (", dictionary.num_terms_, " terms in ", num_blocks,
                   " blocks, index at ", dictionary.index_offset_, ")");
  }
  const uint8_t* p = data + dictionary.index_offset_;
  const uint8_t* end = footer;
  dictionary.blocks_.reserve(num_blocks);
  for (uint32_t b = 0; b < num_blocks; ++b) {
    uint64_t length = 0;
    uint64_t offset = 0;
    if (!GetVarint(&p, end, &length) || length > static_cast<uint64_t>(end - p)) {
      return Corrupt("its block index is truncated at block ", b);
    }
    std::string_view first(reinterpret_cast<const char*>(p), length);
    p += length;
    if (!GetVarint(&p, end, &offset) || offset >= dictionary.index_offset_ ||
        (b > 0 && (offset <= dictionary.blocks_.back().offset ||
                   first <= dictionary.blocks_.back().first_term))) {
      return Corrupt("its block index is out of order at block ", b);
    }
    dictionary.blocks_.push_back(BlockEntry{first, offset});
  }
  if (p != end) return Corrupt("its block index does not end at the footer");
  return dictionary;
}

uint32_t TermDictionary::TermsInBlock(uint32_t block) const {
  if (block + 1 < blocks_.size()) return kTermsPerBlock;
  return static_cast<uint32_t>(num_terms_ - static_cast<uint64_t>(block) * kTermsPerBlock);
}

bool TermDictionary::OpenBlock(uint32_t block, const uint8_t** p, const uint8_t** end,
                               TermPostings* postings) const {
  *p = data_ + blocks_[block].offset;
  *end = data_ + (block + 1 < blocks_.size() ? blocks_[block + 1].offset : index_offset_);
  uint64_t offset = 0;
  if (!GetVarint(p, *end, &offset)) return false;
  postings->offset = offset;
  postings->length = 0;
  return true;
}

bool TermDictionary::ReadEntry(const uint8_t** p, const uint8_t* end, bool first, std::string* term,
                               TermPostings* postings) const {
  uint64_t shared = 0;
  uint64_t suffix = 0;
  if (!GetVarint(p, end, &shared) || !GetVarint(p, end, &suffix) || shared > term->size() ||
      (first && shared != 0) || suffix > static_cast<uint64_t>(end - *p)) {
    return false;
  }
  // Strictly ascending terms with maximal shared prefixes: the suffix starts past the end of
  // the previous term or with a byte greater than the previous term's at that place.
  if (!first &&
      (suffix == 0 || (shared < term->size() &&
                       static_cast<uint8_t>(**p) <= static_cast<uint8_t>((*term)[shared])))) {
    return false;
  }
  term->resize(shared);
  term->append(reinterpret_cast<const char*>(*p), suffix);
  *p += suffix;
  postings->offset += postings->length;
  uint64_t frequency = 0;
  if (!GetVarint(p, end, &frequency) || frequency == 0 || frequency > UINT32_MAX ||
      !GetVarint(p, end, &postings->length) || postings->length == 0 ||
      postings->offset > postings_size_ || postings->length > postings_size_ - postings->offset) {
    return false;
  }
  postings->document_frequency = static_cast<uint32_t>(frequency);
  return true;
}

uint32_t TermDictionary::BlockFor(std::string_view term) const {
  auto it =
      std::upper_bound(blocks_.begin(), blocks_.end(), term,
                       [](std::string_view t, const BlockEntry& b) { return t < b.first_term; });
  if (it == blocks_.begin()) return 0;
  return static_cast<uint32_t>(it - blocks_.begin() - 1);
}

std::optional<TermPostings> TermDictionary::Find(std::string_view term,
                                                 std::string* problem) const {
  if (blocks_.empty()) return std::nullopt;
  const uint32_t block = BlockFor(term);
  if (term < blocks_[block].first_term) return std::nullopt;
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  TermPostings postings;
  std::string current;
  if (!OpenBlock(block, &p, &end, &postings)) {
    *problem = "a term block is truncated";
    return std::nullopt;
  }
  const uint32_t count = TermsInBlock(block);
  for (uint32_t i = 0; i < count; ++i) {
    if (!ReadEntry(&p, end, i == 0, &current, &postings)) {
      *problem = Concat("term block ", block, " is malformed");
      return std::nullopt;
    }
    if (current == term) return postings;
    if (term < current) return std::nullopt;
  }
  return std::nullopt;
}

bool TermDictionary::Visit(std::string_view prefix,
                           const std::function<bool(std::string_view, const TermPostings&)>& visit,
                           std::string* problem) const {
  if (blocks_.empty()) return true;
  std::string current;
  TermPostings postings;
  for (uint32_t block = BlockFor(prefix); block < blocks_.size(); ++block) {
    const uint8_t* p = nullptr;
    const uint8_t* end = nullptr;
    if (!OpenBlock(block, &p, &end, &postings)) {
      *problem = "a term block is truncated";
      return false;
    }
    const uint32_t count = TermsInBlock(block);
    for (uint32_t i = 0; i < count; ++i) {
      if (!ReadEntry(&p, end, i == 0, &current, &postings)) {
        *problem = Concat("term block ", block, " is malformed");
        return false;
      }
      if (std::string_view(current) < prefix) continue;
      if (std::string_view(current).substr(0, prefix.size()) != prefix) return true;
      if (!visit(current, postings)) return true;
    }
  }
  return true;
}

bool TermDictionary::Iterator::Next() {
  const auto& blocks = dictionary_->blocks_;
  if (!started_) {
    started_ = true;
    block_ = 0;
    in_block_ = 0;
    if (blocks.empty()) return false;
    if (!dictionary_->OpenBlock(0, &p_, &end_, &postings_)) {
      problem_ = "a term block is truncated";
      return false;
    }
    block_terms_ = dictionary_->TermsInBlock(0);
  } else if (in_block_ == block_terms_) {
    ++block_;
    in_block_ = 0;
    if (block_ >= blocks.size()) return false;
    if (!dictionary_->OpenBlock(block_, &p_, &end_, &postings_)) {
      problem_ = "a term block is truncated";
      return false;
    }
    block_terms_ = dictionary_->TermsInBlock(block_);
  }
  if (!dictionary_->ReadEntry(&p_, end_, in_block_ == 0, &term_, &postings_)) {
    problem_ = Concat("term block ", block_, " is malformed");
    return false;
  }
  ++in_block_;
  return true;
}

}  // namespace tessera::index::text
