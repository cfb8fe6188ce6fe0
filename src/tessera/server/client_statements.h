// The statements MySQL clients and drivers send on their own — on connect, around
// transactions, to learn the server — answered by the server itself rather than the SQL layer
// (docs/server.md, "Client statements"):
//
//   SET ...                               accepted; session variables are fixed (below)
//                                         (SET PASSWORD is an account statement)
//   BEGIN, START TRANSACTION, COMMIT, ROLLBACK
//                                         accepted: every statement commits on its own
//   SELECT @@[session.|global.]var [AS a], DATABASE(), SCHEMA(), VERSION(), CONNECTION_ID(),
//          USER(), CURRENT_USER() ... [LIMIT n]
//   SHOW [SESSION|GLOBAL] VARIABLES [LIKE 'pattern' | WHERE condition]
//   SHOW [SESSION|GLOBAL] STATUS [LIKE 'pattern' | WHERE condition]   (the server's counters)
//   SHOW WARNINGS, SHOW ERRORS            (none are kept: empty)
//
// An unknown @@variable is MySQL's error 1193. Anything else is not a client statement.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/sql/session.h"

namespace tessera::server {

struct ClientContext {
  std::string database;  // empty: none
  std::string user;      // user@host as CURRENT_USER() shows it
  uint32_t connection_id = 0;
  uint64_t max_allowed_packet = 0;
  uint32_t idle_timeout_seconds = 0;
  // SHOW STATUS's rows (Variable_name, Value), taken when the query arrived.
  std::vector<std::pair<std::string, std::string>> status;
  // Where SET tessera_test_fault writes; null when the server's test hooks are off.
  std::string* test_fault = nullptr;
};

// The statements of one COM_QUERY: split at the `;` outside quotes ('…', "…", `…`, with
// doubled quotes and backslash escapes) and comments (-- to the end of the line, /* … */);
// pieces holding only blanks and comments are dropped.
std::vector<std::string> SplitStatements(std::string_view query);

// The positions of `wanted` in `text` outside quotes and comments (as SplitStatements reads
// them): the `;` that end statements, the `?` placeholders of a prepared statement.
std::vector<size_t> UnquotedPositions(std::string_view text, char wanted);

// The answer to `statement` (one statement, without its ';'), or nullopt when it is no client
// statement. Comments before the statement are skipped (Connector/J starts with one).
std::optional<arrow::Result<sql::StatementResult>> AnswerClientStatement(
    std::string_view statement, const ClientContext& context);

// `USE name` for a name a client sent, quoted so that no name can end the statement.
std::string UseStatement(std::string_view database);

}  // namespace tessera::server
