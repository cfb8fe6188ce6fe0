#include "tessera/index/lifecycle.h"

#include <fstream>
#include <set>
#include <sstream>

#include "tessera/dataset/new_files.h"
#include "tessera/dataset/operation.h"
#include "tessera/format/parse_message.h"
#include "tessera/format/paths.h"
#include "tessera/index/build_context.h"
#include "tessera/index/segment_files.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/framed_file.h"
#include "tessera/io/replace_file.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/operation_control.h"

namespace tessera::index {

namespace {

bool SameParams(const google::protobuf::Map<std::string, std::string>& stored,
                const Params& params) {
  if (static_cast<size_t>(stored.size()) != params.size()) return false;
  for (const auto& [key, value] : params) {
    auto found = stored.find(key);
    if (found == stored.end() || found->second != value) return false;
  }
  return true;
}

std::string DescribeDefinition(const format::IndexDef& definition, const std::string& column) {
  const Params params(definition.params().begin(), definition.params().end());
  return definition.family() + " on '" + column + "' (" + DescribeParams(params) + ")";
}

// What differs between `existing` and the requested definition, "" when nothing does:
// "column 'a' (requested 'b')", "type BTREE (requested BITMAP)", "num_partitions = 64
// (requested 32)", "num_bits absent (requested 4)"; the differences joined by "; ".
std::string DescribeDifference(const dataset::Dataset& dataset, const format::IndexDef& existing,
                               const ResolvedSpec& requested) {
  std::vector<std::string> differences;
  if (existing.field_id() != requested.field_id) {
    differences.push_back(Concat("column '", ColumnOfField(dataset, existing.field_id()),
                                 "' (requested '",
                                 dataset.schema()->field(requested.column_index)->name(), "')"));
  }
  if (existing.family() != requested.family->name()) {
    differences.push_back(
        Concat("type ", existing.family(), " (requested ", requested.family->name(), ")"));
  }
  // Parameters of two families are not comparable: the family names the difference.
  std::set<std::string> keys;
  if (!differences.empty() && existing.family() != requested.family->name()) {
    return differences.size() == 1 ? differences[0] : differences[0] + "; " + differences[1];
  }
  for (const auto& [key, value] : existing.params()) keys.insert(key);
  for (const auto& [key, value] : requested.params) keys.insert(key);
  for (const auto& key : keys) {
    const auto stored = existing.params().find(key);
    const auto wanted = requested.params.find(key);
    const std::string have = stored == existing.params().end() ? "" : stored->second;
    const std::string want = wanted == requested.params.end() ? "" : wanted->second;
    if (stored != existing.params().end() && wanted != requested.params.end() && have == want) {
      continue;
    }
    differences.push_back(Concat(key, stored == existing.params().end() ? " absent" : " = " + have,
                                 " (requested ", wanted == requested.params.end() ? "absent" : want,
                                 ")"));
  }
  std::string text;
  for (const auto& difference : differences) text += (text.empty() ? "" : "; ") + difference;
  return text;
}

// The existing definition named `name` (ignoring case), null if none; Ambiguous if several.
arrow::Result<const format::IndexDef*> FindDefinition(const dataset::Dataset& dataset,
                                                      std::string_view name) {
  const auto found = dataset::FindIndexes(dataset.manifest(), name);
  if (found.size() > 1) {
    return Error(ErrorKind::kAmbiguous, "dataset ", dataset.uri(), " has ", found.size(),
                 " indexes named '", name,
                 "' differing only by case, which tessera cannot tell apart (another tool wrote "
                 "them); open a version from before the second one was added");
  }
  if (found.empty()) return nullptr;
  return &dataset.manifest().indexes(found[0]);
}

std::vector<format::Fragment> AllFragments(const dataset::Dataset& dataset) {
  return {dataset.manifest().fragments().begin(), dataset.manifest().fragments().end()};
}

// A segment built for another dataset covers other rows under the same fragment ids. Equal
// identities pass, including two unknown ones (manifests from before dataset_uuid existed).
arrow::Status CheckDatasetIdentity(const dataset::Dataset& dataset,
                                   const format::SegmentMeta& segment) {
  const std::string& ours = dataset.manifest().dataset_uuid();
  if (segment.dataset_uuid() == ours) return arrow::Status::OK();
  auto describe = [](const std::string& uuid) {
    return uuid.empty() ? std::string("a dataset of unknown identity")
                        : "dataset " + format::Printable(uuid);
  };
  return InvalidArgument("segment ", segment.uuid(), " was built for ",
                         describe(segment.dataset_uuid()), ", not for dataset ", dataset.uri(),
                         " (", describe(ours),
                         "); build the segment on this dataset with `tessera index build-segment`");
}

std::vector<std::string> SegmentUuids(const format::IndexDef& definition) {
  std::vector<std::string> uuids;
  for (const auto& segment : definition.segments()) uuids.push_back(segment.uuid());
  return uuids;
}

}  // namespace

bool IsSystemIndexName(std::string_view name) { return name.substr(0, 2) == "__"; }

namespace {

// What CreateIndex decides before it builds: the resolved spec and the segments it replaces,
// or (no_op) that an if_not_exists index of this definition exists. Errors are CreateIndex's.
struct CreatePlan {
  ResolvedSpec resolved;
  std::vector<std::string> replaced;
  bool no_op = false;
};

arrow::Result<CreatePlan> PlanCreate(const dataset::Dataset& dataset, const IndexSpec& spec,
                                     const CreateIndexOptions& options) {
  if (options.if_not_exists && options.replace) {
    return InvalidArgument("if_not_exists and replace exclude each other");
  }
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(dataset, spec));
  ARROW_ASSIGN_OR_RAISE(const format::IndexDef* existing, FindDefinition(dataset, spec.name));
  std::vector<std::string> replaced;
  if (existing != nullptr) {
    const bool same = existing->field_id() == resolved.field_id &&
                      existing->family() == resolved.family->name() &&
                      SameParams(existing->params(), resolved.params);
    if (options.if_not_exists) {
      if (same) return CreatePlan{std::move(resolved), {}, /*no_op=*/true};
      return Error(ErrorKind::kDefinitionMismatch, "index '", existing->name(), "' exists as ",
                   DescribeDefinition(*existing, ColumnOfField(dataset, existing->field_id())),
                   ", not as requested: ", DescribeDifference(dataset, *existing, resolved),
                   "; drop it or use replace");
    }
    if (!options.replace) {
      if (existing->name() != spec.name) {
        return AlreadyExists("index name '", spec.name,
                             "' differs only by case from existing "
                             "index '",
                             existing->name(), "'; index names ignore case");
      }
      return AlreadyExists("index '", spec.name, "' already exists on dataset ", dataset.uri(),
                           "; use replace to rebuild it or if_not_exists to keep it");
    }
    replaced = SegmentUuids(*existing);
  }
  return CreatePlan{std::move(resolved), std::move(replaced), /*no_op=*/false};
}

}  // namespace

