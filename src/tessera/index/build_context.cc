#include "tessera/index/build_context.h"

#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/scanner.h"
#include "tessera/index/segment_files.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/fault_injection.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/operation_control.h"

namespace tessera::index {

namespace {

arrow::Status ValidateIndexName(std::string_view name) {
  if (name.empty() || name.size() > 128) {
    return InvalidArgument("index name '", name, "' must have 1 to 128 characters");
  }
  for (char c : name) {
    const bool allowed =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    if (!allowed) {
      return InvalidArgument("index name '", name,
                             "' may contain only letters, digits, '_', '-' "
                             "and '.'");
    }
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<ResolvedSpec> ResolveSpec(const dataset::Dataset& dataset, const IndexSpec& spec) {
  ARROW_RETURN_NOT_OK(ValidateIndexName(spec.name));
  ResolvedSpec resolved;
  ARROW_ASSIGN_OR_RAISE(resolved.family, GetFamily(spec.family));
  resolved.column_index = dataset.schema()->GetFieldIndex(spec.column);
  if (resolved.column_index < 0) {
    return NotFound("dataset ", dataset.uri(), " has no column '", spec.column,
                    "' to index; its columns are: ", dataset::ColumnNames(*dataset.schema()));
  }
  resolved.field_id = dataset.field_ids()[static_cast<size_t>(resolved.column_index)];
  auto params =
      resolved.family->Validate(*dataset.schema()->field(resolved.column_index), spec.params);
  if (!params.ok()) return WithContext(params.status(), "index '" + spec.name + "'");
  resolved.params = std::move(*params);
  return resolved;
}

BuildInput MakeBuildInput(const dataset::Dataset& dataset, const IndexSpec& spec,
                          const ResolvedSpec& resolved, std::vector<format::Fragment> fragments) {
  BuildInput input;
  input.storage = dataset.storage();
  input.schema = dataset.schema();
  input.column_index = resolved.column_index;
  input.field_id = resolved.field_id;
  input.dataset_version = dataset.version();
  input.fragments = std::move(fragments);
  input.index_name = spec.name;
  input.params = resolved.params;
  return input;
}

arrow::Result<format::SegmentMeta> BuildOneSegment(const dataset::Dataset& dataset,
                                                   const IndexSpec& spec,
                                                   const ResolvedSpec& resolved,
                                                   std::vector<format::Fragment> fragments,
                                                   const Model* model) {
  BuildInput input = MakeBuildInput(dataset, spec, resolved, std::move(fragments));
  uint64_t total_rows = 0;
  for (const auto& fragment : input.fragments) total_rows += fragment.physical_rows();
  util::BeginPhase("building", total_rows, "rows");
  ARROW_ASSIGN_OR_RAISE(auto directory, NewSegmentDirectory(dataset.storage()));
  // The entry point of every build (create, build-segment, optimize): an allocation that fails
  // here or in a worker is ResourceExhausted naming the build.
  const util::OperationName operation("building a segment of index '" + spec.name + "' over " +
                                      std::to_string(input.fragments.size()) + " fragments of " +
                                      dataset.uri());
  auto segment =
      util::GuardExceptions(util::CurrentOperation(), [&]() -> arrow::Result<format::SegmentMeta> {
        auto built = resolved.family->Build(input, model, directory);
        // The last point before a caller commits the segment (create, optimize): a build
        // cancelled now leaves nothing.
        if (built.ok()) ARROW_RETURN_NOT_OK(util::CheckCancelled());
        return built;
      });
  if (!segment.ok()) {
    RemoveSegmentDirectory(directory);  // a failed build leaves no orphan
    return segment.status();
  }
  io::CrashPoint(io::kCrashAfterSegmentBuild);
  for (const auto& [key, value] : resolved.params) (*segment->mutable_params())[key] = value;
  segment->set_dataset_uuid(dataset.manifest().dataset_uuid());
  return *std::move(segment);
}

std::string ColumnOfField(const dataset::Dataset& dataset, int32_t field_id) {
  const auto& ids = dataset.field_ids();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == field_id) return dataset.schema()->field(static_cast<int>(i))->name();
  }
  return "";
}

format::IndexDef MakeDefinition(const IndexSpec& spec, const ResolvedSpec& resolved,
                                std::vector<format::SegmentMeta> segments) {
  format::IndexDef definition;
  definition.set_name(spec.name);
  definition.set_field_id(resolved.field_id);
  definition.set_family(std::string(resolved.family->name()));
  for (const auto& [key, value] : resolved.params) (*definition.mutable_params())[key] = value;
  definition.set_created_at_micros(dataset::NowMicros());
  for (auto& segment : segments) *definition.add_segments() = std::move(segment);
  return definition;
}

}  // namespace tessera::index
