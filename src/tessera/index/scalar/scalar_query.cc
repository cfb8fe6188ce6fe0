#include "tessera/index/scalar/scalar_query.h"

#include "tessera/index/scalar_segment.h"

namespace tessera::index {

namespace {

ScalarQuery QueryOfKind(ScalarQuery::Kind kind) {
  ScalarQuery query;
  query.kind = kind;
  return query;
}

ScalarQuery RangeQuery(std::optional<ScalarBound> lower, std::optional<ScalarBound> upper) {
  ScalarQuery query = QueryOfKind(ScalarQuery::Kind::kRange);
  query.lower = std::move(lower);
  query.upper = std::move(upper);
  return query;
}

}  // namespace

std::optional<ScalarQuery> ScalarQueryOf(const expr::Node& leaf) {
  using expr::NodeKind;
  switch (leaf.kind()) {
    case NodeKind::kColumn: {
      if (leaf.type()->id() != arrow::Type::BOOL) return std::nullopt;
      ScalarQuery query = QueryOfKind(ScalarQuery::Kind::kEquals);
      query.values.push_back(std::make_shared<arrow::BooleanScalar>(true));
      return query;
    }
    case NodeKind::kCompare: {
      const auto& compare = leaf.As<expr::Compare>();
      if (LeafColumn(leaf) == nullptr) return std::nullopt;
      const auto& literal = compare.right().As<expr::Literal>();
      if (literal.is_null()) return std::nullopt;
      const auto& value = literal.value();
      switch (compare.op()) {
        case expr::CompareOp::kEqual: {
          ScalarQuery query = QueryOfKind(ScalarQuery::Kind::kEquals);
          query.values.push_back(value);
          return query;
        }
        case expr::CompareOp::kNotEqual:
          return std::nullopt;  // the planner asks for `=` under a NOT instead
        case expr::CompareOp::kLess:
          return RangeQuery(std::nullopt, ScalarBound{value, false});
        case expr::CompareOp::kLessEqual:
          return RangeQuery(std::nullopt, ScalarBound{value, true});
        case expr::CompareOp::kGreater:
          return RangeQuery(ScalarBound{value, false}, std::nullopt);
        case expr::CompareOp::kGreaterEqual:
          return RangeQuery(ScalarBound{value, true}, std::nullopt);
      }
      return std::nullopt;
    }
    case NodeKind::kInList: {
      ScalarQuery query = QueryOfKind(ScalarQuery::Kind::kIn);
      query.values = leaf.As<expr::InList>().values();
      return query;
    }
    case NodeKind::kBetween: {
      const auto& between = leaf.As<expr::Between>();
      return RangeQuery(ScalarBound{between.lower(), true}, ScalarBound{between.upper(), true});
    }
    case NodeKind::kIsNull:
      return QueryOfKind(ScalarQuery::Kind::kIsNull);
    default:
      return std::nullopt;
  }
}

}  // namespace tessera::index
