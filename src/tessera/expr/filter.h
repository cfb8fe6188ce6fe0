// Filter: a parsed, type-checked predicate over the columns of a schema, in a SQL-like
// language (docs/filters.md):
//
//   price > 10 AND category IN ('a', 'b') AND NOT (name LIKE 'tmp%' OR deleted)
//   ts >= TIMESTAMP '2024-01-01 00:00:00' AND array_has_any(tags, ['red', 'blue'])
//
// Parse() does all the checking (syntax, names, types) up front, so a Filter that exists can
// be evaluated on any batch with the schema's columns. A Filter is immutable and safe to share
// between threads.
#pragma once

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/expr/ast.h"

namespace tessera::expr {

class Filter {
 public:
  // Parses and type-checks `text` against `schema`. Errors (every message names the 1-based
  // character position in `text`):
  // - InvalidArgument: syntax errors (saying what was expected), unknown columns (suggesting
  //   the closest name), type mismatches (naming both types), misused operators;
  // - Ambiguous: the schema has several top-level fields of a name the filter uses;
  // - Unsupported: a comparison on a column type filters do not handle (decimal, struct...).
  static arrow::Result<std::shared_ptr<const Filter>> Parse(
      std::string_view text, const std::shared_ptr<arrow::Schema>& schema);

  // The text as given to Parse().
  const std::string& text() const { return text_; }
  // The schema the filter was bound against.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  // Normalized rendering of the bound expression (for explain / debugging); it parses back to
  // the same tree against the same schema.
  std::string ToString() const { return root_->ToString(); }
  // Top-level column names the predicate reads, deduplicated, in first-use order. Columns that
  // binding folded away (`x = NULL` reads nothing) are not listed.
  const std::vector<std::string>& referenced_columns() const { return referenced_columns_; }
  // The typed AST (ast.h), for planners that map predicates onto indexes.
  const Node& root() const { return *root_; }
  // The top-level AND terms (the root alone when it is no AND) that can fail on data
  // (expr::CanFail), in written order, and the others; both empty when nothing can fail.
  const std::vector<NodePtr>& failing_terms() const { return failing_terms_; }
  const std::vector<NodePtr>& safe_terms() const { return safe_terms_; }
  const NodePtr& root_ptr() const { return root_; }

  // One boolean per row of `batch`, null where the predicate is unknown (SQL three-valued
  // logic). The batch must hold every referenced column, looked up BY NAME with the type it
  // has in schema(); it may hold other columns, in any order. Every term is evaluated on every
  // row (only CASE branches are selective), so a filter that can fail on data may fail here
  // where Select, which read paths use, does not.
  arrow::Result<std::shared_ptr<arrow::BooleanArray>> Evaluate(
      const arrow::RecordBatch& batch) const;
  // The rows a WHERE clause keeps: Evaluate() with unknown turned into false, and no nulls.
  // `live` (optional, no nulls) marks the rows that exist; others are never kept.
  //
  // Terms of the top-level AND that can fail on data (CanFail: integer overflow, CAST, modulo
  // by zero) are evaluated last and only on the live rows every other term keeps, in the
  // order written. Every read path, with or without indexes, evaluates them on exactly those
  // rows, so whether a filter fails never depends on the plan. Evaluation errors name the
  // filter text, the failing expression and its position.
  arrow::Result<std::shared_ptr<arrow::BooleanArray>> Select(
      const arrow::RecordBatch& batch, const arrow::BooleanArray* live = nullptr) const;

  Filter(std::string text, std::shared_ptr<arrow::Schema> schema, NodePtr root);

 private:
  arrow::Result<std::shared_ptr<arrow::BooleanArray>> SelectUndescribed(
      const arrow::RecordBatch& batch, const arrow::BooleanArray* live) const;
  arrow::Result<std::shared_ptr<arrow::BooleanArray>> Described(
      arrow::Result<std::shared_ptr<arrow::BooleanArray>> result) const;

  std::string text_;
  std::shared_ptr<arrow::Schema> schema_;
  NodePtr root_;
  std::vector<std::string> referenced_columns_;
  std::vector<NodePtr> safe_terms_;
  std::vector<NodePtr> failing_terms_;
};

}  // namespace tessera::expr
