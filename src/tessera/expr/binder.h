// The binder: syntax tree + schema → typed AST (ast.h).
//
// It resolves column names (suggesting the closest name on a miss), checks that every operator
// fits the types it is applied to, resolves literals exactly against column types
// (literal.h), puts columns on the left of comparisons and folds predicates over literals
// alone. Every error names the position in the filter text, and for a type mismatch both
// types.
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string_view>

#include "tessera/expr/ast.h"
#include "tessera/expr/diagnostics.h"
#include "tessera/expr/syntax.h"

namespace tessera::expr {

// `text` is the filter text the tree was parsed from; it is used for error messages only.
// Errors: InvalidArgument (unknown column, type mismatch, misuse of an operator), Ambiguous
// (the schema has several fields of the name), Unsupported (a column type filters cannot
// compare yet).
arrow::Result<NodePtr> Bind(const SyntaxNode& tree, const std::shared_ptr<arrow::Schema>& schema,
                            const SourceText& text);

// A value expression of any type (SQL select lists, group keys): as Bind, without requiring a
// predicate. A literal alone takes its natural type (int64, double, string, ...).
arrow::Result<NodePtr> BindValue(const SyntaxNode& tree,
                                 const std::shared_ptr<arrow::Schema>& schema,
                                 const SourceText& text);

}  // namespace tessera::expr
