// Table functions of FROM (docs/sql.md, "Table functions"):
//
//   read_parquet('file.parquet')      the rows of a Parquet file, streamed
//   read_arrow('file.arrow')          the rows of an Arrow IPC file
//   tessera_index_entries("table" = "db.tbl" [, "version" = n])
//                                     one row per physical index segment
//   vector_search, full_text_search, hybrid_search, knn_join (search_functions.cc)
//                                     searches and the k-nearest-neighbour join
//
// Arguments are `name => value` or `"name" = value` (or positional, in the order above); values
// are constant expressions. Every argument is checked: unknown, missing and repeated ones are
// errors naming the function's arguments.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>
#include <string>

#include "tessera/sql/execution.h"
#include "tessera/sql/statement.h"

namespace tessera::sql {

struct FunctionRows {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  std::string description;  // for EXPLAIN: "read_parquet 'x.parquet'"
};

arrow::Result<FunctionRows> OpenTableFunction(const TableRef& call,
                                              const ExecutionContext& context);

// The value of a constant expression (no columns), e.g. a table function's argument.
arrow::Result<std::shared_ptr<arrow::Scalar>> EvaluateConstant(const expr::SyntaxNode& node,
                                                               const ExecutionContext& context);

}  // namespace tessera::sql
