// The pieces of the extension module tessera._native, one Bind* per concept; module.cc calls
// them in order. The module is the engine's C++ API made callable: Python's idioms (keyword
// arguments, pyarrow objects, exceptions) are added by the pure Python package on top.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <utility>

#include "tessera/query/snapshot.h"

namespace tessera::python {

// The native dataset handle: one opened version (a query::Snapshot, which also caches the
// version's deletion vectors and opened index segments across calls).
struct DatasetHandle {
  std::shared_ptr<const query::Snapshot> snapshot;

  const dataset::Dataset& dataset() const { return snapshot->dataset(); }
  static DatasetHandle Of(std::shared_ptr<dataset::Dataset> dataset) {
    return DatasetHandle{query::Snapshot::Make(std::move(dataset))};
  }
};

// Runs `work` with the GIL released and returns its result; the GIL is held again when the
// result is inspected (Unwrap may raise).
template <typename Work>
auto WithoutGil(Work&& work) {
  nanobind::gil_scoped_release release;
  return work();
}

void BindDatasets(nanobind::module_& module);
void BindIndexes(nanobind::module_& module);
void BindSearch(nanobind::module_& module);
void BindTextSearch(nanobind::module_& module);
void BindSql(nanobind::module_& module);

}  // namespace tessera::python
