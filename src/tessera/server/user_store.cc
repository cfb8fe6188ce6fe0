#include "tessera/server/user_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/status.h"

namespace tessera::server {

namespace fs = std::filesystem;

namespace {
constexpr const char* kSaltedOnlyMarker = "--";
}  // namespace

arrow::Result<std::unique_ptr<UserStore>> UserStore::Open(const std::string& catalog_root) {
  const fs::path directory = fs::path(catalog_root) / "_system";
  auto store = std::unique_ptr<UserStore>(
      new UserStore((directory / "users").string(), (directory / "grants").string()));
  std::error_code error;
  if (fs::exists(store->path_, error)) {
    RETURN_NOT_OK(store->Load());
    RETURN_NOT_OK(store->LoadGrants());
    return store;
  }
  const char* password = std::getenv(kRootPasswordVariable);
  if (password == nullptr) {
    return InvalidArgument("the catalog ", catalog_root,
                           " has no users yet: set the environment variable ",
                           kRootPasswordVariable,
                           " to the root user's password for the first start (an empty value "
                           "makes a root without a password)");
  }
  fs::create_directories(directory, error);
  if (error) {
    return Error(ErrorKind::kIOError, "cannot create ", directory.string(), ": ", error.message());
  }
  store->users_["root"] = DigestPassword(password);
  RETURN_NOT_OK(store->Save());
  return store;
}

std::optional<PasswordDigests> UserStore::Find(const std::string& user) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = users_.find(user);
  if (it == users_.end()) return std::nullopt;
  return it->second;
}

arrow::Status UserStore::Load() {
  std::ifstream in(path_);
  if (!in) return Error(ErrorKind::kIOError, "cannot read the users file ", path_);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string name, native, sha2, plugin_name, salted;
    std::getline(fields, name, '\t');
    std::getline(fields, native, '\t');
    std::getline(fields, sha2, '\t');
    std::getline(fields, plugin_name, '\t');
    std::getline(fields, salted, '\t');
    const bool salted_only = native == kSaltedOnlyMarker;
    if (salted_only) native.clear();
    PasswordDigests digests;
    digests.native = FromHex(native);
    digests.sha2 = FromHex(sha2);
    digests.salted = salted;
    const auto plugin = PluginNamed(plugin_name);
    if (plugin) digests.plugin = *plugin;
    const bool empty_password = digests.native.empty() && digests.sha2.empty() && salted.empty();
    bool valid = !name.empty() && plugin && digests.native.size() == native.size() / 2 &&
                 digests.sha2.size() == sha2.size() / 2 &&
                 salted_only == (plugin == AccountPlugin::kCachingSha2);
    if (valid && !empty_password) {
      switch (digests.plugin) {
        case AccountPlugin::kAny:
          valid = digests.native.size() == 20 && digests.sha2.size() == 32 && salted.empty();
          break;
        case AccountPlugin::kNative:
          valid = digests.native.size() == 20 && sha2.empty() && salted.empty();
          break;
        case AccountPlugin::kCachingSha2:
          valid = native.empty() && sha2.empty() && salted.rfind("pbkdf2-sha256$", 0) == 0;
          break;
      }
    }
    if (!valid) {
      return Error(ErrorKind::kCorrupt, "the users file ", path_, " is damaged at line ", number,
                   "; restore it from a backup");
    }
    users_[name] = std::move(digests);
  }
  return arrow::Status::OK();
}

namespace {

// `text` as the whole of `path`, readable by its owner only: a temporary file beside it,
// fsynced, renamed into place, the directory fsynced (a crash leaves the old or the new file).
arrow::Status WritePrivateFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error(ErrorKind::kIOError, "cannot write ", temporary, ": ", std::strerror(errno));
  }
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    return Error(ErrorKind::kIOError, "cannot write ", path, ": ", std::strerror(errno));
  }
  const std::string directory = fs::path(path).parent_path().string();
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) {
    if (dir >= 0) ::close(dir);
    return Error(ErrorKind::kIOError, "cannot sync ", directory, ": ", std::strerror(errno));
  }
  ::close(dir);
  return arrow::Status::OK();
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

arrow::Status UserStore::Save() const {
  std::string users, grants;
  for (const auto& [name, digests] : users_) {
    // A caching_sha2_password account's fast-path digest stays in memory; its native field
    // holds kSaltedOnlyMarker, which servers older than account plugins refuse as damage
    // (they would read an empty native digest: an empty password).
    const bool salted_only = digests.plugin == AccountPlugin::kCachingSha2;
    const std::string native = salted_only ? kSaltedOnlyMarker : ToHex(digests.native);
    const std::string sha2 = salted_only ? std::string() : ToHex(digests.sha2);
    users += name + "\t" + native + "\t" + sha2 + "\t" + PluginName(digests.plugin) + "\t" +
             digests.salted + "\n";
  }
  for (const auto& [name, scopes] : grants_) {
    for (const auto& [scope, bits] : scopes) {
      grants += name + "\t" + scope + "\t" + std::to_string(bits) + "\n";
    }
  }
  RETURN_NOT_OK(WritePrivateFile(path_, users));
  return WritePrivateFile(grants_path_, grants);
}

