// The SELECT planner: a statement → an Arrow Acero declaration (docs/design.md, "SQL").
//
// Names are resolved first, against the columns of every source in FROM (tables, subqueries,
// table functions, joined); each plan column gets a unique field name. WHERE is split into its
// AND terms, and each term over one table's columns (of an inner join side, or the preserved
// side of a LEFT JOIN) is handed to that table's scan — query::Read — as a filter, where the
// capability planner answers it through indexes. The rest of the statement becomes Acero
// nodes: hash joins, "tessera_eval" (eval_node.h) for expressions and residual predicates,
// aggregate (hash_* functions over group keys), order_by, project. OFFSET and LIMIT are applied
// while reading the result; a statement that only scans one table passes them to the scan.
//
// Subqueries in FROM are planned the same way and run to completion first (their rows are
// held in memory).
#pragma once

#include <arrow/acero/exec_plan.h>
#include <arrow/result.h>
#include <arrow/table.h>
#include <arrow/util/thread_pool.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/query/snapshot.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/statement.h"

namespace tessera::sql {

struct PlannedQuery {
  arrow::acero::Declaration declaration;
  std::vector<std::string> column_names;  // display names of the output, in order
  uint64_t offset = 0;
  std::optional<uint64_t> limit;
  std::vector<std::string> explain;  // the scans: tables, filters, index use
  // The versions the plan reads, kept alive (and pinned) while it runs.
  std::vector<std::shared_ptr<const query::Snapshot>> snapshots;
  // The threads that pull the plan's sources (query_planner.cc says why it has its own).
  std::shared_ptr<arrow::internal::ThreadPool> source_pool;
  // The statement's memory limit (ExecutionContext::memory_limit): the plan's pool, and
  // RunQuery charges the result to it. Null: none.
  util::LimitedMemoryPool* memory_limit = nullptr;
};

arrow::Result<PlannedQuery> PlanSelect(const SelectStatement& statement,
                                       const ExecutionContext& context);

// Starts the plan: its rows as a stream, with OFFSET / LIMIT applied and the display names.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> StartQuery(PlannedQuery query);
// Runs the plan to completion (OutOfMemory, with the limit's exceeded() set, once the result
// and what the plan holds pass the statement's memory limit).
arrow::Result<std::shared_ptr<arrow::Table>> RunQuery(PlannedQuery query);

}  // namespace tessera::sql
