#include "tessera/index/vector/openblas.h"

#include "tessera/status.h"
#include "tessera/util/shared_library.h"

#ifndef TESSERA_OPENBLAS_LIBRARY
#define TESSERA_OPENBLAS_LIBRARY "libopenblas.so.0"
#endif

namespace tessera::index::vector {

namespace {

arrow::Result<OpenBlas> Open() {
  ARROW_ASSIGN_OR_RAISE(
      auto library,
      util::SharedLibrary::Open({TESSERA_OPENBLAS_LIBRARY, "libopenblas.so.0"},
                                ErrorKind::kInternal, "OpenBLAS, which vector index builds need,",
                                "install libopenblas-serial-dev (scripts/bootstrap.sh does)"));
  OpenBlas blas;
  decltype(&openblas_set_num_threads) set_threads = nullptr;
  decltype(&openblas_get_parallel) get_parallel = nullptr;
  library.Bind(&blas.sgemm, "cblas_sgemm");
  library.Bind(&set_threads, "openblas_set_num_threads");
  library.Bind(&get_parallel, "openblas_get_parallel");
  ARROW_RETURN_NOT_OK(library.Complete());
  set_threads(1);
  blas.needs_lock = get_parallel() == 0;
  return blas;
}

}  // namespace

arrow::Result<const OpenBlas*> LoadOpenBlas() {
  static const arrow::Result<OpenBlas> loaded = Open();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace tessera::index::vector