arrow::Result<bool> CreateIndexChanges(const dataset::Dataset& dataset, const IndexSpec& spec,
                                       const CreateIndexOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanCreate(dataset, spec, options));
  return !plan.no_op;
}

arrow::Result<std::shared_ptr<dataset::Dataset>> CreateIndex(const dataset::Dataset& dataset,
                                                             const IndexSpec& spec,
                                                             const CreateIndexOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanCreate(dataset, spec, options));
  if (plan.no_op) return std::make_shared<dataset::Dataset>(dataset);
  const util::ControlScope control(options.control);
  const ResolvedSpec& resolved = plan.resolved;
  std::vector<format::SegmentMeta> segments;
  if (dataset.manifest().fragments_size() > 0) {
    ARROW_ASSIGN_OR_RAISE(auto segment,
                          BuildOneSegment(dataset, spec, resolved, AllFragments(dataset), nullptr));
    segments.push_back(std::move(segment));
  }
  dataset::IndexChange change;
  change.name = spec.name;
  change.definition = MakeDefinition(spec, resolved, std::move(segments));
  change.removed_segment_uuids = std::move(plan.replaced);
  return CommitIndexChangeWithSegmentFiles(dataset, std::move(change), SegmentOrigin::kBuiltHere);
}

arrow::Result<bool> DropIndexChanges(const dataset::Dataset& dataset, std::string_view name,
                                     bool if_exists) {
  ARROW_ASSIGN_OR_RAISE(const format::IndexDef* existing, FindDefinition(dataset, name));
  if (existing != nullptr) return true;
  if (if_exists) return false;
  return NotFound("dataset ", dataset.uri(), " has no index named '", name,
                  "'; `tessera index list` shows its indexes");
}

