// tessera._native: the extension module of the Python package (python/CMakeLists.txt).
#include <nanobind/nanobind.h>

#include "arrow_streams.h"
#include "bindings.h"
#include "control.h"
#include "errors.h"
#include "tessera/expr/evaluator.h"
#include "tessera/index/vector/openblas.h"

NB_MODULE(_native, module) {
  module.doc() = "tessera's engine, called by the tessera package; use tessera, not this module.";
  tessera::python::BindErrors(module);
  tessera::python::BindArrowStreams(module);
  tessera::python::BindControl(module);
  tessera::python::BindDatasets(module);
  tessera::python::BindIndexes(module);
  tessera::python::BindSearch(module);
  tessera::python::BindTextSearch(module);
  tessera::python::BindSql(module);
  // OpenBLAS's kernels are named by an environment variable, read when it loads (openblas.h).
  tessera::index::vector::NameOpenBlasCoreType();
  // Arrow registers its compute functions without locking out readers: do it at import, before
  // Python threads can use the engine at once, not on the first call that needs them.
  tessera::python::Check(tessera::expr::EnsureComputeInitialized());
}
