#include "tessera/sql/session.h"

#include "tessera/expr/function_families.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/parser.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/overloaded.h"

namespace tessera::sql {

namespace {

using util::Overloaded;

arrow::Result<StatementResult> Dispatch(const Statement& statement, ExecutionContext& context) {
  return std::visit(
      Overloaded{
          [&](const SelectStatement& s) { return ExecuteSelect(s, context); },
          [&](const CreateIndexStatement& s) { return ExecuteCreateIndex(s, context); },
          [&](const DropIndexStatement& s) { return ExecuteDropIndex(s, context); },
          [&](const ShowIndexStatement& s) { return ExecuteShowIndex(s, context); },
          [&](const ShowDatabasesStatement&) { return ExecuteShowDatabases(context); },
          [&](const ShowTablesStatement& s) { return ExecuteShowTables(s, context); },
          [&](const ShowVersionsStatement& s) { return ExecuteShowVersions(s, context); },
          [&](const DescribeStatement& s) { return ExecuteDescribe(s, context); },
          [&](const UseStatement& s) { return ExecuteUse(s, context); },
          [&](const CreateDatabaseStatement& s) { return ExecuteCreateDatabase(s, context); },
          [&](const DropDatabaseStatement& s) { return ExecuteDropDatabase(s, context); },
          [&](const CreateTableAsStatement& s) { return ExecuteCreateTableAs(s, context); },
          [&](const DropTableStatement& s) { return ExecuteDropTable(s, context); },
          [&](const InsertStatement& s) { return ExecuteInsert(s, context); },
          [&](const DeleteStatement& s) { return ExecuteDelete(s, context); },
          [&](const std::unique_ptr<ExplainStatement>& s) { return ExecuteExplain(*s, context); },
      },
      statement.body);
}

}  // namespace

arrow::Result<bool> ExecutionContext::AtMutatingCall(MutationAdmission planned) const {
  if (mutation == nullptr) return false;
  if (mutation->preflight) {
    mutation->admission = std::move(planned);
    return true;
  }
  if (mutation->admission) {
    const MutationAdmission& admitted = *mutation->admission;
    if (admitted.table_uri != planned.table_uri || admitted.contract != planned.contract) {
      return Error(ErrorKind::kStale, "StaleAdmission: the table ", planned.table_uri,
                   " at version ", planned.version, " is not what the statement was admitted for (",
                   admitted.contract, " then, ", planned.contract,
                   " now); nothing was done, run the statement again");
    }
  }
  if (mutation->before_mutating_call) RETURN_NOT_OK(mutation->before_mutating_call());
  return false;
}

std::string SchemaContract(const dataset::Dataset& dataset, const arrow::Field* field) {
  std::string contract = "v1;dataset=" + dataset.manifest().dataset_uuid();
  if (field != nullptr) {
    contract += ";field=" + field->name() + ":" + field->type()->ToString() + ":" +
                (field->nullable() ? "null" : "not null");
  }
  return contract;
}

Session::~Session() { util::LimitedMemoryPool::Retire(std::move(memory_limit_)); }

void Session::set_statement_memory_limit(int64_t bytes) {
  util::LimitedMemoryPool::Retire(std::move(memory_limit_));
  memory_limit_ = bytes > 0 ? std::make_unique<util::LimitedMemoryPool>(bytes) : nullptr;
}

arrow::Result<StatementResult> Session::Execute(const Statement& statement, std::string_view script,
                                                MutationHooks* mutation) {
  const expr::StatementClock clock;  // now() is one instant throughout the statement
  ExecutionContext context{catalog_, current_database_, script,
                           mutation, &authorizer_,      &information_schema_};
  if (memory_limit_ != nullptr) {
    memory_limit_->BeginStatement();
    context.memory_limit = memory_limit_.get();
  }
  auto result = util::GuardExceptions("executing a SQL statement",
                                      [&] { return Dispatch(statement, context); });
  if (!result.ok() && memory_limit_ != nullptr && memory_limit_->exceeded()) {
    // Whatever the failure looks like by the time it gets here (Acero may have wrapped it).
    return SqlError(SqlCode::kOutOfResources, ErrorKind::kResourceExhausted,
                    "the statement needed more memory than its limit of ", memory_limit_->limit(),
                    " bytes (for its query operators and its result); narrow it with a filter, "
                    "fewer columns or a LIMIT, or raise the limit");
  }
  if (!result.ok()) return WithCode(result.status(), CodeOf(result.status()));
  return result;
}

arrow::Status Session::ExecuteScript(std::string_view script, const ResultCallback& on_result) {
  ARROW_ASSIGN_OR_RAISE(auto statements, ParseScript(script));
  for (const auto& statement : statements) {
    ARROW_ASSIGN_OR_RAISE(auto result, Execute(statement, script));
    RETURN_NOT_OK(on_result(statement, result));
  }
  return arrow::Status::OK();
}

arrow::Result<StatementResult> Session::ExecuteAll(std::string_view script) {
  StatementResult last;
  RETURN_NOT_OK(ExecuteScript(script, [&](const Statement&, const StatementResult& result) {
    last = result;
    return arrow::Status::OK();
  }));
  return last;
}

}  // namespace tessera::sql
