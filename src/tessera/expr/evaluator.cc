#include "tessera/expr/evaluator.h"

#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/compute/initialize.h>
#include <arrow/util/float16.h>

#include "tessera/expr/compare_values.h"
#include "tessera/expr/function_families.h"
#include "tessera/expr/functions.h"
#include "tessera/expr/like_pattern.h"
#include "tessera/expr/list_match.h"
#include "tessera/expr/types.h"
#include "tessera/status.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;

// Lists read from Parquet name their element "element", Arrow's own "item": same data.
bool SameType(const arrow::DataType& a, const arrow::DataType& b) {
  if (a.id() != b.id()) return false;
  if (a.id() == arrow::Type::LIST || a.id() == arrow::Type::LARGE_LIST ||
      a.id() == arrow::Type::FIXED_SIZE_LIST) {
    const auto& left = static_cast<const arrow::BaseListType&>(a);
    const auto& right = static_cast<const arrow::BaseListType&>(b);
    if (a.id() == arrow::Type::FIXED_SIZE_LIST &&
        static_cast<const arrow::FixedSizeListType&>(a).list_size() !=
            static_cast<const arrow::FixedSizeListType&>(b).list_size()) {
      return false;
    }
    return SameType(*left.value_type(), *right.value_type());
  }
  return a.Equals(b);
}

// Arrow has no comparison kernels for float16: widen scalar literals exactly to float32.
std::shared_ptr<arrow::Scalar> KernelScalar(const std::shared_ptr<arrow::Scalar>& scalar) {
  if (scalar->type->id() != arrow::Type::HALF_FLOAT) return scalar;
  const auto bits = static_cast<const arrow::HalfFloatScalar&>(*scalar).value;
  return std::make_shared<arrow::FloatScalar>(arrow::util::Float16::FromBits(bits).ToFloat());
}

arrow::Result<std::shared_ptr<arrow::Array>> CastTo(const std::shared_ptr<arrow::Array>& array,
                                                    const std::shared_ptr<arrow::DataType>& type) {
  if (array->type()->Equals(*type)) return array;
  return compute::Cast(*array, type);
}

arrow::Result<std::shared_ptr<arrow::Array>> ValueSet(
    const std::shared_ptr<arrow::DataType>& type,
    const std::vector<std::shared_ptr<arrow::Scalar>>& values, bool with_null) {
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  RETURN_NOT_OK(builder->AppendScalars(values));
  if (with_null) RETURN_NOT_OK(builder->AppendNull());
  return builder->Finish();
}

class Evaluator {
 public:
  explicit Evaluator(const arrow::RecordBatch& batch) : batch_(batch) {}

