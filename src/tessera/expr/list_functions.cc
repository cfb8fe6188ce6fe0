// List functions of the expression language, over list / large_list columns of integers or
// strings: array_contains (list_contains), x = ANY(list) and array_length (cardinality).
// array_has_any / array_has_all, which index planners know, are AST nodes of their own
// (ast.h: ArrayHas).
#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include "tessera/expr/compare_values.h"
#include "tessera/expr/function_families.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;
using arrow::Datum;
using TypePtr = std::shared_ptr<arrow::DataType>;
using Arguments = std::vector<Datum>;
using Style = FunctionSpec::Style;

bool IsList(const arrow::DataType& type) {
  return type.id() == arrow::Type::LIST || type.id() == arrow::Type::LARGE_LIST;
}

// (list, value) with the value brought to the element type.
arrow::Result<Signature> ResolveListAndValue(const TypeList& types, size_t list_at) {
  const auto& list = types[list_at];
  const auto& value = types[1 - list_at];
  if (!IsList(*list)) {
    return arrow::Status::TypeError("a list is needed, not ", list->ToString());
  }
  const auto& element = ListElementType(*list);
  if (value->id() != arrow::Type::NA && !ComparisonType(element, value).ok()) {
    return arrow::Status::TypeError("elements of ", list->ToString(), " cannot be compared with ",
                                    value->ToString());
  }
  TypeList arguments = types;
  if (value->id() == arrow::Type::NA) arguments[1 - list_at] = element;
  return Signature{arguments, arrow::boolean()};
}

// For each row: whether some element equals the value, and whether some element is null.
// `sql_any`: x = ANY(list) is unknown when nothing matched but a null element might have;
// array_contains ignores null elements. A null list or value gives null.
arrow::Result<Datum> Contains(const Datum& list_datum, const Datum& value_datum, int64_t length,
                              bool sql_any) {
  ARROW_ASSIGN_OR_RAISE(auto lists, DatumToArray(list_datum, length));
  ARROW_ASSIGN_OR_RAISE(auto values, DatumToArray(value_datum, length));
  ARROW_ASSIGN_OR_RAISE(auto elements, compute::CallFunction("list_flatten", {lists}));
  ARROW_ASSIGN_OR_RAISE(auto parents, compute::CallFunction("list_parent_indices", {lists}));
  ARROW_ASSIGN_OR_RAISE(auto repeated, compute::Take(values, parents));
  ARROW_ASSIGN_OR_RAISE(auto equal,
                        CompareValues(CompareOp::kEqual, elements, repeated, elements.length()));
  ARROW_ASSIGN_OR_RAISE(auto parent_datum, compute::Cast(parents, arrow::int64()));
  const auto parent_array = parent_datum.make_array();
  const auto& parent = static_cast<const arrow::Int64Array&>(*parent_array);
  ARROW_ASSIGN_OR_RAISE(auto equal_array, DatumToArray(equal, elements.length()));
  const auto& matched = static_cast<const arrow::BooleanArray&>(*equal_array);
  ARROW_ASSIGN_OR_RAISE(auto element_array, DatumToArray(elements, elements.length()));
  std::vector<uint8_t> found(static_cast<size_t>(length), 0);
  std::vector<uint8_t> null_element(static_cast<size_t>(length), 0);
  for (int64_t i = 0; i < matched.length(); ++i) {
    const auto row = static_cast<size_t>(parent.Value(i));
    if (element_array->IsNull(i)) {
      null_element[row] = 1;
    } else if (matched.IsValid(i) && matched.Value(i)) {
      found[row] = 1;
    }
  }
  arrow::BooleanBuilder builder;
  RETURN_NOT_OK(builder.Reserve(length));
  for (int64_t row = 0; row < length; ++row) {
    const auto at = static_cast<size_t>(row);
    if (lists->IsNull(row) || values->IsNull(row)) {
      builder.UnsafeAppendNull();
    } else if (found[at]) {
      builder.UnsafeAppend(true);
    } else if (sql_any && null_element[at]) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(false);
    }
  }
  return Datum(*builder.Finish());
}

arrow::Result<Signature> ResolveContains(const TypeList& types) {
  return ResolveListAndValue(types, 0);
}

arrow::Result<Datum> EvaluateContains(const Arguments& arguments, const TypePtr&, int64_t length) {
  return Contains(arguments[0], arguments[1], length, /*sql_any=*/false);
}

arrow::Result<Signature> ResolveListAny(const TypeList& types) {
  return ResolveListAndValue(types, 1);
}

arrow::Result<Datum> EvaluateAny(const Arguments& arguments, const TypePtr&, int64_t length) {
  return Contains(arguments[1], arguments[0], length, /*sql_any=*/true);
}

arrow::Result<Signature> ResolveListLength(const TypeList& types) {
  if (!IsList(*types[0])) {
    return arrow::Status::TypeError("a list is needed, not ", types[0]->ToString());
  }
  return Signature{types, arrow::int64()};
}

arrow::Result<Datum> EvaluateListLength(const Arguments& arguments, const TypePtr& result,
                                        int64_t) {
  ARROW_ASSIGN_OR_RAISE(auto lengths, compute::CallFunction("list_value_length", {arguments[0]}));
  return compute::Cast(lengths, result);
}

}  // namespace

const std::vector<FunctionSpec>& ListFunctionSpecs() {
  static const std::vector<FunctionSpec> specs = {
      {"array_contains", "array_contains", Style::kFunction, 2, 2, false, 0,
       "array_contains(list, value)", ResolveContains, EvaluateContains},
      {"= any", "= ANY", Style::kAny, 2, 2, false, 0, "value = ANY(list)", ResolveListAny,
       EvaluateAny},
      {"array_length", "array_length", Style::kFunction, 1, 1, false, 0, "array_length(list)",
       ResolveListLength, EvaluateListLength},
  };
  return specs;
}

}  // namespace tessera::expr
