#include "tessera/index/vector/openblas.h"

#include <cstdlib>

#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/shared_library.h"

#ifndef TESSERA_OPENBLAS_LIBRARY
#define TESSERA_OPENBLAS_LIBRARY "libopenblas.so.0"
#endif

namespace tessera::index::vector {

// OpenBLAS picks its kernels by the CPU's model (DYNAMIC_ARCH builds, as Debian's), and falls
// back to the oldest x86-64 ones when it does not know the model: on a virtual machine that
// reports a generic "Intel Xeon Processor" it ran SSE3 kernels, and a 4-bit IVF_PQ build of
// 117,659 × 256 took 11.1 s instead of 3.3 s (docs/design.md, "OpenBLAS's kernels").
void NameOpenBlasCoreType() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const simd::Level level = simd::DetectedLevel();
  if (level >= simd::Level::kAvx512) {
    setenv("OPENBLAS_CORETYPE", "SkylakeX", /*overwrite=*/0);
  } else if (level >= simd::Level::kAvx2) {
    setenv("OPENBLAS_CORETYPE", "Haswell", /*overwrite=*/0);
  }
}

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
