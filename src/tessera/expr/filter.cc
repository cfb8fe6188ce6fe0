#include "tessera/expr/filter.h"

#include <algorithm>

#include <arrow/array/util.h>
#include <arrow/compute/api.h>

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
    case NodeKind::kCall:
      for (const auto& argument : node.As<Call>().arguments()) CollectColumns(*argument, names);
      return;
    case NodeKind::kCast:
      return CollectColumns(node.As<Cast>().operand(), names);
    case NodeKind::kCase:
      for (const auto& branch : node.As<Case>().branches()) {
        CollectColumns(*branch.when, names);
        CollectColumns(*branch.then, names);
      }
      return CollectColumns(node.As<Case>().otherwise(), names);
  }
}

}  // namespace

Filter::Filter(std::string text, std::shared_ptr<arrow::Schema> schema, NodePtr root)
    : text_(std::move(text)), schema_(std::move(schema)), root_(std::move(root)) {
  CollectColumns(*root_, &referenced_columns_);
  if (CanFail(*root_)) {
    const std::vector<NodePtr> terms =
        root_->kind() == NodeKind::kAnd ? root_->As<And>().children() : std::vector{root_};
    for (const auto& term : terms) (CanFail(*term) ? failing_terms_ : safe_terms_).push_back(term);
  }
}

arrow::Result<std::shared_ptr<const Filter>> Filter::Parse(
    std::string_view text, const std::shared_ptr<arrow::Schema>& schema) {
  if (schema == nullptr) return InvalidArgument("Filter::Parse needs a schema, got none");
  RETURN_NOT_OK(EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(auto tree, ParseSyntax(text));
  ARROW_ASSIGN_OR_RAISE(auto root, Bind(*tree, schema, text));
  return std::make_shared<const Filter>(std::string(text), schema, std::move(root));
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::Evaluate(
    const arrow::RecordBatch& batch) const {
  return Described(EvaluatePredicate(*root_, batch));
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::Described(
    arrow::Result<std::shared_ptr<arrow::BooleanArray>> result) const {
  if (result.ok()) return result;
  return result.status().WithMessage("filter \"", text_, "\": ", result.status().message());
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::Select(
    const arrow::RecordBatch& batch, const arrow::BooleanArray* live) const {
  return Described(SelectUndescribed(batch, live));
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> Filter::SelectUndescribed(
    const arrow::RecordBatch& batch, const arrow::BooleanArray* live) const {
  namespace compute = arrow::compute;
  auto keep_live = [&](std::shared_ptr<arrow::BooleanArray> selected)
      -> arrow::Result<std::shared_ptr<arrow::BooleanArray>> {
    if (live == nullptr) return selected;
    ARROW_ASSIGN_OR_RAISE(auto both, compute::And(selected, *live));
    return std::static_pointer_cast<arrow::BooleanArray>(both.make_array());
  };
  if (failing_terms_.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto truth, EvaluatePredicate(*root_, batch));
    ARROW_ASSIGN_OR_RAISE(auto selected, SelectRows(truth));
    return keep_live(std::move(selected));
  }
  // Terms that can fail on data run last, on the rows every other term keeps (and only live
  // ones), so that the rows an index excludes never decide whether the filter fails.
  ARROW_ASSIGN_OR_RAISE(auto all,
                        arrow::MakeArrayFromScalar(arrow::BooleanScalar(true), batch.num_rows()));
  auto kept = std::static_pointer_cast<arrow::BooleanArray>(all);
  ARROW_ASSIGN_OR_RAISE(kept, keep_live(std::move(kept)));
  for (const auto& term : safe_terms_) {
    ARROW_ASSIGN_OR_RAISE(auto truth, EvaluatePredicate(*term, batch));
    ARROW_ASSIGN_OR_RAISE(auto selected, SelectRows(truth));
    ARROW_ASSIGN_OR_RAISE(auto both, compute::And(kept, selected));
    kept = std::static_pointer_cast<arrow::BooleanArray>(both.make_array());
  }
  auto whole = arrow::RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns());
  for (const auto& term : failing_terms_) {
    ARROW_ASSIGN_OR_RAISE(auto rows, compute::Filter(arrow::Datum(whole), kept));
    ARROW_ASSIGN_OR_RAISE(auto truth, EvaluatePredicate(*term, *rows.record_batch()));
    ARROW_ASSIGN_OR_RAISE(auto selected, SelectRows(truth));
    ARROW_ASSIGN_OR_RAISE(auto replaced, compute::ReplaceWithMask(kept, kept, selected));
    kept = std::static_pointer_cast<arrow::BooleanArray>(replaced.make_array());
  }
  return kept;
}

}  // namespace tessera::expr
