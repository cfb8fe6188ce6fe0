// StopWordSet: the stop words of one analyzer, as spelled after its character filters, in a
// table small enough to stay in the first-level cache: a membership test is one short hash,
// one or two probes and one compare, with no allocation. Stop words are a large share of the
// tokens of any text, so this test runs for most tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::index::text {

class StopWordSet {
 public:
  StopWordSet() = default;
  explicit StopWordSet(const std::vector<std::string>& words);

  bool empty() const { return count_ == 0; }
  bool Contains(std::string_view word) const;

 private:
  static constexpr size_t kInline = 31;  // longer words (none in the Snowball lists) go to long_
  struct Slot {
    uint8_t length = 0;  // 0: empty
    char bytes[kInline] = {};
  };

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
  size_t max_length_ = 0;
  std::vector<std::string> long_;
};

}  // namespace tessera::index::text
