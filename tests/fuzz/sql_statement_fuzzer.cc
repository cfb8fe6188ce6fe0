// Fuzz target: SQL scripts (sql/parser.h, docs/sql.md). The input is parsed; its statements
// that only read — SELECT, EXPLAIN SELECT, SHOW, DESCRIBE — are executed against a catalog
// whose one table, db.t, is the template dataset (every column type, every index family), so
// that name resolution, binding, planning onto Acero and execution meet arbitrary statements.
// Statements that write, and table functions that read files (read_parquet, read_arrow), are
// not executed: they would change the template or read whatever path the input names.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "tessera/sql/parser.h"
#include "tessera/sql/session.h"

namespace {

using namespace tessera;

bool OnlyReads(const sql::Statement& statement) {
  if (statement.text.find("read_") != std::string::npos) return false;
  const auto& body = statement.body;
  if (const auto* explain = std::get_if<std::unique_ptr<sql::ExplainStatement>>(&body)) {
    return std::holds_alternative<sql::SelectStatement>((*explain)->statement.body);
  }
  return std::holds_alternative<sql::SelectStatement>(body) ||
         std::holds_alternative<sql::ShowIndexStatement>(body) ||
         std::holds_alternative<sql::ShowTablesStatement>(body) ||
         std::holds_alternative<sql::ShowDatabasesStatement>(body) ||
         std::holds_alternative<sql::ShowVersionsStatement>(body) ||
         std::holds_alternative<sql::DescribeStatement>(body) ||
         std::holds_alternative<sql::UseStatement>(body);
}

sql::Session& TheSession() {
  static sql::Session* session = [] {
    const auto root = fuzz::ScratchRoot() / "catalog";
    std::filesystem::create_directories(root / "db");
    std::filesystem::create_directory_symlink(fuzz::Template().root, root / "db" / "t");
    return new sql::Session(sql::Catalog::Open(root.string()).ValueOrDie());
  }();
  return *session;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const int status = fuzz::InitializeWithTemplate();
  TheSession();
  return status;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::BytesOf(data, size));
  auto statements = sql::ParseScript(text);
  if (!statements.ok()) return 0;
  int executed = 0;
  for (const auto& statement : *statements) {
    if (!OnlyReads(statement) || ++executed > 4) continue;
    fuzz::Ignore(TheSession().Execute(statement, text));
  }
  return 0;
}
