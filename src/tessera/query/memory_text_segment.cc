#include "tessera/query/memory_text_segment.h"

#include <algorithm>

#include "tessera/status.h"

namespace tessera::query {

namespace {

using index::kPostingBlockSize;
using index::PostingCursor;

class MemoryPostingCursor final : public PostingCursor {
 public:
  MemoryPostingCursor(const MemoryTextSegment::TermData& data, bool with_positions)
      : data_(data), with_positions_(with_positions) {}

  uint32_t doc() const override { return index_ < data_.docs.size() ? data_.docs[index_] : kEnd; }
  uint32_t term_frequency() const override { return data_.frequencies[index_]; }
  arrow::Status Next() override {
    ++index_;
    return arrow::Status::OK();
  }
  arrow::Status Advance(uint32_t target) override {
    if (doc() >= target) return arrow::Status::OK();
    index_ = static_cast<size_t>(
        std::lower_bound(data_.docs.begin() + static_cast<std::ptrdiff_t>(index_), data_.docs.end(),
                         target) -
        data_.docs.begin());
    return arrow::Status::OK();
  }
  arrow::Status ShallowAdvance(uint32_t target) override {
    const size_t blocks = data_.block_max_frequency.size();
    while (block_ < blocks && BlockLast(block_) < target) ++block_;
    return arrow::Status::OK();
  }
  uint32_t block_last_doc() const override {
    return block_ < data_.block_max_frequency.size() ? BlockLast(block_) : kEnd;
  }
  uint32_t block_max_term_frequency() const override { return data_.block_max_frequency[block_]; }
  uint32_t block_min_document_length() const override { return data_.block_min_length[block_]; }
  BlockRemainder RemainderOfBlock() const override {
    if (index_ >= data_.docs.size()) return {};
    const size_t block_end =
        std::min((index_ / kPostingBlockSize + 1) * kPostingBlockSize, data_.docs.size());
    return {data_.docs.data() + index_, data_.frequencies.data() + index_,
            static_cast<uint32_t>(block_end - index_)};
  }
  arrow::Status PositionsInto(std::vector<uint32_t>* positions) override {
    if (!with_positions_) {
      return Unsupported("this text segment holds no positions (with_position=false)");
    }
    positions->assign(data_.positions.begin() + data_.position_starts[index_],
                      data_.positions.begin() + data_.position_starts[index_ + 1]);
    return arrow::Status::OK();
  }

 private:
  uint32_t BlockLast(size_t block) const {
    const size_t last = std::min((block + 1) * kPostingBlockSize, data_.docs.size()) - 1;
    return data_.docs[last];
  }

  const MemoryTextSegment::TermData& data_;
  bool with_positions_;
  size_t index_ = 0;
  size_t block_ = 0;
};

}  // namespace

MemoryTextSegment::MemoryTextSegment(bool with_positions) : with_positions_(with_positions) {
  meta_.set_uuid("unindexed");
}

arrow::Status MemoryTextSegment::AddDocument(uint64_t row_address, uint32_t length,
                                             std::vector<Term> terms) {
  if (!rows_.empty() && row_address <= rows_.back()) {
    return InvalidArgument(
        "documents of an in-memory text segment must come in ascending row "
        "address order; ",
        row_address, " follows ", rows_.back());
  }
  const auto doc = static_cast<uint32_t>(rows_.size());
  rows_.push_back(row_address);
  lengths_.push_back(length);
  total_length_ += length;
  std::sort(terms.begin(), terms.end(), [](const Term& left, const Term& right) {
    return left.term != right.term ? left.term < right.term : left.position < right.position;
  });
  for (size_t begin = 0; begin < terms.size();) {
    size_t end = begin + 1;
    while (end < terms.size() && terms[end].term == terms[begin].term) ++end;
    auto [it, inserted] = terms_.try_emplace(terms[begin].term);
    TermData& data = it->second;
    if (inserted) {
      data.offset = by_offset_.size();
      by_offset_.push_back(&data);
      data.position_starts.push_back(0);
    }
    const auto frequency = static_cast<uint32_t>(end - begin);
    if (data.docs.size() % kPostingBlockSize == 0) {
      data.block_max_frequency.push_back(frequency);
      data.block_min_length.push_back(length);
    } else {
      data.block_max_frequency.back() = std::max(data.block_max_frequency.back(), frequency);
      data.block_min_length.back() = std::min(data.block_min_length.back(), length);
    }
    data.docs.push_back(doc);
    data.frequencies.push_back(frequency);
    for (size_t i = begin; i < end; ++i) data.positions.push_back(terms[i].position);
    data.position_starts.push_back(static_cast<uint32_t>(data.positions.size()));
    begin = end;
  }
  return arrow::Status::OK();
}

arrow::Status MemoryTextSegment::AddAnalyzed(uint64_t row_address,
                                             const std::vector<std::string_view>& values,
                                             index::text::Analyzer& analyzer) {
  scratch_.clear();
  uint32_t position = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0 && position <= UINT32_MAX - 2 * index::kListElementPositionGap) {
      position += index::kListElementPositionGap;
    }
    position = analyzer.Analyze(values[i], position, [&](const index::text::Token& token) {
      scratch_.push_back({std::string(token.term), token.position});
    });
  }
  const auto length = static_cast<uint32_t>(scratch_.size());
  return AddDocument(row_address, length, std::move(scratch_));
}

std::optional<uint32_t> MemoryTextSegment::document_of(uint64_t row_address) const {
  auto it = std::lower_bound(rows_.begin(), rows_.end(), row_address);
  if (it == rows_.end() || *it != row_address) return std::nullopt;
  return static_cast<uint32_t>(it - rows_.begin());
}

arrow::Result<std::optional<index::TermPostings>> MemoryTextSegment::FindTerm(
    std::string_view term) const {
  auto it = terms_.find(term);
  if (it == terms_.end()) return std::nullopt;
  return index::TermPostings{static_cast<uint32_t>(it->second.docs.size()), it->second.offset, 0};
}

arrow::Status MemoryTextSegment::VisitTerms(
    std::string_view prefix,
    const std::function<bool(std::string_view, const index::TermPostings&)>& visit) const {
  for (auto it = terms_.lower_bound(prefix);
       it != terms_.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix; ++it) {
    const index::TermPostings postings{static_cast<uint32_t>(it->second.docs.size()),
                                       it->second.offset, 0};
    if (!visit(it->first, postings)) break;
  }
  return arrow::Status::OK();
}

arrow::Result<std::unique_ptr<index::PostingCursor>> MemoryTextSegment::OpenPostings(
    const index::TermPostings& postings) const {
  if (postings.offset >= by_offset_.size()) {
    return InvalidArgument("no term at offset ", postings.offset, " of an in-memory text segment");
  }
  return std::make_unique<MemoryPostingCursor>(*by_offset_[postings.offset], with_positions_);
}

}  // namespace tessera::query
