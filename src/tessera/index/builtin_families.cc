#include "tessera/index/builtin_families.h"

namespace tessera::index {

std::vector<std::unique_ptr<IndexFamily>> MakeBuiltinFamilies() {
  std::vector<std::unique_ptr<IndexFamily>> families;
  families.push_back(scalar::MakeBtreeFamily());
  families.push_back(vector::MakeIvfFlatFamily());
  return families;
}

}  // namespace tessera::index
