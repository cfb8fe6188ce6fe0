// tessera._native: the index lifecycle — create, drop, optimize, inspection, and the
// distributed workflow (train a model once, build segments anywhere, merge, commit once).
// Models travel as bytes (index::EncodeModel) and segments as the JSON that the CLI's
// build-segment prints, so that a model or segment made in one process is used in another.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arrow_streams.h"
#include "bindings.h"
#include "control.h"
#include "errors.h"
#include "tessera/index/index_family.h"
#include "tessera/index/inspection_tables.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"

namespace nb = nanobind;

namespace tessera::python {
namespace {

index::IndexSpec Spec(std::string name, std::string column, std::string family,
                      index::Params params) {
  return index::IndexSpec{std::move(name), std::move(column), std::move(family), std::move(params)};
}

std::vector<format::SegmentMeta> SegmentsOf(const std::vector<std::string>& json) {
  std::vector<format::SegmentMeta> segments;
  for (const auto& text : json) {
    auto parsed = Unwrap(index::SegmentsFromJson(text));
    segments.insert(segments.end(), parsed.begin(), parsed.end());
  }
  return segments;
}

nb::capsule BatchStream(std::shared_ptr<arrow::RecordBatch> batch) {
  return ExportTable(Unwrap(arrow::Table::FromRecordBatches({std::move(batch)})));
}

}  // namespace

void BindIndexes(nb::module_& module) {
  module.def(
      "family_has_model",
      [](const std::string& family) { return Unwrap(index::GetFamily(family))->has_model(); },
      nb::arg("family"), "Whether segments of `family` are built from a trained model.");
  module.def(
      "create_index",
      [](const DatasetHandle& self, std::string name, std::string column, std::string family,
         index::Params params, bool replace, bool if_not_exists, Control* control) {
        const auto spec =
            Spec(std::move(name), std::move(column), std::move(family), std::move(params));
        index::CreateIndexOptions options;
        options.replace = replace;
        options.if_not_exists = if_not_exists;
        options.control = ControlOf(control);
        return DatasetHandle::Of(
            Unwrap(WithoutGil([&] { return index::CreateIndex(self.dataset(), spec, options); })));
      },
      nb::arg("dataset"), nb::arg("name"), nb::arg("column"), nb::arg("family"), nb::arg("params"),
      nb::arg("replace"), nb::arg("if_not_exists"), nb::arg("control").none());
  module.def(
      "drop_index",
      [](const DatasetHandle& self, const std::string& name, bool if_exists) {
        return DatasetHandle::Of(
            Unwrap(WithoutGil([&] { return index::DropIndex(self.dataset(), name, if_exists); })));
      },
      nb::arg("dataset"), nb::arg("name"), nb::arg("if_exists"));
  module.def(
      "list_indexes",
      [](const DatasetHandle& self, bool include_system) {
        return BatchStream(
            Unwrap(index::IndexesBatch(index::ListIndexes(self.dataset(), include_system))));
      },
      nb::arg("dataset"), nb::arg("include_system"));
  module.def(
      "index_entries",
      [](const DatasetHandle& self, std::optional<std::string> name) {
        auto entries = index::ListSegments(self.dataset());
        if (name) {
          // Checks the name (NotFound) and takes the index's display spelling.
          const auto summary = Unwrap(index::DescribeIndex(self.dataset(), *name));
          std::erase_if(entries, [&](const auto& entry) { return entry.first != summary.name; });
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        return BatchStream(
            Unwrap(index::SegmentsBatch(entries, /*with_index=*/true, /*with_details=*/true)));
      },
      nb::arg("dataset"), nb::arg("name").none());
  module.def(
      "optimize",
      [](const DatasetHandle& self, std::optional<std::string> name, const std::string& merge,
         bool retrain, Control* control) {
        index::OptimizeOptions options;
        options.name = std::move(name);
        options.merge = Unwrap(index::MergePolicy::Parse(merge));
        options.retrain = retrain;
        options.control = ControlOf(control);
        auto report =
            Unwrap(WithoutGil([&] { return index::OptimizeIndexes(self.dataset(), options); }));
        return std::make_tuple(DatasetHandle::Of(report.dataset), report.segments_built,
                               report.segments_merged, report.segments_removed);
      },
      nb::arg("dataset"), nb::arg("name").none(), nb::arg("merge"), nb::arg("retrain"),
      nb::arg("control").none());

  module.def(
      "train_model",
      [](const DatasetHandle& self, std::string column, std::string family, index::Params params,
         Control* control) {
        // The name only appears in messages; the model belongs to no index yet.
        const auto spec = Spec("model", std::move(column), std::move(family), std::move(params));
        auto bytes = Unwrap(WithoutGil([&]() -> arrow::Result<std::string> {
          ARROW_ASSIGN_OR_RAISE(auto model,
                                index::TrainModel(self.dataset(), spec, ControlOf(control)));
          return index::EncodeModel(model, self.dataset(), spec);
        }));
        return nb::bytes(bytes.data(), bytes.size());
      },
      nb::arg("dataset"), nb::arg("column"), nb::arg("family"), nb::arg("params"),
      nb::arg("control").none());
  module.def(
      "build_segment",
      [](const DatasetHandle& self, std::string name, std::string column, std::string family,
         index::Params params, std::vector<uint32_t> fragment_ids,
         std::optional<nb::bytes> model_bytes, Control* control) {
        auto spec = Spec(std::move(name), std::move(column), std::move(family), std::move(params));
        std::optional<index::Model> model;
        if (model_bytes) {
          const auto record = Unwrap(index::DecodeModel(
              std::string_view(model_bytes->c_str(), model_bytes->size()), "bytes"));
          model = Unwrap(index::ModelFor(record, "the model", self.dataset(), &spec));
        }
        auto segment = Unwrap(WithoutGil([&] {
          return index::BuildSegment(self.dataset(), spec, fragment_ids, model ? &*model : nullptr,
                                     ControlOf(control));
        }));
        return index::SegmentToJson(segment);
      },
      nb::arg("dataset"), nb::arg("name"), nb::arg("column"), nb::arg("family"), nb::arg("params"),
      nb::arg("fragment_ids"), nb::arg("model").none(), nb::arg("control").none());
  module.def(
      "merge_segments",
      [](const DatasetHandle& self, const std::vector<std::string>& segments_json,
         Control* control) {
        const auto segments = SegmentsOf(segments_json);
        auto merged = Unwrap(WithoutGil(
            [&] { return index::MergeSegments(self.dataset(), segments, ControlOf(control)); }));
        return index::SegmentToJson(merged);
      },
      nb::arg("dataset"), nb::arg("segments"), nb::arg("control").none());
  module.def(
      "commit_segments",
      [](const DatasetHandle& self, std::string name, std::string column, std::string family,
         index::Params params, const std::vector<std::string>& segments_json,
         const std::vector<std::string>& replaced) {
        const auto spec =
            Spec(std::move(name), std::move(column), std::move(family), std::move(params));
        const auto segments = SegmentsOf(segments_json);
        return DatasetHandle::Of(Unwrap(WithoutGil(
            [&] { return index::CommitSegments(self.dataset(), spec, segments, replaced); })));
      },
      nb::arg("dataset"), nb::arg("name"), nb::arg("column"), nb::arg("family"), nb::arg("params"),
      nb::arg("segments"), nb::arg("replaced"));
}

}  // namespace tessera::python