arrow::Result<std::shared_ptr<dataset::Dataset>> DropIndex(const dataset::Dataset& dataset,
                                                           std::string_view name, bool if_exists) {
  ARROW_ASSIGN_OR_RAISE(const bool changes, DropIndexChanges(dataset, name, if_exists));
  if (!changes) return std::make_shared<dataset::Dataset>(dataset);
  ARROW_ASSIGN_OR_RAISE(const format::IndexDef* existing, FindDefinition(dataset, name));
  dataset::IndexChange change;
  change.name = existing->name();
  change.removed_segment_uuids = SegmentUuids(*existing);
  return dataset.CommitIndexChange(std::move(change));
}

arrow::Result<Model> TrainModel(const dataset::Dataset& dataset, const IndexSpec& spec,
                                util::OperationControl* control) {
  const util::ControlScope control_scope(control);
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(dataset, spec));
  if (!resolved.family->has_model()) {
    return InvalidArgument("index type ", resolved.family->name(), " has no model to train");
  }
  const util::OperationName operation("training the model of index '" + spec.name + "' on " +
                                      dataset.uri());
  return util::GuardExceptions(util::CurrentOperation(), [&] {
    return resolved.family->Train(MakeBuildInput(dataset, spec, resolved, AllFragments(dataset)));
  });
}

arrow::Result<std::string> EncodeModel(const Model& model, const dataset::Dataset& dataset,
                                       const IndexSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(dataset, spec));
  format::IndexModel record;
  record.set_family(model.family);
  record.set_fingerprint(model.fingerprint);
  record.set_bytes(model.bytes);
  record.set_field_id(resolved.field_id);
  for (const auto& [key, value] : resolved.params) (*record.mutable_params())[key] = value;
  return io::Frame(format::SerializeDeterministically(record));
}

arrow::Result<format::IndexModel> DecodeModel(std::string_view bytes, std::string_view source) {
  const auto buffer = std::make_shared<arrow::Buffer>(
      reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int64_t>(bytes.size()));
  ARROW_ASSIGN_OR_RAISE(auto payload, io::Unframe(*buffer, source));
  format::IndexModel record;
  if (!format::ParseMessage(payload, &record)) {
    return Corrupt("model ", source, " cannot be decoded");
  }
  return record;
}

arrow::Result<Model> ModelFor(const format::IndexModel& record, std::string_view source,
                              const dataset::Dataset& dataset, IndexSpec* spec) {
  Model model{record.family(), record.fingerprint(), record.bytes()};
  const int column = dataset.schema()->GetFieldIndex(spec->column);
  if (column < 0) return model;  // BuildSegment reports the unknown column
  const int32_t field_id = dataset.field_ids()[static_cast<size_t>(column)];
  if (field_id != record.field_id()) {
    return InvalidArgument(source, " was trained on field id ", record.field_id(),
                           ", not on column '", spec->column, "' (field id ", field_id, ")");
  }
  const Params trained(record.params().begin(), record.params().end());
  if (trained.empty()) return model;  // a model that records no parameters
  if (spec->params.empty()) {
    spec->params = trained;
    return model;
  }
  ARROW_ASSIGN_OR_RAISE(const IndexFamily* family, GetFamily(spec->family));
  auto normalized = family->Validate(*dataset.schema()->field(column), spec->params);
  if (!normalized.ok()) return WithContext(normalized.status(), "index '" + spec->name + "'");
  if (*normalized != trained) {
    return InvalidArgument(source, " was trained with ", DescribeParams(trained), ", not with ",
                           DescribeParams(*normalized),
                           "; give the parameters of the training, or none to take them "
                           "from the model");
  }
  return model;
}

arrow::Status WriteModelFile(const std::string& path, const Model& model,
                             const dataset::Dataset& dataset, const IndexSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, EncodeModel(model, dataset, spec));
  return WithContext(io::ReplaceFile(path, bytes), "writing model file " + path);
}

arrow::Result<format::IndexModel> ReadModelRecord(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("model file ", path, " cannot be opened");
  std::stringstream contents;
  contents << in.rdbuf();
  return DecodeModel(contents.str(), path);
}

arrow::Result<Model> ReadModelFile(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto record, ReadModelRecord(path));
  return Model{record.family(), record.fingerprint(), record.bytes()};
}

