// Evaluates a typed AST (ast.h) over a RecordBatch with Arrow compute kernels.
//
// The answer is SQL's three-valued logic: one boolean per row, null where the predicate is
// unknown (a comparison with a null value); AND / OR are Kleene, NOT keeps unknown unknown,
// IS NULL is never unknown. Columns are found in the batch by name, so a batch may hold more
// columns than the filter reads, in any order.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>

#include "tessera/expr/ast.h"

namespace tessera::expr {

// Since Arrow 21 compute kernels register lazily: this registers them, once per process. The
// binder needs them too (constant folding, checks of regular expressions).
arrow::Status EnsureComputeInitialized();

// Errors: InvalidArgument when the batch lacks a column the predicate reads or holds it with
// another type than the one the filter was bound against.
arrow::Result<std::shared_ptr<arrow::BooleanArray>> EvaluatePredicate(
    const Node& root, const arrow::RecordBatch& batch);

// Any value expression, as an array of the batch's length (scalars broadcast). Errors: as
// EvaluatePredicate, and InvalidArgument naming the expression and its position when it fails
// on the data (integer overflow, a CAST that does not convert, modulo by zero).
arrow::Result<std::shared_ptr<arrow::Array>> EvaluateValue(const Node& node,
                                                           const arrow::RecordBatch& batch);

// Unknown → false: the rows a WHERE clause keeps. The result has no nulls.
arrow::Result<std::shared_ptr<arrow::BooleanArray>> SelectRows(
    const std::shared_ptr<arrow::BooleanArray>& truth);

}  // namespace tessera::expr
