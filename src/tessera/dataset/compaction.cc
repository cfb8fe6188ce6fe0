#include "tessera/dataset/compaction.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "tessera/dataset/commit.h"
#include "tessera/dataset/external_files.h"
#include "tessera/dataset/fragment_writer.h"
#include "tessera/dataset/new_files.h"
#include "tessera/dataset/operation.h"
#include "tessera/dataset/scanner.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::dataset {

namespace {

uint64_t DeletedRows(const format::Fragment& fragment) {
  return fragment.has_deletion() ? fragment.deletion().num_deleted() : 0;
}

}  // namespace

uint64_t CompactionPlan::fragments() const {
  uint64_t count = 0;
  for (const auto& group : groups) count += group.fragment_ids.size();
  return count;
}

uint64_t CompactionPlan::live_rows() const {
  uint64_t rows = 0;
  for (const auto& group : groups) rows += group.live_rows;
  return rows;
}

uint64_t CompactionPlan::deleted_rows() const {
  uint64_t rows = 0;
  for (const auto& group : groups) rows += group.deleted_rows;
  return rows;
}

arrow::Status ValidateCompactionOptions(const CompactionOptions& options) {
  constexpr uint64_t kMaxRows = std::numeric_limits<uint32_t>::max();
  if (options.target_rows_per_fragment < 1 || options.target_rows_per_fragment > kMaxRows) {
    return InvalidArgument("compaction option target_rows_per_fragment must be in [1, ", kMaxRows,
                           "], got ", options.target_rows_per_fragment);
  }
  if (!(options.max_deleted_fraction >= 0 && options.max_deleted_fraction <= 1)) {
    return InvalidArgument("compaction option max_deleted_fraction must be in [0, 1], got ",
                           options.max_deleted_fraction);
  }
  return arrow::Status::OK();
}

arrow::Result<CompactionPlan> PlanCompaction(const Dataset& dataset,
                                             const CompactionOptions& options) {
  ARROW_RETURN_NOT_OK(ValidateCompactionOptions(options));
  const uint64_t target = options.target_rows_per_fragment;
  CompactionPlan plan;
  plan.version = dataset.version();
  CompactionGroup group;
  bool over_deleted_fraction = false;  // of the group's single fragment
  const auto close_group = [&] {
    if (group.fragment_ids.size() >= 2 ||
        (group.fragment_ids.size() == 1 && over_deleted_fraction)) {
      plan.groups.push_back(group);
    }
    group = CompactionGroup();
    over_deleted_fraction = false;
  };
  for (const auto& fragment : dataset.manifest().fragments()) {
    if (IsExternal(fragment)) {
      // Rewriting it would copy the file the dataset references in order not to copy it; its
      // deleted rows stay masked by its deletion vector.
      close_group();
      continue;
    }
    const uint64_t deleted = DeletedRows(fragment);
    const uint64_t live = fragment.physical_rows() - std::min(deleted, fragment.physical_rows());
    const bool too_deleted =
        fragment.physical_rows() > 0 &&
        static_cast<double>(deleted) >
            options.max_deleted_fraction * static_cast<double>(fragment.physical_rows());
    if (live >= target && !too_deleted) {
      close_group();  // a large, mostly live fragment breaks the run
      continue;
    }
    if (!group.fragment_ids.empty() && group.live_rows + live > target) close_group();
    group.fragment_ids.push_back(fragment.id());
    group.live_rows += live;
    group.deleted_rows += deleted;
    over_deleted_fraction = group.fragment_ids.size() == 1 && too_deleted;
  }
  close_group();
  return plan;
}

arrow::Result<CompactionResult> Compact(const std::shared_ptr<Dataset>& snapshot,
                                        const CompactionOptions& options,
                                        const WriteOptions& write_options) {
  const Dataset& dataset = *snapshot;
  CompactionResult result;
  ARROW_ASSIGN_OR_RAISE(result.plan, PlanCompaction(dataset, options));
  result.dataset = snapshot;
  if (result.plan.groups.empty()) return result;

  const util::ControlScope control(write_options.control);
  util::BeginPhase("rewriting", result.plan.live_rows(), "rows");
  WriteOptions writing = write_options;
  writing.max_rows_per_file = options.target_rows_per_fragment;
  std::map<uint32_t, const format::Fragment*> by_id;
  for (const auto& fragment : dataset.manifest().fragments()) by_id[fragment.id()] = &fragment;

  std::vector<RewriteOperation::Group> groups;
  std::vector<format::Fragment> written;  // so far, removed if a later group fails
  for (const auto& planned : result.plan.groups) {
    auto manifest = std::make_shared<format::Manifest>(dataset.manifest());
    manifest->clear_fragments();
    for (uint32_t id : planned.fragment_ids) *manifest->add_fragments() = *by_id.at(id);
    auto fragments = [&]() -> arrow::Result<std::vector<format::Fragment>> {
      ARROW_ASSIGN_OR_RAISE(
          auto scanner, MakeScanner(dataset.storage(), manifest, dataset.schema(), ScanOptions{}));
      return WriteFragments(*dataset.storage(), *scanner, dataset.schema(), writing);
    }();
    if (!fragments.ok()) {
      RemoveNewFiles(*dataset.storage(), DataFilesOf(written));
      return WithContext(fragments.status(), "compacting fragments of dataset " + dataset.uri());
    }
    written.insert(written.end(), fragments->begin(), fragments->end());
    result.fragments_written += fragments->size();
    groups.push_back({planned.fragment_ids, std::move(*fragments)});
  }
  if (arrow::Status cancelled = util::CheckCancelled(); !cancelled.ok()) {
    RemoveNewFiles(*dataset.storage(), DataFilesOf(written));
    return cancelled;
  }
  RewriteOperation operation(std::move(groups));
  ARROW_ASSIGN_OR_RAISE(
      auto committed,
      CommitOperation(*dataset.storage(), std::make_shared<format::Manifest>(dataset.manifest()),
                      operation, write_options));
  ARROW_ASSIGN_OR_RAISE(result.dataset, Dataset::FromManifest(dataset.storage(), committed));
  return result;
}

}  // namespace tessera::dataset
