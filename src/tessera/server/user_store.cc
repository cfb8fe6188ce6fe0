#include "tessera/server/user_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/status.h"

namespace tessera::server {

namespace fs = std::filesystem;

arrow::Result<std::unique_ptr<UserStore>> UserStore::Open(const std::string& catalog_root) {
  const fs::path directory = fs::path(catalog_root) / "_system";
  auto store = std::unique_ptr<UserStore>(new UserStore((directory / "users").string()));
  std::error_code error;
  if (fs::exists(store->path_, error)) {
    RETURN_NOT_OK(store->Load());
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
    std::string name, native, sha2;
    std::getline(fields, name, '\t');
    std::getline(fields, native, '\t');
    std::getline(fields, sha2, '\t');
    PasswordDigests digests{FromHex(native), FromHex(sha2)};
    const bool valid =
        !name.empty() && digests.native.size() == native.size() / 2 &&
        digests.sha2.size() == sha2.size() / 2 &&
        (digests.native.empty() ? digests.sha2.empty()
                                : digests.native.size() == 20 && digests.sha2.size() == 32);
    if (!valid) {
      return Error(ErrorKind::kCorrupt, "the users file ", path_, " is damaged at line ", number,
                   "; restore it from a backup");
    }
    users_[name] = std::move(digests);
  }
  return arrow::Status::OK();
}

arrow::Status UserStore::Save() const {
  std::string text;
  for (const auto& [name, digests] : users_) {
    text += name + "\t" + ToHex(digests.native) + "\t" + ToHex(digests.sha2) + "\n";
  }
  const std::string temporary = path_ + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error(ErrorKind::kIOError, "cannot write ", temporary, ": ", std::strerror(errno));
  }
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path_.c_str()) != 0) {
    return Error(ErrorKind::kIOError, "cannot write the users file ", path_, ": ",
                 std::strerror(errno));
  }
  // The rename is durable once the directory is.
  const std::string directory = fs::path(path_).parent_path().string();
  const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) {
    if (dir >= 0) ::close(dir);
    return Error(ErrorKind::kIOError, "cannot sync ", directory, ": ", std::strerror(errno));
  }
  ::close(dir);
  return arrow::Status::OK();
}

}  // namespace tessera::server
