// The Acero node that evaluates tessera expressions (expr/ast.h) inside a query plan: the
// projections, WHERE residuals and HAVING of SQL statements.
//
// Acero's own project and filter nodes take arrow::compute::Expression; tessera's expressions
// have SQL semantics of their own (exact literal comparison, checked arithmetic, MySQL-style
// LIKE, errors that point at the statement), which the expression layer evaluates with Arrow
// compute kernels. So the SQL surface plans with Acero's declarations and runs its
// expressions in this one node ("tessera_eval"), a MapNode: batch in, batch out, order kept.
//
// Per batch: rows failing `predicate` (unknown counts as failing) are dropped first, then
// every output is evaluated on the rows kept.
#pragma once

#include <arrow/acero/options.h>
#include <arrow/status.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/expr/ast.h"

namespace tessera::sql {

struct EvalOutput {
  std::string name;
  expr::NodePtr expression;
  // A group key, a DISTINCT column or a count(DISTINCT) argument: Acero hashes floats by their
  // bits, so -0.0 would be a value apart from 0.0; SQL holds them equal. Floating-point
  // values are then written with -0.0 as 0.0.
  bool hashed = false;
};

class EvalNodeOptions : public arrow::acero::ExecNodeOptions {
 public:
  static constexpr const char* kFactoryName = "tessera_eval";
  EvalNodeOptions(expr::NodePtr predicate, std::vector<EvalOutput> outputs)
      : predicate(std::move(predicate)), outputs(std::move(outputs)) {}

  expr::NodePtr predicate;  // null: keep every row
  std::vector<EvalOutput> outputs;
};

// Registers "tessera_eval" with Acero's default registry, once per process.
arrow::Status RegisterEvalNode();

}  // namespace tessera::sql