  arrow::Result<arrow::Datum> Eval(const Node& node) {
    switch (node.kind()) {
      case NodeKind::kLiteral:
        return arrow::Datum(node.As<Literal>().value());
      case NodeKind::kColumn: {
        ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(node.As<Column>()));
        return arrow::Datum(std::move(array));
      }
      case NodeKind::kCompare:
        return EvalCompare(node.As<Compare>());
      case NodeKind::kInList:
        return EvalInList(node.As<InList>());
      case NodeKind::kBetween: {
        const auto& between = node.As<Between>();
        ARROW_ASSIGN_OR_RAISE(auto array, KernelColumn(between.column()));
        ARROW_ASSIGN_OR_RAISE(
            auto low,
            compute::CallFunction("greater_equal", {array, KernelScalar(between.lower())}));
        ARROW_ASSIGN_OR_RAISE(
            auto high, compute::CallFunction("less_equal", {array, KernelScalar(between.upper())}));
        return compute::CallFunction("and_kleene", {low, high});
      }
      case NodeKind::kIsNull: {
        ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(node.As<IsNull>().column()));
        return compute::CallFunction("is_null", {array});
      }
      case NodeKind::kLike: {
        const auto& like = node.As<Like>();
        ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(like.column()));
        if (const Column* pattern_column = like.pattern_column()) {
          ARROW_ASSIGN_OR_RAISE(auto patterns, ColumnOf(*pattern_column));
          return MatchLikeRows(array, patterns, pattern_column->name(), like.escape(),
                               like.case_insensitive());
        }
        ARROW_ASSIGN_OR_RAISE(
            auto matcher, TranslateLike(like.pattern(), like.escape(), like.case_insensitive()));
        return MatchLike(array, matcher);
      }
      case NodeKind::kArrayHas: {
        const auto& has = node.As<ArrayHas>();
        ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(has.column()));
        ARROW_ASSIGN_OR_RAISE(auto values, ValueSet(ListElementType(*has.column().type()),
                                                    has.values(), /*with_null=*/false));
        ARROW_ASSIGN_OR_RAISE(auto result, MatchListElements(*array, has.match(), values));
        return arrow::Datum(std::move(result));
      }
      case NodeKind::kAnd:
        return Fold(node.As<And>().children(), "and_kleene");
      case NodeKind::kOr:
        return Fold(node.As<Or>().children(), "or_kleene");
      case NodeKind::kNot: {
        ARROW_ASSIGN_OR_RAISE(auto child, Eval(node.As<Not>().child()));
        return compute::CallFunction("invert", {child});
      }
      case NodeKind::kCall:
        return EvalCall(node.As<Call>());
      case NodeKind::kCast: {
        const auto& cast = node.As<Cast>();
        ARROW_ASSIGN_OR_RAISE(auto operand, Eval(cast.operand()));
        return Positioned(cast, CastValues(operand, cast.type(), cast.try_cast(), length()));
      }
      case NodeKind::kCase:
        return EvalCase(node.As<Case>());
    }
    return MakeError(ErrorKind::kInternal, "unknown filter node kind");
  }

 private:
  arrow::Result<std::shared_ptr<arrow::Array>> ColumnOf(const Column& column) {
    const std::vector<int> indices = batch_.schema()->GetAllFieldIndices(column.name());
    if (indices.empty()) {
      return InvalidArgument("the batch has no column '", column.name(),
                             "', which the filter reads; include it in the scanned columns");
    }
    if (indices.size() > 1) {
      return Error(ErrorKind::kAmbiguous, "the batch has ", indices.size(), " columns named '",
                   column.name(), "'; the filter cannot tell which one to read");
    }
    auto array = batch_.column(indices[0]);
    if (!SameType(*array->type(), *column.type())) {
      return InvalidArgument("column '", column.name(), "' is ", array->type()->ToString(),
                             " in the batch, but the filter was bound to a schema where it is ",
                             column.type()->ToString(), "; parse the filter against this schema");
    }
    return array;
  }

  arrow::Result<std::shared_ptr<arrow::Array>> KernelColumn(const Column& column) {
    ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(column));
    return CastTo(array, KernelType(array->type()));
  }

  int64_t length() const { return batch_.num_rows(); }

  arrow::Result<arrow::Datum> EvalCompare(const Compare& compare) {
    if (compare.left().kind() == NodeKind::kColumn &&
        compare.right().kind() == NodeKind::kLiteral) {
      // The literal has the column's type (ast.h): one kernel call.
      ARROW_ASSIGN_OR_RAISE(auto array, KernelColumn(compare.left().As<Column>()));
      return compute::CallFunction(ComparisonKernel(compare.op()),
                                   {array, KernelScalar(compare.right().As<Literal>().value())});
    }
    ARROW_ASSIGN_OR_RAISE(auto left, Eval(compare.left()));
    ARROW_ASSIGN_OR_RAISE(auto right, Eval(compare.right()));
    return CompareValues(compare.op(), left, right, length());
  }

  // An evaluation failure of `node` on the data, named with the expression and its position.
  static arrow::Result<arrow::Datum> Positioned(const Node& node,
                                                arrow::Result<arrow::Datum> result) {
    if (result.ok()) return result;
    return InvalidArgument(node.ToString(), " at character ", node.position(),
                           " failed on a row: ", result.status().message());
  }

  arrow::Result<arrow::Datum> EvalCall(const Call& call) {
    std::vector<arrow::Datum> arguments;
    for (const auto& argument : call.arguments()) {
      ARROW_ASSIGN_OR_RAISE(auto value, Eval(*argument));
      arguments.push_back(std::move(value));
    }
    ARROW_ASSIGN_OR_RAISE(
        auto result, Positioned(call, call.function().evaluate(arguments, call.type(), length())));
    // A function may return a constant (nan(), now()) of a type other than its signature's;
    // it is cast to it, except an INTERVAL, whose unit is the coarsest that holds its value
    // so that adding it keeps a timestamp's precision.
    if (result.is_scalar() && !result.type()->Equals(*call.type()) &&
        call.type()->id() != arrow::Type::DURATION) {
      ARROW_ASSIGN_OR_RAISE(result, compute::Cast(result, call.type()));
    }
    return result;
  }

  // The rows of the batch where `mask` (no nulls) is true.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> RowsWhere(const arrow::Datum& mask) {
    auto whole = arrow::RecordBatch::Make(batch_.schema(), batch_.num_rows(), batch_.columns());
    ARROW_ASSIGN_OR_RAISE(auto kept, compute::Filter(arrow::Datum(whole), mask));
    return kept.record_batch();
  }

  // `value` on the rows where `mask` is true, written into `result` there. A value that can
  // fail is evaluated on those rows only: CASE WHEN x = 0 THEN 0 ELSE 100 % x END never
  // divides by a zero it does not return.
  arrow::Result<arrow::Datum> Place(const Node& value, const arrow::Datum& mask,
                                    const arrow::Datum& result) {
    if (!CanFail(value)) {
      ARROW_ASSIGN_OR_RAISE(auto full, Eval(value));
      return compute::IfElse(mask, full, result);
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, RowsWhere(mask));
    ARROW_ASSIGN_OR_RAISE(auto values, Evaluator(*rows).Eval(value));
    ARROW_ASSIGN_OR_RAISE(auto array, DatumToArray(values, rows->num_rows()));
    return compute::ReplaceWithMask(result, mask, array);
  }

  arrow::Result<arrow::Datum> EvalCase(const Case& expression) {
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(expression.type(), length()));
    arrow::Datum result(nulls);
    ARROW_ASSIGN_OR_RAISE(auto all,
                          arrow::MakeArrayFromScalar(arrow::BooleanScalar(true), length()));
    arrow::Datum remaining(all);
    for (const auto& branch : expression.branches()) {
      ARROW_ASSIGN_OR_RAISE(auto condition, Eval(*branch.when));
      ARROW_ASSIGN_OR_RAISE(auto chosen,
                            compute::CallFunction("coalesce", {condition, arrow::Datum(false)}));
      ARROW_ASSIGN_OR_RAISE(auto take, compute::CallFunction("and", {remaining, chosen}));
      ARROW_ASSIGN_OR_RAISE(take, DatumToArray(take, length()));
      ARROW_ASSIGN_OR_RAISE(result, Place(*branch.then, take, result));
      ARROW_ASSIGN_OR_RAISE(remaining, compute::CallFunction("and_not", {remaining, take}));
    }
    return Place(expression.otherwise(), remaining, result);
  }

  arrow::Result<arrow::Datum> EvalInList(const InList& in) {
    ARROW_ASSIGN_OR_RAISE(auto array, ColumnOf(in.column()));
    ARROW_ASSIGN_OR_RAISE(auto values, ValueSet(array->type(), in.values(), in.has_null()));
    const auto kernel_type = KernelType(array->type());
    ARROW_ASSIGN_OR_RAISE(array, CastTo(array, kernel_type));
    ARROW_ASSIGN_OR_RAISE(values, CastTo(values, kernel_type));
    if (arrow::is_floating(kernel_type->id())) {
      // IN is `= ANY`, but is_in hashes bits: -0.0 and 0.0 differ and NaN matches NaN. Adding
      // +0.0 turns -0.0 into 0.0 on both sides; NaN values are dropped, since = matches none.
      const auto zero = arrow::MakeScalar(kernel_type, 0.0);
      if (!zero.ok()) return zero.status();
      ARROW_ASSIGN_OR_RAISE(auto column, compute::CallFunction("add", {array, *zero}));
      array = column.make_array();
      ARROW_ASSIGN_OR_RAISE(auto normalized, compute::CallFunction("add", {values, *zero}));
      ARROW_ASSIGN_OR_RAISE(auto is_nan, compute::CallFunction("is_nan", {normalized}));
      ARROW_ASSIGN_OR_RAISE(auto keep, compute::CallFunction("invert", {is_nan}));
      // The list's NULL (null in, null out) stays: it makes unmatched rows unknown.
      ARROW_ASSIGN_OR_RAISE(
          auto kept, compute::Filter(normalized, keep,
                                     compute::FilterOptions(compute::FilterOptions::EMIT_NULL)));
      values = kept.make_array();
    }
    // INCONCLUSIVE is SQL's IN: a null row is unknown, and so is an unmatched row when the
    // list holds NULL.
    compute::SetLookupOptions options(values, compute::SetLookupOptions::INCONCLUSIVE);
    return compute::CallFunction("is_in", {array}, &options);
  }

  arrow::Result<arrow::Datum> Fold(const std::vector<NodePtr>& children, const char* kernel) {
    ARROW_ASSIGN_OR_RAISE(auto result, Eval(*children[0]));
    for (size_t i = 1; i < children.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto next, Eval(*children[i]));
      ARROW_ASSIGN_OR_RAISE(result, compute::CallFunction(kernel, {result, next}));
    }
    return result;
  }

  const arrow::RecordBatch& batch_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::BooleanArray>> EvaluatePredicate(
    const Node& root, const arrow::RecordBatch& batch) {
  RETURN_NOT_OK(EnsureComputeInitialized());
  if (root.type()->id() != arrow::Type::BOOL) {
    return InvalidArgument("the filter's root is not a predicate but a ", root.type()->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto array, EvaluateValue(root, batch));
  if (array->type_id() != arrow::Type::BOOL || array->length() != batch.num_rows()) {
    return Error(ErrorKind::kInternal, "filter evaluation produced ", array->type()->ToString(),
                 " of length ", array->length(), " for ", batch.num_rows(), " rows");
  }
  return std::static_pointer_cast<arrow::BooleanArray>(std::move(array));
}

arrow::Status EnsureComputeInitialized() {
  static const arrow::Status status = compute::Initialize();
  return status;
}

arrow::Result<std::shared_ptr<arrow::Array>> EvaluateValue(const Node& node,
                                                           const arrow::RecordBatch& batch) {
  RETURN_NOT_OK(EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(auto result, Evaluator(batch).Eval(node));
  if (result.is_array()) return result.make_array();
  return arrow::MakeArrayFromScalar(*result.scalar(), batch.num_rows());
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> SelectRows(
    const std::shared_ptr<arrow::BooleanArray>& truth) {
  if (truth->null_count() == 0) return truth;
  RETURN_NOT_OK(EnsureComputeInitialized());
  // Kleene: unknown AND false is false, so rows that are unknown become false, not null.
  ARROW_ASSIGN_OR_RAISE(auto valid, compute::CallFunction("is_valid", {truth}));
  ARROW_ASSIGN_OR_RAISE(auto selected, compute::CallFunction("and_kleene", {truth, valid}));
  return std::static_pointer_cast<arrow::BooleanArray>(selected.make_array());
}

}  // namespace tessera::expr
