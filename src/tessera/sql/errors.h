// SQL error codes: every error of a statement carries a stable numeric code and an SQLSTATE,
// MySQL's where MySQL has one for the condition (1064 syntax error, 1146 unknown table, ...),
// tessera's own (7000-7099) otherwise. docs/sql.md has the table; the server sends them as
// MySQL error packets.
//
// An SQL error is an ordinary tessera error (status.h: it has an ErrorKind, KindOf() works) whose
// detail also holds the code. Errors from the layers below carry only a kind; CodeOf() maps the
// kind to a code, so every status has one.
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>
#include <utility>

#include "tessera/status.h"

namespace tessera::sql {

enum class SqlCode : int {
  kNoDatabaseSelected = 1046,             // 3D000
  kDatabaseExists = 1007,                 // HY000
  kUnknownDatabase = 1049,                // 42000
  kTableExists = 1050,                    // 42S01
  kUnknownColumn = 1054,                  // 42S22
  kNotGrouped = 1055,                     // 42000: a column neither grouped nor aggregated
  kDuplicateKeyName = 1061,               // 42000
  kParseError = 1064,                     // 42000
  kAmbiguousColumn = 1052,                // 23000
  kKeyColumnMissing = 1072,               // 42000
  kNonUniqueTable = 1066,                 // 42000: two sources of one name in FROM
  kUnknownTableInQuery = 1051,            // 42S02: t.* or t.c with no source t
  kNoTablesUsed = 1096,                   // HY000: SELECT * without FROM
  kDerivedTableAlias = 1248,              // 42000: a subquery in FROM without an alias
  kColumnCountMismatch = 1136,            // 21S01: INSERT ... SELECT of another number of columns
  kCantDropKey = 1091,                    // 42000
  kUnknownError = 1105,                   // HY000
  kInvalidGroupFunction = 1111,           // HY000: an aggregate where none may be
  kUnknownTable = 1146,                   // 42S02
  kUnknownInformationSchemaTable = 1109,  // 42S02
  kWrongArguments = 1210,                 // HY000
  kLockDeadlock = 1213,                   // 40001: a retryable commit conflict
  kWrongUsage = 1221,                     // HY000: OR REPLACE with IF NOT EXISTS
  kNotSupportedYet = 1235,                // 42000
  kUnknownFunction = 1305,                // 42000
  kQueryInterrupted = 1317,               // 70100
  kOutOfResources = 1041,                 // HY000
  // The server's (docs/server.md):
  kTooManyConnections = 1040,         // 08004
  kBadHandshake = 1043,               // 08S01
  kAccessDenied = 1045,               // 28000
  kUnknownCommand = 1047,             // 08S01
  kPacketTooLarge = 1153,             // 08S01
  kEmptyQuery = 1065,                 // 42000
  kUnknownSystemVariable = 1193,      // HY000
  kUnknownStatementHandler = 1243,    // HY000: EXECUTE of a statement id never prepared
  kDatabaseAccessDenied = 1044,       // 42000
  kNonexistingGrant = 1141,           // 42000
  kTableAccessDenied = 1142,          // 42000
  kSpecificAccessDenied = 1227,       // 42000: an administrator's statement
  kCannotUser = 1396,                 // HY000: CREATE / ALTER / DROP USER refused
  kUnknownThread = 1094,              // HY000: KILL of an unknown connection id
  kNotOwner = 1095,                   // HY000: KILL of another user's connection
  kTooManyPreparedStatements = 1461,  // 42000
  kPluginNotLoaded = 1524,            // HY000: IDENTIFIED WITH a plugin the server lacks
  kSecureTransportRequired = 3159,    // HY000: require_secure_transport, a connection without TLS
  kDefinitionMismatch = 7001,         // HY000: IF NOT EXISTS over another definition
  kCorrupt = 7002,                    // HY000
  kCommitConflict = 7003,             // HY000: a conflict retrying cannot resolve
  kStale = 7004,                      // HY000
  kBusy = 7005,                       // HY000
  kIndeterminate = 7006,              // HY000
  kStorageError = 7007,               // HY000
  kNotFound = 7008,                   // HY000
  kAlreadyExists = 7009,              // HY000
  kTooComplex = 7010,                 // 54000: a statement over the size or nesting limits
  // The outcome classes of a mutation run by a server's worker (docs/server.md): success is
  // an OK; these three are the others (7006 above: may or may not have committed).
  kMutationFailed = 7011,              // TS001: confirmed failure, nothing committed
  kCommittedRefreshIncomplete = 7012,  // TS002: committed; the server's refresh did not finish
  kIsolationUnavailable = 7013,        // TS003: no worker boundary, no mutation started
};

// "42000", "HY000", ...
std::string_view SqlStateOf(SqlCode code);

class SqlErrorDetail : public ErrorDetail {
 public:
  SqlErrorDetail(ErrorKind kind, bool retryable, SqlCode code)
      : ErrorDetail(kind, retryable), code_(code) {}
  SqlCode code() const { return code_; }

 private:
  SqlCode code_;
};

// An error of `kind` with `code`.
arrow::Status MakeSqlError(SqlCode code, ErrorKind kind, std::string message);

template <typename... Args>
arrow::Status SqlError(SqlCode code, ErrorKind kind, Args&&... args) {
  return MakeSqlError(code, kind, Concat(std::forward<Args>(args)...));
}

// The code of any error: its own, or the one its kind maps to. Precondition: !status.ok().
SqlCode CodeOf(const arrow::Status& status);

// `status` with `code`, unless it has a code already; its kind and message are kept.
arrow::Status WithCode(const arrow::Status& status, SqlCode code);

// `status` with `prefix` (e.g. "line 2, column 7: ") before its message; kind and code kept.
arrow::Status Prefixed(const arrow::Status& status, std::string_view prefix);

// "ERROR 1146 (42S02): Table 'db.t' doesn't exist": how the CLI prints an error, as the mysql
// client does.
std::string FormatSqlError(const arrow::Status& status);

}  // namespace tessera::sql
