// OpenBLAS, opened on first use (dlopen) instead of linked.
//
// Only k-means and batch centroid assignment (centroid_assignment.h) multiply matrices, but a
// linked OpenBLAS cost every tessera process about 1.4 ms at start: 13,000 symbol relocations,
// and libgfortran and libquadmath loaded with it (docs/benchmarks.md, "Process start"). The
// library opened is the one the build found (TESSERA_OPENBLAS_LIBRARY, CMakeLists.txt: the
// serial variant first), else its soname; its cblas.h gives the signatures. It is opened once
// per process and never closed; it is set to one thread of its own, as tessera parallelizes
// around it.
#pragma once

#include <arrow/result.h>
#include <cblas.h>

namespace tessera::index::vector {

struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  // The build is not reentrant (only builds with USE_LOCKING are): calls must be serialized.
  bool needs_lock = true;
};

// OpenBLAS's own CPU detection goes by CPU model and takes unknown ones (virtual machines) for
// the oldest x86-64, whose kernels are 3× slower here. Unless OPENBLAS_CORETYPE is set, this sets
// it to the kernels tessera's CPU detection supports (SkylakeX with AVX-512 F/BW/VL/DQ, Haswell
// with AVX2), for the library to read when it loads. setenv is not safe while other threads may
// read the environment, so programs call it first thing, before starting threads: the CLI's main
// (every command, the server and its workers), the Python module's import, bench/ann_query.
// Child processes inherit the variable, and so would another OpenBLAS loaded later.
void NameOpenBlasCoreType();

// The library, loaded on the first call; Internal (naming the file and the loader's message)
// when it cannot be opened or lacks a function, on this call and every later one.
arrow::Result<const OpenBlas*> LoadOpenBlas();

}  // namespace tessera::index::vector
