#include "tessera/expr/filter.h"

#include <algorithm>

#include "tessera/expr/binder.h"
#include "tessera/expr/evaluator.h"
#include "tessera/expr/parser.h"
#include "tessera/status.h"

namespace tessera::expr {

namespace {

void CollectColumns(const Node& node, std::vector<std::string>* names) {
  auto add = [names](const Column& column) {
    if (std::find(names->begin(), names->end(), column.name()) == names->end()) {
      names->push_back(column.name());
    }
  };
  switch (node.kind()) {
    case NodeKind::kLiteral:
      return;
    case NodeKind::kColumn:
      return add(node.As<Column>());
    case NodeKind::kCompare:
      CollectColumns(node.As<Compare>().left(), names);
      return CollectColumns(node.As<Compare>().right(), names);
    case NodeKind::kInList:
      return add(node.As<InList>().column());
    case NodeKind::kBetween:
      return add(node.As<Between>().column());
    case NodeKind::kIsNull:
      return add(node.As<IsNull>().column());
    case NodeKind::kLike:
      add(node.As<Like>().column());
      if (const Column* pattern = node.As<Like>().pattern_column()) add(*pattern);
      return;
    case NodeKind::kArrayHas:
      return add(node.As<ArrayHas>().column());
    case NodeKind::kAnd:
      for (const auto& child : node.As<And>().children()) CollectColumns(*child, names);
      return;
    case NodeKind::kOr:
      for (const auto& child : node.As<Or>().children()) CollectColumns(*child, names);
      return;
    case NodeKind::kNot:
      return CollectColumns(node.As<Not>().child(), names);
  }
}

}  // namespace

Filter::Filter(std::string text, std::shared_ptr<arrow::Schema> schema, NodePtr root)
    : text_(std::move(text)), schema_(std::move(schema)), root_(std::move(root)) {
  CollectColumns(*root_, &referenced_columns_);
}

arrow::Result<std::shared_ptr<const Filter>> Filter::Parse(
    std::string_view text, const std::shared_ptr<arrow::Schema>& schema) {
  if (schema == nullptr) return InvalidArgument("Filter::Parse needs a schema, got none");
  ARROW_ASSIGN_OR_RAISE(auto tree, ParseSyntax(text));
  ARROW_ASSIGN_OR_RAISE(auto root, Bind(*tree, schema, text));
  return std::make_shared<const Filter>(std::string(text), schema, std::move(root));
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::Evaluate(
    const arrow::RecordBatch& batch) const {
  return EvaluatePredicate(*root_, batch);
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::Select(
    const arrow::RecordBatch& batch) const {
  ARROW_ASSIGN_OR_RAISE(auto truth, EvaluatePredicate(*root_, batch));
  return SelectRows(truth);
}

}  // namespace tessera::expr
