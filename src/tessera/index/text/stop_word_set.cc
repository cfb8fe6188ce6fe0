#include "tessera/index/text/stop_word_set.h"

#include <algorithm>
#include <cstring>

namespace tessera::index::text {

namespace {

// FNV-1a: words are a few bytes long, where it beats a block hash.
uint32_t StopWordHash(std::string_view word) {
  uint32_t hash = 2166136261u;
  for (char c : word) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

}  // namespace

StopWordSet::StopWordSet(const std::vector<std::string>& words) {
  size_t capacity = 16;
  while (capacity < words.size() * 4) capacity *= 2;
  slots_.resize(capacity);
  mask_ = capacity - 1;
  for (const auto& word : words) {
    if (word.empty() || Contains(word)) continue;
    ++count_;
    max_length_ = std::max(max_length_, word.size());
    if (word.size() > kInline) {
      long_.push_back(word);
      continue;
    }
    size_t index = StopWordHash(word) & mask_;
    while (slots_[index].length != 0) index = (index + 1) & mask_;
    slots_[index].length = static_cast<uint8_t>(word.size());
    std::memcpy(slots_[index].bytes, word.data(), word.size());
  }
}

bool StopWordSet::Contains(std::string_view word) const {
  if (word.empty() || word.size() > max_length_) return false;
  if (word.size() > kInline) {
    return std::find(long_.begin(), long_.end(), word) != long_.end();
  }
  for (size_t index = StopWordHash(word) & mask_;; index = (index + 1) & mask_) {
    const Slot& slot = slots_[index];
    if (slot.length == 0) return false;
    if (slot.length == word.size() && std::memcmp(slot.bytes, word.data(), word.size()) == 0) {
      return true;
    }
  }
}

}  // namespace tessera::index::text
