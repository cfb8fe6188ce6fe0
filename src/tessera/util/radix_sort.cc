#include "tessera/util/radix_sort.h"

#include <algorithm>
#include <array>

namespace tessera::util {

namespace {

constexpr size_t kComparisonSortLimit = 512;
constexpr int kDigits = 8;  // bytes of a value
constexpr size_t kBuckets = 256;

}  // namespace

void RadixSort(std::vector<uint64_t>* values) {
  std::vector<uint64_t>& keys = *values;
  if (keys.size() <= kComparisonSortLimit) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  // Every byte's histogram in one pass.
  std::vector<std::array<size_t, kBuckets>> counts(kDigits);
  for (auto& count : counts) count.fill(0);
  for (const uint64_t key : keys) {
    for (int digit = 0; digit < kDigits; ++digit) ++counts[digit][(key >> (8 * digit)) & 0xff];
  }
  std::vector<uint64_t> scratch(keys.size());
  for (int digit = 0; digit < kDigits; ++digit) {
    auto& count = counts[static_cast<size_t>(digit)];
    // A byte every value shares orders nothing: skip its pass.
    if (std::find(count.begin(), count.end(), keys.size()) != count.end()) continue;
    size_t offset = 0;
    for (size_t& bucket : count) {
      const size_t here = bucket;
      bucket = offset;
      offset += here;
    }
    const int shift = 8 * digit;
    for (const uint64_t key : keys) scratch[count[(key >> shift) & 0xff]++] = key;
    keys.swap(scratch);
  }
}

}  // namespace tessera::util
