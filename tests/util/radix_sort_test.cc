// util::RadixSort sorts exactly as std::sort does: short and long inputs, duplicates, bytes
// every value shares (skipped passes) and values spanning all 64 bits; util::RadixSortBy sorts
// items by a key exactly as std::stable_sort does.
#include "tessera/util/radix_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace tessera::util::radix_sort_test {
namespace {

void ExpectSortedLikeStdSort(std::vector<uint64_t> values) {
  std::vector<uint64_t> expected = values;
  std::sort(expected.begin(), expected.end());
  RadixSort(&values);
  EXPECT_EQ(values, expected);
}

TEST(RadixSort, SortsLikeStdSort) {
  std::mt19937_64 random(7);
  for (size_t size : {0, 1, 2, 100, 512, 513, 5000, 100000}) {
    std::vector<uint64_t> any(size);
    for (auto& value : any) value = random();
    ExpectSortedLikeStdSort(any);
    // Row addresses: a few fragments, offsets below 2^20, duplicates.
    std::vector<uint64_t> addresses(size);
    for (auto& value : addresses) value = (random() % 3) << 32 | (random() % (1 << 20));
    ExpectSortedLikeStdSort(addresses);
    // Every byte shared but the lowest, and every byte shared.
    std::vector<uint64_t> low(size);
    for (auto& value : low) value = 0xabcd000000000000ull | (random() % 256);
    ExpectSortedLikeStdSort(low);
    ExpectSortedLikeStdSort(std::vector<uint64_t>(size, 42));
  }
}

// Items of equal keys keep their order, short inputs (a comparison sort) and long ones alike.
TEST(RadixSortBy, IsStable) {
  struct Item {
    uint64_t key;
    size_t position;
  };
  std::mt19937_64 random(11);
  for (size_t size : {0, 3, 512, 513, 20000}) {
    std::vector<Item> items;
    for (size_t i = 0; i < size; ++i) items.push_back({(random() % 2) << 40 | random() % 300, i});
    std::vector<Item> expected = items;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const Item& a, const Item& b) { return a.key < b.key; });
    RadixSortBy(&items, [](const Item& item) { return item.key; });
    ASSERT_EQ(items.size(), expected.size());
    for (size_t i = 0; i < size; ++i) {
      ASSERT_EQ(items[i].key, expected[i].key) << i;
      ASSERT_EQ(items[i].position, expected[i].position) << i;
    }
  }
}

}  // namespace
}  // namespace tessera::util::radix_sort_test