arrow::Result<Model> ReadModelFileFor(const std::string& path, const dataset::Dataset& dataset,
                                      IndexSpec* spec) {
  ARROW_ASSIGN_OR_RAISE(format::IndexModel record, ReadModelRecord(path));
  return ModelFor(record, "model file " + path, dataset, spec);
}

arrow::Result<format::SegmentMeta> BuildSegment(const dataset::Dataset& dataset,
                                                const IndexSpec& spec,
                                                const std::vector<uint32_t>& fragment_ids,
                                                const Model* model,
                                                util::OperationControl* control) {
  const util::ControlScope control_scope(control);
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(dataset, spec));
  std::vector<format::Fragment> fragments;
  if (fragment_ids.empty()) {
    fragments = AllFragments(dataset);
  } else {
    std::set<uint32_t> wanted(fragment_ids.begin(), fragment_ids.end());
    for (const auto& fragment : dataset.manifest().fragments()) {
      if (wanted.erase(fragment.id()) > 0) fragments.push_back(fragment);
    }
    if (!wanted.empty()) {
      return InvalidArgument("version ", dataset.version(), " of dataset ", dataset.uri(),
                             " has no fragment ", *wanted.begin());
    }
  }
  if (model != nullptr && model->family != resolved.family->name()) {
    return InvalidArgument("the model was trained for ", model->family, ", not ",
                           resolved.family->name());
  }
  return BuildOneSegment(dataset, spec, resolved, std::move(fragments), model);
}

arrow::Result<format::SegmentMeta> MergeSegments(const dataset::Dataset& dataset,
                                                 const std::vector<format::SegmentMeta>& segments,
                                                 util::OperationControl* control) {
  const util::ControlScope control_scope(control);
  if (segments.empty()) return InvalidArgument("no segments to merge");
  ARROW_ASSIGN_OR_RAISE(const IndexFamily* family, GetFamily(segments[0].family()));
  std::vector<SegmentDirectory> directories;
  for (const auto& segment : segments) {
    ARROW_ASSIGN_OR_RAISE(auto directory, DirectoryOf(dataset.storage(), segment));
    ARROW_RETURN_NOT_OK(CheckDatasetIdentity(dataset, segment));
    if (segment.family() != segments[0].family() || segment.field_id() != segments[0].field_id()) {
      return InvalidArgument("segments of different index types or columns cannot be merged (",
                             segments[0].uuid(), ", ", segment.uuid(), ")");
    }
    directories.push_back(std::move(directory));
  }
  util::BeginPhase("merging", segments.size(), "segments");
  ARROW_ASSIGN_OR_RAISE(auto out, NewSegmentDirectory(dataset.storage()));
  const util::OperationName operation("merging " + std::to_string(segments.size()) +
                                      " segments of index '" + segments[0].index_name() + "'");
  auto merged =
      util::GuardExceptions(util::CurrentOperation(), [&]() -> arrow::Result<format::SegmentMeta> {
        auto segment = family->Merge(segments, directories, out);
        if (segment.ok()) ARROW_RETURN_NOT_OK(util::AdvanceProgress(segments.size()));
        return segment;
      });
  if (!merged.ok()) RemoveSegmentDirectory(out);
  ARROW_RETURN_NOT_OK(merged.status());
  *merged->mutable_params() = segments[0].params();
  merged->set_dataset_uuid(dataset.manifest().dataset_uuid());
  return *std::move(merged);
}

