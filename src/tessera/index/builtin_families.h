// The index families tessera ships. Each family's factory lives beside its implementation.
#pragma once

#include <memory>
#include <vector>

#include "tessera/index/index_family.h"

namespace tessera::index {

std::vector<std::unique_ptr<IndexFamily>> MakeBuiltinFamilies();

namespace scalar {
std::unique_ptr<IndexFamily> MakeBtreeFamily();        // scalar/btree_family.cc
std::unique_ptr<IndexFamily> MakeBitmapFamily();       // scalar/bitmap_family.cc
std::unique_ptr<IndexFamily> MakeZoneMapFamily();      // scalar/zonemap_family.cc
std::unique_ptr<IndexFamily> MakeBloomFilterFamily();  // scalar/bloomfilter_family.cc
std::unique_ptr<IndexFamily> MakeLabelListFamily();    // scalar/label_list_family.cc
std::unique_ptr<IndexFamily> MakeNgramFamily();        // scalar/ngram_family.cc
}  // namespace scalar
namespace vector {
std::unique_ptr<IndexFamily> MakeIvfFlatFamily();      // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfSqFamily();        // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfPqFamily();        // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfRqFamily();        // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfHnswFlatFamily();  // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfHnswSqFamily();    // vector/ivf_family.cc
std::unique_ptr<IndexFamily> MakeIvfHnswPqFamily();    // vector/ivf_family.cc
}  // namespace vector
namespace text {
std::unique_ptr<IndexFamily> MakeInvertedFamily();  // text/inverted_family.cc
}  // namespace text

}  // namespace tessera::index
