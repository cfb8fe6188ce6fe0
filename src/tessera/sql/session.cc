#include "tessera/sql/session.h"

#include "tessera/expr/function_families.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/parser.h"
#include "tessera/util/exception_guard.h"

namespace tessera::sql {

namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

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

arrow::Result<StatementResult> Session::Execute(const Statement& statement,
                                                std::string_view script) {
  const expr::StatementClock clock;  // now() is one instant throughout the statement
  ExecutionContext context{catalog_, current_database_, script};
  auto result = util::GuardExceptions("executing a SQL statement",
                                      [&] { return Dispatch(statement, context); });
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
