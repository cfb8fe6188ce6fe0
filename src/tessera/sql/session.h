// Session: executes SQL statements (docs/sql.md) against a catalog, one at a time, in one
// process. It holds what a MySQL session holds — the current database — and nothing of the
// data: every statement opens the versions it reads itself and pins them for its duration, so
// that all it reads comes from one snapshot per table.
//
// A statement either completes or changes nothing: each mutation is one commit of the layers
// below (an index build, an append, a delete), and a failed statement has committed none.
// Errors carry SQL codes (errors.h); positions point at the line and column of the script.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/sql/catalog.h"
#include "tessera/sql/statement.h"
#include "tessera/util/memory_limit.h"

namespace tessera::sql {

struct MutationHooks;  // mutation.h

// What a statement does with a table, for a caller's authorization (the server's privileges):
// read its rows (SELECT, search functions), read its metadata (SHOW INDEX, DESCRIBE, SHOW
// VERSIONS, tessera_index_entries), or change it (index DDL, INSERT, DELETE, CREATE TABLE AS,
// DROP TABLE; CREATE / DROP DATABASE with an empty table).
// kReadFile: read_parquet / read_arrow of a file (table: the path; database empty).
enum class Access { kSelect, kShow, kAlter, kReadFile };
using Authorizer = std::function<arrow::Status(Access access, const std::string& database,
                                               const std::string& table)>;

// The tables of `information_schema` an embedding program offers (the server: PROCESSLIST):
// the rows of `table` (lower case) as they are now, or NotFound when it has no such table.
// Without one, information_schema is an unknown database as any other.
using InformationSchema =
    std::function<arrow::Result<std::shared_ptr<arrow::Table>>(const std::string& table)>;

// What a statement returns: a result set, or an OK with counts.
struct StatementResult {
  std::shared_ptr<arrow::Table> rows;  // null for statements without a result set
  uint64_t affected_rows = 0;
  std::optional<uint64_t> version;  // the version a mutation committed (or found, for a no-op)
  std::string info;                 // e.g. "index 'idx' already exists with this definition"
  bool info_only = false;           // report only `info` (USE: "Database changed")
};

class Session {
 public:
  explicit Session(Catalog catalog) : catalog_(std::move(catalog)) {}
  ~Session();
  Session(Session&&) = default;
  Session& operator=(Session&&) = delete;  // would drop a pool its results may use

  const Catalog& catalog() const { return catalog_; }
  // Asked before every table a statement touches (none: everything is allowed). Its error
  // ends the statement before it has done anything.
  void set_authorizer(Authorizer authorizer) { authorizer_ = std::move(authorizer); }
  void set_information_schema(InformationSchema tables) { information_schema_ = std::move(tables); }
  // Each statement may hold at most `bytes` in its query operators and its result (a
  // LimitedMemoryPool, util/memory_limit.h); more ends it with 1041 Out of resources. 0: no
  // limit (the default).
  void set_statement_memory_limit(int64_t bytes);
  // USE's database; empty before the first USE.
  const std::string& current_database() const { return current_database_; }

  // Runs the statements of `script` in order, calling `on_result` after each; stops at the
  // first error (of a statement or of on_result) and returns it.
  using ResultCallback = std::function<arrow::Status(const Statement&, const StatementResult&)>;
  arrow::Status ExecuteScript(std::string_view script, const ResultCallback& on_result);

  // Runs one statement of `script` (the text its positions point into); `mutation`: how a
  // mutation runs (mutation.h), null for the plain way.
  arrow::Result<StatementResult> Execute(const Statement& statement, std::string_view script,
                                         MutationHooks* mutation = nullptr);

  // The results of every statement of `script`; the last statement's for convenience in tests.
  arrow::Result<StatementResult> ExecuteAll(std::string_view script);

 private:
  Catalog catalog_;
  std::string current_database_;
  Authorizer authorizer_;
  InformationSchema information_schema_;
  // Buffers keep a raw pointer to their pool: ~Session retires it (util/memory_limit.h), so
  // that a result held beyond the session stays valid.
  std::unique_ptr<util::LimitedMemoryPool> memory_limit_;
};

}  // namespace tessera::sql
