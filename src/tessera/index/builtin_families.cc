#include "tessera/index/builtin_families.h"

namespace tessera::index {

std::vector<std::unique_ptr<IndexFamily>> MakeBuiltinFamilies() {
  std::vector<std::unique_ptr<IndexFamily>> families;
  families.push_back(scalar::MakeBtreeFamily());
  families.push_back(scalar::MakeBitmapFamily());
  families.push_back(scalar::MakeZoneMapFamily());
  families.push_back(scalar::MakeBloomFilterFamily());
  families.push_back(scalar::MakeLabelListFamily());
  families.push_back(scalar::MakeNgramFamily());
  families.push_back(vector::MakeIvfFlatFamily());
  families.push_back(vector::MakeIvfSqFamily());
  families.push_back(vector::MakeIvfPqFamily());
  families.push_back(vector::MakeIvfRqFamily());
  families.push_back(vector::MakeIvfHnswFlatFamily());
  families.push_back(vector::MakeIvfHnswSqFamily());
  families.push_back(vector::MakeIvfHnswPqFamily());
  families.push_back(text::MakeInvertedFamily());
  return families;
}

}  // namespace tessera::index