arrow::Result<std::shared_ptr<dataset::Dataset>> CommitSegments(
    const dataset::Dataset& dataset, const IndexSpec& spec,
    const std::vector<format::SegmentMeta>& segments, const std::vector<std::string>& replaced) {
  if (spec.params.empty() && !segments.empty() && !segments[0].params().empty()) {
    IndexSpec with_params = spec;
    with_params.params = Params(segments[0].params().begin(), segments[0].params().end());
    return CommitSegments(dataset, with_params, segments, replaced);
  }
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(dataset, spec));
  ARROW_ASSIGN_OR_RAISE(const format::IndexDef* existing, FindDefinition(dataset, spec.name));
  if (existing != nullptr &&
      (existing->field_id() != resolved.field_id || existing->family() != resolved.family->name() ||
       !SameParams(existing->params(), resolved.params))) {
    return Error(ErrorKind::kDefinitionMismatch, "index '", existing->name(), "' exists as ",
                 DescribeDefinition(*existing, ColumnOfField(dataset, existing->field_id())),
                 "; the segments were built for a different definition");
  }
  std::set<uint32_t> fragment_ids;
  for (const auto& fragment : dataset.manifest().fragments()) fragment_ids.insert(fragment.id());
  const BuildInput definition_input = MakeBuildInput(dataset, spec, resolved, {});
  std::set<std::string> uuids;
  for (const auto& segment : segments) {
    // The uuid names the directory read below: checked before anything else.
    ARROW_ASSIGN_OR_RAISE(SegmentDirectory directory, DirectoryOf(dataset.storage(), segment));
    const std::string where = "segment " + segment.uuid();
    if (segment.index_format_version() != kIndexFormatVersion) {
      return Unsupported(where, " has index format version ", segment.index_format_version(),
                         "; this build of tessera commits version ", kIndexFormatVersion,
                         " (segment files with block checksums): build the segment again with "
                         "this tessera (`tessera index build-segment`)");
    }
    ARROW_RETURN_NOT_OK(CheckDatasetIdentity(dataset, segment));
    if (!uuids.insert(segment.uuid()).second) {
      return InvalidArgument(where, " is listed twice");
    }
    if (segment.family() != resolved.family->name()) {
      return InvalidArgument(where, " is a ", segment.family(), " segment; index '", spec.name,
                             "' is ", resolved.family->name());
    }
    if (segment.field_id() != resolved.field_id) {
      return InvalidArgument(where, " indexes field id ", segment.field_id(), ", not column '",
                             spec.column, "' (field id ", resolved.field_id, ")");
    }
    if (!SameParams(segment.params(), resolved.params)) {
      return Error(ErrorKind::kDefinitionMismatch, where,
                   " was built with other parameters than index '", spec.name, "'");
    }
    ARROW_ASSIGN_OR_RAISE(bool present, dataset.storage()->Exists(directory.path));
    if (!present) {
      return NotFound(where, " has no directory ", directory.path, " in dataset ", dataset.uri());
    }
    // A bitmap given to commit is an argument; damaged or not, the caller must fix it.
    auto decoded = DecodeFragmentBitmap(segment);
    if (!decoded.ok()) return InvalidArgument(decoded.status().message());
    const Roaring& covered = *decoded;
    if (covered.isEmpty()) {
      return InvalidArgument(where, " covers no fragment; a segment must cover at least one");
    }
    for (uint32_t id : covered) {
      if (fragment_ids.count(id) == 0) {
        return InvalidArgument(where, " covers fragment ", id, ", which version ",
                               dataset.version(), " of dataset ", dataset.uri(), " does not have");
      }
    }
    // Files missing (a cleanup that removed them, say) are the commit's retryable conflict, as
    // at publish time; only then is what the metadata claims (family, model fingerprint)
    // checked against what the files hold.
    ARROW_RETURN_NOT_OK(dataset::CheckNewFilesExist(
        *dataset.storage(), FilesOfSegment(*resolved.family, segment), "commit-segments"));
    ARROW_RETURN_NOT_OK(resolved.family->Verify(definition_input, segment, directory));
  }
  std::vector<format::SegmentMeta> all;
  std::set<std::string> removing(replaced.begin(), replaced.end());
  if (existing != nullptr) {
    for (const auto& segment : existing->segments()) {
      if (uuids.count(segment.uuid()) > 0) {
        return InvalidArgument("segment ", segment.uuid(), " is already part of index '",
                               existing->name(), "'");
      }
      if (removing.erase(segment.uuid()) == 0) all.push_back(segment);
    }
  }
  if (!removing.empty()) {
    return NotFound("segment ", *removing.begin(), " to replace is not part of index '", spec.name,
                    "'");
  }
  all.insert(all.end(), segments.begin(), segments.end());
  IndexSpec named = spec;
  if (existing != nullptr) named.name = existing->name();
  dataset::IndexChange change;
  change.name = named.name;
  change.definition = MakeDefinition(named, resolved, std::move(all));
  if (existing != nullptr) change.definition->set_created_at_micros(existing->created_at_micros());
  change.removed_segment_uuids = replaced;
  return CommitIndexChangeWithSegmentFiles(dataset, std::move(change), SegmentOrigin::kHandedIn);
}

}  // namespace tessera::index
