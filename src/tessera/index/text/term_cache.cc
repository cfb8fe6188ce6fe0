#include "tessera/index/text/term_cache.h"

#include <algorithm>
#include <cstring>

namespace tessera::index::text {

namespace {

constexpr size_t kFirstSlots = size_t{1} << 10;  // powers of two; at most half are used
constexpr size_t kMaxSlots = size_t{1} << 16;

// FNV-1a: terms are a few bytes long, where it beats a block hash.
uint32_t TermHash(std::string_view term) {
  uint32_t hash = 2166136261u;
  for (char c : term) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

}  // namespace

bool TermCache::Find(std::string_view term, std::string_view* stem) const {
  if (term.empty() || term.size() > kInline || slots_.empty()) return false;
  const uint32_t hash = TermHash(term);
  const size_t mask = slots_.size() - 1;
  for (size_t index = hash & mask;; index = (index + 1) & mask) {
    const Slot& slot = slots_[index];
    if (slot.term_length == 0) return false;
    if (slot.hash == hash && slot.term_length == term.size() &&
        std::memcmp(slot.bytes, term.data(), term.size()) == 0) {
      *stem = slot.stem_length == kSameAsTerm
                  ? std::string_view(slot.bytes, slot.term_length)
                  : std::string_view(slot.bytes + slot.term_length, slot.stem_length);
      return true;
    }
  }
}

void TermCache::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.term_length == 0) continue;
    size_t index = slot.hash & mask;
    while (slots_[index].term_length != 0) index = (index + 1) & mask;
    slots_[index] = slot;
  }
}

void TermCache::Insert(std::string_view term, std::string_view stem) {
  const bool same = stem == term;
  if (term.empty() || term.size() + (same ? 0 : stem.size()) > kInline) return;
  // Small at first and grown by doubling, so that an analyzer made for one query costs little.
  if (slots_.empty()) slots_.resize(kFirstSlots);
  if (used_ + 1 > slots_.size() / 2) {
    if (slots_.size() < kMaxSlots) {
      Grow();
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
      used_ = 0;
    }
  }
  const uint32_t hash = TermHash(term);
  const size_t mask = slots_.size() - 1;
  size_t index = hash & mask;
  for (; slots_[index].term_length != 0; index = (index + 1) & mask) {
    const Slot& slot = slots_[index];
    if (slot.hash == hash && slot.term_length == term.size() &&
        std::memcmp(slot.bytes, term.data(), term.size()) == 0) {
      return;
    }
  }
  Slot& slot = slots_[index];
  slot.hash = hash;
  slot.term_length = static_cast<uint8_t>(term.size());
  std::memcpy(slot.bytes, term.data(), term.size());
  if (same) {
    slot.stem_length = kSameAsTerm;
  } else {
    slot.stem_length = static_cast<uint8_t>(stem.size());
    std::memcpy(slot.bytes + term.size(), stem.data(), stem.size());
  }
  ++used_;
}

}  // namespace tessera::index::text