arrow::Status UserStore::LoadGrants() {
  std::error_code error;
  if (!fs::exists(grants_path_, error)) return arrow::Status::OK();  // none granted yet
  std::ifstream in(grants_path_);
  if (!in) return Error(ErrorKind::kIOError, "cannot read the grants file ", grants_path_);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string name, scope, bits;
    std::getline(fields, name, '\t');
    std::getline(fields, scope, '\t');
    std::getline(fields, bits, '\t');
    const int value = std::atoi(bits.c_str());
    if (name.empty() || scope.find('.') == std::string::npos || value <= 0 ||
        value > kPrivilegeAll) {
      return Error(ErrorKind::kCorrupt, "the grants file ", grants_path_, " is damaged at line ",
                   number, "; restore it from a backup");
    }
    // Grants of a user that is gone (a crash between the two files' renames) are dropped.
    if (users_.count(name) != 0) grants_[name][scope] = static_cast<uint8_t>(value);
  }
  return arrow::Status::OK();
}

arrow::Status UserStore::CreateUser(const std::string& user, std::string_view password,
                                    AccountPlugin plugin, bool if_not_exists) {
  PasswordDigests digests = DigestPassword(password, plugin);  // slow: outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  if (users_.count(user) != 0) {
    if (if_not_exists) return arrow::Status::OK();
    return AlreadyExists("user '", user, "' exists");
  }
  users_[user] = std::move(digests);
  return Save();
}

arrow::Status UserStore::DropUser(const std::string& user, bool if_exists) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (user == "root") return InvalidArgument("root cannot be dropped");
  if (users_.erase(user) == 0) {
    if (if_exists) return arrow::Status::OK();
    return NotFound("user '", user, "' does not exist");
  }
  grants_.erase(user);
  return Save();
}

arrow::Status UserStore::SetPassword(const std::string& user, std::string_view password,
                                     AccountPlugin plugin) {
  PasswordDigests digests = DigestPassword(password, plugin);  // slow: outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = users_.find(user);
  if (it == users_.end()) return NotFound("user '", user, "' does not exist");
  it->second = std::move(digests);
  return Save();
}

void UserStore::RememberFastPath(const std::string& user, const std::string& salted,
                                 std::string_view password) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = users_.find(user);
  if (it == users_.end() || it->second.plugin != AccountPlugin::kCachingSha2 ||
      it->second.salted != salted) {
    return;  // dropped or given a new password since the authentication read it
  }
  it->second.sha2 = FastPathDigest(password);
}

arrow::Status UserStore::Grant(const std::string& user, const std::string& scope,
                               uint8_t privileges) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (users_.count(user) == 0) return NotFound("user '", user, "' does not exist");
  if (user == "root") return arrow::Status::OK();  // holds everything already
  grants_[user][Lower(scope)] |= privileges;
  return Save();
}

arrow::Status UserStore::Revoke(const std::string& user, const std::string& scope,
                                uint8_t privileges) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (users_.count(user) == 0) return NotFound("user '", user, "' does not exist");
  if (user == "root") return InvalidArgument("root's privileges cannot be revoked");
  auto scopes = grants_.find(user);
  auto granted = scopes == grants_.end() ? nullptr : &scopes->second;
  auto it = granted == nullptr ? decltype(granted->begin()){} : granted->find(Lower(scope));
  if (granted == nullptr || it == granted->end()) {
    return NotFound("there is no such grant defined for user '", user, "' on ", scope);
  }
  it->second = static_cast<uint8_t>(it->second & ~privileges);
  if (it->second == 0) granted->erase(it);
  if (granted->empty()) grants_.erase(scopes);
  return Save();
}

bool UserStore::Allowed(const std::string& user, uint8_t privilege, const std::string& database,
                        const std::string& table) const {
  if (user == "root") return true;
  std::lock_guard<std::mutex> lock(mutex_);
  auto scopes = grants_.find(user);
  if (scopes == grants_.end()) return false;
  const std::string db = Lower(database);
  for (const std::string& scope : {std::string("*.*"), db + ".*", db + "." + Lower(table)}) {
    if (scope.back() == '.') continue;  // a database-level question has no table scope
    auto it = scopes->second.find(scope);
    if (it != scopes->second.end() && (it->second & privilege) != 0) return true;
  }
  return false;
}

bool UserStore::IsAdministrator(const std::string& user) const {
  if (user == "root") return true;
  std::lock_guard<std::mutex> lock(mutex_);
  auto scopes = grants_.find(user);
  if (scopes == grants_.end()) return false;
  auto it = scopes->second.find("*.*");
  return it != scopes->second.end() && it->second == kPrivilegeAll;
}

std::map<std::string, uint8_t> UserStore::GrantsOf(const std::string& user) const {
  if (user == "root") return {{"*.*", kPrivilegeAll}};
  std::lock_guard<std::mutex> lock(mutex_);
  auto scopes = grants_.find(user);
  return scopes == grants_.end() ? std::map<std::string, uint8_t>{} : scopes->second;
}

}  // namespace tessera::server
