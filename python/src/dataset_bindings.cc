// tessera._native: datasets — create, open, the reads of one version, writes, history.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arrow_streams.h"
#include "bindings.h"
#include "control.h"
#include "errors.h"
#include "tessera/dataset/dataset.h"
#include "tessera/query/filtered_read.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

dataset::WriteOptions WriteOptionsFor(Control* control, std::optional<uint64_t> max_rows_per_file) {
  dataset::WriteOptions options;
  options.control = ControlOf(control);
  if (max_rows_per_file) options.max_rows_per_file = *max_rows_per_file;
  return options;
}

// Append or Overwrite: the batches of `stream` committed as a new version.
using WriteMethod = arrow::Result<std::shared_ptr<dataset::Dataset>> (dataset::Dataset::*)(
    std::shared_ptr<arrow::RecordBatchReader>, const dataset::WriteOptions&) const;

DatasetHandle Write(const DatasetHandle& self, WriteMethod method, nb::handle stream,
                    Control* control, std::optional<uint64_t> max_rows_per_file) {
  auto source = ImportStream(stream);
  const auto options = WriteOptionsFor(control, max_rows_per_file);
  return DatasetHandle::Of(
      Unwrap(WithoutGil([&] { return (self.dataset().*method)(source, options); })));
}

// (version, created as seconds since the epoch, operation, live rows, fragments, unreadable).
using VersionRow = std::tuple<uint64_t, double, std::string, uint64_t, uint64_t, std::string>;

std::vector<VersionRow> VersionRows(const std::vector<dataset::VersionInfo>& versions) {
  std::vector<VersionRow> rows;
  for (const auto& info : versions) {
    const double created = std::chrono::duration<double>(info.created.time_since_epoch()).count();
    rows.emplace_back(info.version, created, info.operation, info.num_rows, info.num_fragments,
                      info.unreadable);
  }
  return rows;
}

}  // namespace

void BindDatasets(nb::module_& module) {
  nb::class_<DatasetHandle>(module, "Dataset", "One opened version of a dataset.")
      .def_prop_ro("version", [](const DatasetHandle& self) { return self.snapshot->version(); })
      .def_prop_ro("uri", [](const DatasetHandle& self) { return self.dataset().uri(); })
      .def("schema",
           [](const DatasetHandle& self) { return ExportSchema(*self.snapshot->schema()); })
      .def("count_rows", [](const DatasetHandle& self) { return self.dataset().CountRows(); })
      .def(
          "count",
          [](const DatasetHandle& self, const std::string& filter) {
            return Unwrap(WithoutGil([&] { return query::Count(*self.snapshot, filter); }));
          },
          nb::arg("filter"))
      .def(
          "scan",
          [](const DatasetHandle& self, std::vector<std::string> columns, std::string filter,
             std::optional<uint64_t> limit, bool with_row_address) {
            dataset::ScanOptions options;
            options.columns = std::move(columns);
            options.filter = std::move(filter);
            options.limit = limit;
            options.with_row_address = with_row_address;
            return ExportStreamRecordingErrors(
                Unwrap(WithoutGil([&] { return query::Read(self.snapshot, options); })));
          },
          nb::arg("columns"), nb::arg("filter"), nb::arg("limit").none(),
          nb::arg("with_row_address"))
      .def(
          "take",
          [](const DatasetHandle& self, std::vector<uint64_t> addresses,
             std::vector<std::string> columns) {
            return ExportTable(
                Unwrap(WithoutGil([&] { return self.snapshot->Take(addresses, columns); })));
          },
          nb::arg("addresses"), nb::arg("columns"))
      .def("fragments",
           [](const DatasetHandle& self) {
             // (fragment id, physical rows): what a distributed build splits into groups.
             std::vector<std::tuple<uint32_t, uint64_t>> fragments;
             for (const auto& fragment : self.dataset().manifest().fragments()) {
               fragments.emplace_back(fragment.id(), fragment.physical_rows());
             }
             return fragments;
           })
      .def("versions",
           [](const DatasetHandle& self) {
             return VersionRows(Unwrap(WithoutGil([&] { return self.dataset().ListVersions(); })));
           })
      .def(
          "append",
          [](const DatasetHandle& self, nb::handle stream, Control* control,
             std::optional<uint64_t> max_rows_per_file) {
            return Write(self, &dataset::Dataset::Append, stream, control, max_rows_per_file);
          },
          nb::arg("stream"), nb::arg("control").none(), nb::arg("max_rows_per_file").none())
      .def(
          "overwrite",
          [](const DatasetHandle& self, nb::handle stream, Control* control,
             std::optional<uint64_t> max_rows_per_file) {
            return Write(self, &dataset::Dataset::Overwrite, stream, control, max_rows_per_file);
          },
          nb::arg("stream"), nb::arg("control").none(), nb::arg("max_rows_per_file").none())
      .def(
          "delete",
          [](const DatasetHandle& self, const std::string& filter) {
            return DatasetHandle::Of(
                Unwrap(WithoutGil([&] { return query::Delete(*self.snapshot, filter); })));
          },
          nb::arg("filter"))
      .def(
          "cleanup",
          [](const DatasetHandle& self, double older_than_seconds, bool dry_run) {
            dataset::CleanupOptions options;
            options.older_than = std::chrono::seconds(static_cast<int64_t>(older_than_seconds));
            options.dry_run = dry_run;
            auto report = Unwrap(WithoutGil([&] { return self.dataset().Cleanup(options); }));
            return std::make_tuple(report.removed_versions, report.removed_files,
                                   report.bytes_removed);
          },
          nb::arg("older_than_seconds"), nb::arg("dry_run"));

  module.def(
      "create",
      [](const std::string& uri, nb::handle stream, Control* control,
         std::optional<uint64_t> max_rows_per_file) {
        auto source = ImportStream(stream);
        const auto options = WriteOptionsFor(control, max_rows_per_file);
        return DatasetHandle::Of(
            Unwrap(WithoutGil([&] { return dataset::Dataset::Create(uri, source, options); })));
      },
      nb::arg("uri"), nb::arg("stream"), nb::arg("control").none(),
      nb::arg("max_rows_per_file").none());
  module.def(
      "open",
      [](const std::string& uri, std::optional<uint64_t> version) {
        return DatasetHandle{
            Unwrap(WithoutGil([&] { return query::Snapshot::Open(uri, version); }))};
      },
      nb::arg("uri"), nb::arg("version").none());
}

}  // namespace tessera::python
