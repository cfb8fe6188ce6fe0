// What the executors of the statements share (session.cc dispatches to them): the catalog, the
// session's current database and the script text that statement positions point into.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string>
#include <string_view>

#include "tessera/expr/diagnostics.h"
#include "tessera/query/snapshot.h"
#include "tessera/sql/catalog.h"
#include "tessera/sql/mutation.h"
#include "tessera/sql/session.h"
#include "tessera/sql/statement.h"

namespace tessera::sql {

struct ExecutionContext {
  const Catalog& catalog;
  std::string& current_database;
  std::string_view script;

  expr::SourceText source() const {
    return expr::SourceText(script, expr::SourceText::Style::kStatement);
  }
  // "line L, column C: " of a position in the script.
  std::string At(int position) const { return expr::ErrorPrefix(source(), position); }

  MutationHooks* mutation = nullptr;       // null: no preflight, no admission (mutation.h)
  const Authorizer* authorizer = nullptr;  // null: everything is allowed
  const InformationSchema* information_schema = nullptr;  // null or empty: none
  // The statement's memory limit (util/memory_limit.h), what queries allocate and their
  // results are counted against; null: none.
  util::LimitedMemoryPool* memory_limit = nullptr;
  arrow::Status Authorize(Access access, const std::string& database,
                          const std::string& table = "") const {
    return authorizer == nullptr || !*authorizer ? arrow::Status::OK()
                                                 : (*authorizer)(access, database, table);
  }
  // Every mutation calls this right before its one mutating call with what that call writes.
  // True: stop here (a preflight; mutation->admission is set). An error: the admission does
  // not hold (kStale) or before_mutating_call refused.
  arrow::Result<bool> AtMutatingCall(MutationAdmission planned) const;
};

// Schema contract v1 (mutation.h) of `dataset`, with the indexed `field` when there is one.
std::string SchemaContract(const dataset::Dataset& dataset, const arrow::Field* field);

// The rows of information_schema.<table> when `name` names a table there and the context has
// an information schema; nullopt when it names no such table (then it is a table as any
// other). 1109 for a table the information schema lacks; time travel is refused.
arrow::Result<std::optional<std::shared_ptr<arrow::Table>>> InformationSchemaTable(
    const ExecutionContext& context, const ObjectName& name, const TimeTravel& time_travel);

// A table's version pinned for one statement: the latest, or the one `time_travel` names.
struct PinnedTable {
  TableLocation location;
  std::shared_ptr<const query::Snapshot> snapshot;
};
// The caller's authorizer is asked for `access` first.
arrow::Result<PinnedTable> PinTable(const ExecutionContext& context, const ObjectName& name,
                                    const TimeTravel& time_travel = {},
                                    Access access = Access::kSelect);

// syntax_tools.cc: 1305 for `call`, a function no one defines, suggesting the nearest names.
arrow::Status UnknownFunctionError(const expr::SyntaxNode& call, const ExecutionContext& context);

// catalog_statements.cc
arrow::Result<StatementResult> ExecuteShowDatabases(ExecutionContext& context);
arrow::Result<StatementResult> ExecuteShowTables(const ShowTablesStatement& statement,
                                                 ExecutionContext& context);
arrow::Result<StatementResult> ExecuteShowVersions(const ShowVersionsStatement& statement,
                                                   ExecutionContext& context);
arrow::Result<StatementResult> ExecuteDescribe(const DescribeStatement& statement,
                                               ExecutionContext& context);
arrow::Result<StatementResult> ExecuteUse(const UseStatement& statement, ExecutionContext& context);
arrow::Result<StatementResult> ExecuteCreateDatabase(const CreateDatabaseStatement& statement,
                                                     ExecutionContext& context);
arrow::Result<StatementResult> ExecuteDropDatabase(const DropDatabaseStatement& statement,
                                                   ExecutionContext& context);
arrow::Result<StatementResult> ExecuteDropTable(const DropTableStatement& statement,
                                                ExecutionContext& context);

// index_statements.cc
arrow::Result<StatementResult> ExecuteCreateIndex(const CreateIndexStatement& statement,
                                                  ExecutionContext& context);
arrow::Result<StatementResult> ExecuteDropIndex(const DropIndexStatement& statement,
                                                ExecutionContext& context);
arrow::Result<StatementResult> ExecuteShowIndex(const ShowIndexStatement& statement,
                                                ExecutionContext& context);

// data_statements.cc
arrow::Result<StatementResult> ExecuteSelect(const SelectStatement& statement,
                                             ExecutionContext& context);
arrow::Result<StatementResult> ExecuteCreateTableAs(const CreateTableAsStatement& statement,
                                                    ExecutionContext& context);
arrow::Result<StatementResult> ExecuteInsert(const InsertStatement& statement,
                                             ExecutionContext& context);
arrow::Result<StatementResult> ExecuteDelete(const DeleteStatement& statement,
                                             ExecutionContext& context);
arrow::Result<StatementResult> ExecuteExplain(const ExplainStatement& statement,
                                              ExecutionContext& context);

// A one-column-per-entry table of strings, for SHOW statements.
std::shared_ptr<arrow::Table> StringTable(const std::vector<std::string>& columns,
                                          const std::vector<std::vector<std::string>>& rows);

}  // namespace tessera::sql
