// Sorting many items by an unsigned 64-bit key (a row address) by least-significant-digit radix
// sort.
//
// An index answer of tens of thousands of row addresses arrives in key order and must be put in
// address order, and refinement visits a batch's candidates in address order: std::sort spent
// more than half of a selective BTREE count, and a tenth of a refined batch search, doing that
// (comparisons in O(n log n) with unpredictable branches). A radix sort takes one counting pass
// and one scatter per byte that varies among the keys — for row addresses (a few fragment ids
// above 32 bits, offsets below 2^24) four of eight — with no comparison at all. Short inputs
// still go to a comparison sort, which is quicker below a few hundred items.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::util {

// Sorts `items` by key_of(item) (a uint64_t), ascending and stably: items of equal keys keep
// their order.
template <typename T, typename KeyOf>
void RadixSortBy(std::vector<T>* items, KeyOf key_of) {
  constexpr size_t kComparisonSortLimit = 512;
  constexpr int kDigits = 8;  // bytes of a key
  constexpr size_t kBuckets = 256;
  std::vector<T>& sorted = *items;
  if (sorted.size() <= kComparisonSortLimit) {
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const T& a, const T& b) { return key_of(a) < key_of(b); });
    return;
  }
  // Every byte's histogram in one pass.
  std::vector<std::array<size_t, kBuckets>> counts(kDigits);
  for (auto& count : counts) count.fill(0);
  for (const T& item : sorted) {
    const uint64_t key = key_of(item);
    for (int digit = 0; digit < kDigits; ++digit) ++counts[digit][(key >> (8 * digit)) & 0xff];
  }
  std::vector<T> scratch(sorted.size());
  for (int digit = 0; digit < kDigits; ++digit) {
    auto& count = counts[static_cast<size_t>(digit)];
    // A byte every key shares orders nothing: skip its pass.
    if (std::find(count.begin(), count.end(), sorted.size()) != count.end()) continue;
    size_t offset = 0;
    for (size_t& bucket : count) {
      const size_t here = bucket;
      bucket = offset;
      offset += here;
    }
    const int shift = 8 * digit;
    for (const T& item : sorted) scratch[count[(key_of(item) >> shift) & 0xff]++] = item;
    sorted.swap(scratch);
  }
}

// Sorts `values` ascending.
inline void RadixSort(std::vector<uint64_t>* values) {
  RadixSortBy(values, [](uint64_t value) { return value; });
}

}  // namespace tessera::util
