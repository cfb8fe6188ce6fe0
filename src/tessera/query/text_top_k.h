// TextTopK: the best k documents of a full-text search so far, shared by every source (segments
// and the unindexed tail) of a search so that the score a document must beat carries over from
// one source to the next.
//
// Order: score descending, then row address ascending; so the k kept rows are the same whatever
// order documents are offered in, and block-max WAND (which skips documents that cannot enter)
// keeps exactly the rows the exhaustive path keeps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace tessera::query {

struct ScoredDocument {
  double score = 0;
  uint64_t row_address = 0;
};

// Whether `left` ranks before `right`.
inline bool RanksBefore(const ScoredDocument& left, const ScoredDocument& right) {
  return left.score != right.score ? left.score > right.score
                                   : left.row_address < right.row_address;
}

class TextTopK {
 public:
  explicit TextTopK(size_t capacity) : capacity_(capacity) {}

  // The score a document must reach to possibly enter (ties may enter by row address):
  // -infinity until k documents are held.
  double threshold() const {
    return heap_.size() < capacity_ ? -std::numeric_limits<double>::infinity()
                                    : heap_.front().score;
  }
  void Push(double score, uint64_t row_address) {
    const ScoredDocument document{score, row_address};
    if (heap_.size() < capacity_) {
      heap_.push_back(document);
      std::push_heap(heap_.begin(), heap_.end(), RanksBefore);
    } else if (capacity_ > 0 && RanksBefore(document, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), RanksBefore);
      heap_.back() = document;
      std::push_heap(heap_.begin(), heap_.end(), RanksBefore);
    }
  }
  size_t size() const { return heap_.size(); }
  // The documents, best first.
  std::vector<ScoredDocument> Take() && {
    std::sort(heap_.begin(), heap_.end(), RanksBefore);
    return std::move(heap_);
  }

 private:
  size_t capacity_;
  std::vector<ScoredDocument> heap_;  // heap_.front() is the worst kept
};

}  // namespace tessera::query
