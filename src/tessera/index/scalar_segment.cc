#include "tessera/index/scalar_segment.h"

namespace tessera::index {

const expr::Column* LeafColumn(const expr::Node& leaf) {
  using expr::NodeKind;
  switch (leaf.kind()) {
    case NodeKind::kColumn:
      return leaf.type()->id() == arrow::Type::BOOL ? &leaf.As<expr::Column>() : nullptr;
    case NodeKind::kCompare: {
      const auto& compare = leaf.As<expr::Compare>();
      if (compare.left().kind() != NodeKind::kColumn) return nullptr;
      if (compare.right().kind() != NodeKind::kLiteral) return nullptr;
      return &compare.left().As<expr::Column>();
    }
    case NodeKind::kInList:
      return &leaf.As<expr::InList>().column();
    case NodeKind::kBetween:
      return &leaf.As<expr::Between>().column();
    case NodeKind::kIsNull:
      return &leaf.As<expr::IsNull>().column();
    case NodeKind::kLike:
      // `s LIKE pattern_column` reads two columns: not a leaf of one.
      if (leaf.As<expr::Like>().pattern_column() != nullptr) return nullptr;
      return &leaf.As<expr::Like>().column();
    case NodeKind::kArrayHas:
      return &leaf.As<expr::ArrayHas>().column();
    default:
      return nullptr;
  }
}

}  // namespace tessera::index
