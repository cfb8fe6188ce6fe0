// array_has_any / array_has_all over a list column: the one predicate Arrow has no kernel for.
//
// Cost is O(total list elements + rows): the elements of all rows are looked up in the literal
// set at once (Arrow's hash-based index_in), then one pass over the list offsets decides each
// row. A null list gives null; null elements never match; with no literals, any is false and
// all is true (for non-null lists).
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>

#include <memory>

#include "tessera/expr/ast.h"

namespace tessera::expr {

// `lists` is a list or large_list array; `values` (distinct, non-null) is an array of its
// element type.
arrow::Result<std::shared_ptr<arrow::BooleanArray>> MatchListElements(
    const arrow::Array& lists, ArrayMatch match, const std::shared_ptr<arrow::Array>& values);

}  // namespace tessera::expr
