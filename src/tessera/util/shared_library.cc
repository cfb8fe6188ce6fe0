#include "tessera/util/shared_library.h"

#include <dlfcn.h>

namespace tessera::util {

namespace {

// dlerror()'s message, or a stand-in when it has none.
std::string LoaderMessage() {
  const char* message = dlerror();
  return message == nullptr ? "no message" : message;
}

}  // namespace

arrow::Result<SharedLibrary> SharedLibrary::Open(const std::vector<std::string>& paths,
                                                 ErrorKind kind, std::string_view what,
                                                 std::string_view fix) {
  std::string tried;
  for (const std::string& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) return SharedLibrary(handle, path, kind, what, fix);
    tried += (tried.empty() ? "" : "; ") + path + ": " + LoaderMessage();
  }
  return Error(kind, what, " cannot be loaded (", tried, "); ", fix);
}

void* SharedLibrary::Find(const char* name) {
  void* symbol = dlsym(handle_, name);
  if (symbol == nullptr) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  return symbol;
}

arrow::Status SharedLibrary::Complete() const {
  if (missing_.empty()) return arrow::Status::OK();
  return Error(kind_, what_, " loaded from ", path_, " lacks ", missing_,
               " (another version than tessera was built with?); ", fix_);
}

}  // namespace tessera::util
