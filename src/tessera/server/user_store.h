// The server's users: names and password digests (auth.h), kept in the catalog's system area,
// <catalog>/_system/users (the catalog never lists names starting with '_').
//
// The file holds one line per user, `name<TAB>native hex<TAB>sha2 hex<TAB>plugin<TAB>salted`
// (auth.h: the plugin is empty for an account that accepts both; files written before accounts
// had plugins have the first three fields only). A caching_sha2_password account's native
// field is `--`, which servers older than account plugins refuse as damage rather than read as
// an empty password. It is written whole to a temporary file,
// fsynced and renamed into place (a crash leaves the old or the new file), and is readable by
// its owner only (0600). No password is ever written, logged or echoed; the fast-path digest of
// a caching_sha2_password account is kept in memory only (RememberFastPath).
//
// At the first start (no users file) the root user is created with the password in the
// environment variable TESSERA_ROOT_PASSWORD; without the variable the server refuses to
// start, saying so. Later starts ignore the variable.
//
// Privileges (docs/server.md, "Users and privileges") live beside it in <catalog>/_system/grants,
// one line per grant, `user<TAB>scope<TAB>bits`, written the same way: a scope is `*.*`,
// `db.*` or `db.table` in lower case, the bits SELECT (1), SHOW (2), ALTER (4). root holds
// every privilege on `*.*` and can be neither dropped nor revoked; a user with every privilege
// on `*.*` is an administrator, who may manage users and grants.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "tessera/server/auth.h"

namespace tessera::server {

inline constexpr const char* kRootPasswordVariable = "TESSERA_ROOT_PASSWORD";

class UserStore {
 public:
  // Loads <catalog_root>/_system/users, creating it with root at the first start.
  static arrow::Result<std::unique_ptr<UserStore>> Open(const std::string& catalog_root);

  // The user's digests, or nullopt for an unknown user (names are case-sensitive, as MySQL's).
  std::optional<PasswordDigests> Find(const std::string& user) const;

  // The account statements' changes, each saved before it returns. Errors: kAlreadyExists /
  // kNotFound (the caller gives them MySQL's codes), kInvalidArgument for root's own grants.
  // `plugin` is what IDENTIFIED WITH named (kAny without it).
  arrow::Status CreateUser(const std::string& user, std::string_view password, AccountPlugin plugin,
                           bool if_not_exists);
  arrow::Status DropUser(const std::string& user, bool if_exists);
  arrow::Status SetPassword(const std::string& user, std::string_view password,
                            AccountPlugin plugin);
  // After a full authentication proved `password` for a caching_sha2_password account whose
  // salted hash was `salted` when it was read: keeps its fast-path digest in memory, unless the
  // password changed meanwhile.
  void RememberFastPath(const std::string& user, const std::string& salted,
                        std::string_view password);
  arrow::Status Grant(const std::string& user, const std::string& scope, uint8_t privileges);
  arrow::Status Revoke(const std::string& user, const std::string& scope, uint8_t privileges);

  // Whether `user` holds `privilege` (one bit) on database.table (table empty: the database).
  bool Allowed(const std::string& user, uint8_t privilege, const std::string& database,
               const std::string& table) const;
  bool IsAdministrator(const std::string& user) const;
  // The user's grants: scope -> bits, in scope order.
  std::map<std::string, uint8_t> GrantsOf(const std::string& user) const;

 private:
  UserStore(std::string path, std::string grants_path)
      : path_(std::move(path)), grants_path_(std::move(grants_path)) {}
  arrow::Status Load();
  arrow::Status LoadGrants();
  arrow::Status Save() const;

  std::string path_;
  std::string grants_path_;
  mutable std::mutex mutex_;
  std::map<std::string, PasswordDigests> users_;
  std::map<std::string, std::map<std::string, uint8_t>> grants_;  // user -> scope -> bits
};

inline constexpr uint8_t kPrivilegeSelect = 1;
inline constexpr uint8_t kPrivilegeShow = 2;
inline constexpr uint8_t kPrivilegeAlter = 4;
inline constexpr uint8_t kPrivilegeAll = 7;

}  // namespace tessera::server
