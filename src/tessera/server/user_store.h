// The server's users: names and password digests (auth.h), kept in the catalog's system area,
// <catalog>/_system/users (the catalog never lists names starting with '_').
//
// The file holds one line per user, `name<TAB>native hex<TAB>sha2 hex`, is written whole to a
// temporary file, fsynced and renamed into place (a crash leaves the old or the new file), and
// is readable by its owner only (0600). No password is ever written, logged or echoed.
//
// At the first start (no users file) the root user is created with the password in the
// environment variable TESSERA_ROOT_PASSWORD; without the variable the server refuses to
// start, saying so. Later starts ignore the variable.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "tessera/server/auth.h"

namespace tessera::server {

inline constexpr const char* kRootPasswordVariable = "TESSERA_ROOT_PASSWORD";

class UserStore {
 public:
  // Loads <catalog_root>/_system/users, creating it with root at the first start.
  static arrow::Result<std::unique_ptr<UserStore>> Open(const std::string& catalog_root);

  // The user's digests, or nullopt for an unknown user (names are case-sensitive, as MySQL's).
  std::optional<PasswordDigests> Find(const std::string& user) const;

 private:
  explicit UserStore(std::string path) : path_(std::move(path)) {}
  arrow::Status Load();
  arrow::Status Save() const;

  std::string path_;
  mutable std::mutex mutex_;
  std::map<std::string, PasswordDigests> users_;
};

}  // namespace tessera::server
