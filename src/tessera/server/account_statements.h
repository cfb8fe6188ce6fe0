// The account statements (docs/server.md, "Users and privileges"), answered by the server
// from its UserStore rather than by the SQL layer, which has no users:
//
//   CREATE USER [IF NOT EXISTS] user IDENTIFIED BY 'password'
//   ALTER USER [IF EXISTS] user IDENTIFIED BY 'password'
//   DROP USER [IF EXISTS] user
//   GRANT privileges ON target TO user        REVOKE privileges ON target FROM user
//   SHOW GRANTS [FOR user | FOR CURRENT_USER[()]]
//
// user: 'name', `name` or name, with an optional @'host' that is accepted and ignored (the
// server does not tell hosts apart). privileges: SELECT, SHOW, ALTER or ALL [PRIVILEGES],
// comma-separated. target: *.*, db.*, db.table, or table / * in the current database.
//
// Only administrators (every privilege on *.*) manage users and grants; anyone may change
// their own password and see their own grants. Errors never echo a password.
#pragma once

#include <arrow/result.h>

#include <optional>
#include <string>
#include <string_view>

#include "tessera/server/user_store.h"
#include "tessera/sql/session.h"

namespace tessera::server {

// The answer to `text`, or nullopt when it is no account statement. `user` is the
// connection's user, `database` its current database (may be empty).
std::optional<arrow::Result<sql::StatementResult>> AnswerAccountStatement(
    std::string_view text, const std::string& user, const std::string& database, UserStore& users);

// MySQL's 1142 / 1044 for `user` lacking `privilege` on database.table (table empty: the
// database): what the connection's authorizer returns.
arrow::Status AccessDenied(sql::Access access, const std::string& user, const std::string& host,
                           const std::string& database, const std::string& table);

}  // namespace tessera::server
