// TermCache: the stems of recently stemmed terms, so that a corpus pays the Snowball stemmer
// once per distinct word rather than once per occurrence (word frequencies are Zipfian: a few
// thousand words are most of any text, and stemming costs several times more than tokenizing).
//
// An open-addressing table whose slots hold the term and its stem inline (32 bytes), so a hit
// is one hash, usually one memory access, and no allocation. Bounded: a term whose bytes and
// stem's do not fit a slot is not remembered, and the table doubles when half full up to 64Ki
// slots (2 MiB), where it is emptied and refilled instead. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera::index::text {

class TermCache {
 public:
  TermCache() = default;
  TermCache(const TermCache&) = delete;
  TermCache& operator=(const TermCache&) = delete;

  // The remembered stem of `term`, valid until the next Insert; false when there is none.
  bool Find(std::string_view term, std::string_view* stem) const;
  // Remembers `stem` as the stem of `term` (or not, when they do not fit a slot).
  void Insert(std::string_view term, std::string_view stem);

 private:
  static constexpr size_t kInline = 26;
  static constexpr uint8_t kSameAsTerm = 0xFF;  // stem_length: the term is its own stem
  struct Slot {
    uint32_t hash = 0;
    uint8_t term_length = 0;  // 0: an empty slot (terms are never empty)
    uint8_t stem_length = 0;
    char bytes[kInline] = {};  // the term, then the stem unless kSameAsTerm
  };
  static_assert(sizeof(Slot) == 32);

  void Grow();

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace tessera::index::text
