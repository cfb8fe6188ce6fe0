// Sorting many unsigned 64-bit integers (row addresses) by least-significant-digit radix sort.
//
// An index answer of tens of thousands of row addresses arrives in key order and must be put in
// address order: std::sort spent more than half of a selective BTREE count doing that
// (comparisons in O(n log n) with unpredictable branches). A radix sort takes one counting pass
// and one scatter per byte that varies among the values — for row addresses (a few fragment
// ids above 32 bits, offsets below 2^24) four of eight — with no comparison at all. Short inputs
// still go to std::sort, which is quicker below a few hundred values.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::util {

// Sorts `values` ascending.
void RadixSort(std::vector<uint64_t>* values);

}  // namespace tessera::util
