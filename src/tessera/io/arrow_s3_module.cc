#include "tessera/io/arrow_s3_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tessera/status.h"

#ifndef TESSERA_ARROW_S3_MODULE
#define TESSERA_ARROW_S3_MODULE "libtessera_arrow_s3.so"
#endif

namespace tessera::io {

namespace {

constexpr const char* kModuleName = "libtessera_arrow_s3.so";

std::vector<std::string> Candidates() {
  std::vector<std::string> paths;
  if (const char* configured = std::getenv("TESSERA_ARROW_S3_MODULE")) paths.push_back(configured);
  // The directory of the library holding this code (the Python extension module), then of the
  // executable: dladdr names a library by its path, but the executable only as it was started.
  std::vector<std::string> holders;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadArrowS3Module), &info) != 0 &&
      info.dli_fname != nullptr && info.dli_fname[0] == '/') {
    holders.push_back(info.dli_fname);
  }
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) holders.push_back(executable.string());
  for (const std::string& holder : holders) {
    paths.push_back(holder.substr(0, holder.rfind('/') + 1) + kModuleName);
  }
  paths.push_back(TESSERA_ARROW_S3_MODULE);
  return paths;
}

arrow::Result<const ArrowS3Module*> Open() {
  std::string tried;
  for (const std::string& path : Candidates()) {
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* message = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(message ? message : path);
      continue;
    }
    using Entry = const ArrowS3Module* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(library, kArrowS3ModuleSymbol));
    const ArrowS3Module* module = entry ? entry() : nullptr;
    if (module == nullptr || module->version != kArrowS3ModuleVersion) {
      tried += (tried.empty() ? "" : "; ") + path + " is of another tessera build";
      dlclose(library);
      continue;
    }
    return module;
  }
  return Unsupported("object storage needs tessera's Arrow S3 module, which cannot be loaded (",
                     tried,
                     "); build it with tessera (target tessera_arrow_s3), or point "
                     "TESSERA_ARROW_S3_MODULE at it");
}

}  // namespace

arrow::Result<const ArrowS3Module*> LoadArrowS3Module() {
  static const arrow::Result<const ArrowS3Module*> loaded = Open();
  return loaded;
}

}  // namespace tessera::io
