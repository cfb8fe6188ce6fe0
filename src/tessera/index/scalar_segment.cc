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
    case NodeKind::kCall: {
      // A boolean function of the column and constants: contains(s, 'x'), starts_with(s, 'x'),
      // array_contains(tags, 'x'), ... The reader decides which functions it answers.
      const auto& arguments = leaf.As<expr::Call>().arguments();
      if (leaf.type()->id() != arrow::Type::BOOL || arguments.empty() ||
          arguments.front()->kind() != NodeKind::kColumn) {
        return nullptr;
      }
      for (size_t i = 1; i < arguments.size(); ++i) {
        if (arguments[i]->kind() != NodeKind::kLiteral) return nullptr;
      }
      return &arguments.front()->As<expr::Column>();
    }
    default:
      return nullptr;
  }
}

}  // namespace tessera::index
