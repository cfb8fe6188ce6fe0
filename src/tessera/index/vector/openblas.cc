#include "tessera/index/vector/openblas.h"

#include <dlfcn.h>

#include <string>

#include "tessera/status.h"

#ifndef TESSERA_OPENBLAS_LIBRARY
#define TESSERA_OPENBLAS_LIBRARY "libopenblas.so.0"
#endif

namespace tessera::index::vector {

namespace {

// dlerror()'s message, or a stand-in when it has none.
std::string LoaderMessage() {
  const char* message = dlerror();
  return message == nullptr ? "no message" : message;
}

arrow::Result<OpenBlas> Open() {
  void* library = nullptr;
  std::string tried;
  for (const char* path : {TESSERA_OPENBLAS_LIBRARY, "libopenblas.so.0"}) {
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) break;
    tried += std::string(tried.empty() ? "" : "; ") + path + ": " + LoaderMessage();
  }
  if (library == nullptr) {
    return Error(ErrorKind::kInternal,
                 "OpenBLAS, which vector index builds need, cannot be loaded (", tried,
                 "); install libopenblas-serial-dev (scripts/bootstrap.sh does)");
  }
  auto find = [&](const char* name) -> arrow::Result<void*> {
    void* symbol = dlsym(library, name);
    if (symbol == nullptr) {
      return Error(ErrorKind::kInternal, "the OpenBLAS library loaded lacks ", name, " (",
                   LoaderMessage(), ")");
    }
    return symbol;
  };
  OpenBlas blas;
  ARROW_ASSIGN_OR_RAISE(void* sgemm, find("cblas_sgemm"));
  ARROW_ASSIGN_OR_RAISE(void* set_threads, find("openblas_set_num_threads"));
  ARROW_ASSIGN_OR_RAISE(void* get_parallel, find("openblas_get_parallel"));
  blas.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(sgemm);
  reinterpret_cast<decltype(&openblas_set_num_threads)>(set_threads)(1);
  blas.needs_lock = reinterpret_cast<decltype(&openblas_get_parallel)>(get_parallel)() == 0;
  return blas;
}

}  // namespace

arrow::Result<const OpenBlas*> LoadOpenBlas() {
  static const arrow::Result<OpenBlas> loaded = Open();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace tessera::index::vector
