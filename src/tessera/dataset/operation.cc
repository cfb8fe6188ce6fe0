#include "tessera/dataset/operation.h"

#include <map>
#include <optional>
#include <set>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/deletion_vectors.h"
#include "tessera/dataset/row_matcher.h"
#include "tessera/dataset/schema_rules.h"
#include "tessera/format/paths.h"
#include "tessera/io/block_checksums.h"
#include "tessera/io/roaring_check.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

bool HasOverwrite(const std::vector<format::Transaction>& theirs) {
  for (const auto& transaction : theirs) {
    if (transaction.has_overwrite()) return true;
  }
  return false;
}

// Appends `fragments` to `manifest`, numbering them from next_fragment_id. Fragment ids are
// never reused, so an index segment built for fragment 7 cannot silently cover other rows.
void AddFragments(const std::vector<format::Fragment>& fragments, format::Manifest* manifest) {
  for (const auto& fragment : fragments) {
    format::Fragment* added = manifest->add_fragments();
    *added = fragment;
    added->set_id(manifest->next_fragment_id());
    manifest->set_next_fragment_id(manifest->next_fragment_id() + 1);
  }
}

// Fragments whose rows a concurrent delete changed.
std::set<uint32_t> FragmentsDeletedFrom(const std::vector<format::Transaction>& theirs) {
  std::set<uint32_t> touched;
  for (const auto& transaction : theirs) {
    if (!transaction.has_delete_()) continue;
    for (uint32_t id : transaction.delete_().updated_fragment_ids()) touched.insert(id);
    for (uint32_t id : transaction.delete_().removed_fragment_ids()) touched.insert(id);
  }
  return touched;
}

// Fragments a concurrent compaction replaced.
std::set<uint32_t> FragmentsRewrittenBy(const std::vector<format::Transaction>& theirs) {
  std::set<uint32_t> rewritten;
  for (const auto& transaction : theirs) {
    if (!transaction.has_rewrite()) continue;
    for (const auto& group : transaction.rewrite().groups()) {
      rewritten.insert(group.old_fragment_ids().begin(), group.old_fragment_ids().end());
    }
  }
  return rewritten;
}

}  // namespace

// --- Append ---

void AppendOperation::Describe(format::Transaction* transaction) const {
  auto* append = transaction->mutable_append();
  for (const auto& fragment : fragments_) *append->add_fragments() = fragment;
}

arrow::Result<format::Manifest> AppendOperation::Apply(const format::Manifest& base) const {
  format::Manifest manifest = base;
  AddFragments(fragments_, &manifest);
  return manifest;
}

arrow::Status AppendOperation::Rebase(const std::vector<format::Transaction>& theirs,
                                      const format::Manifest& latest) {
  if (HasOverwrite(theirs)) {
    return CommitConflict(/*retryable=*/false,
                          "the dataset was overwritten by a concurrent commit (now version ",
                          latest.version(),
                          "); the appended rows were not committed. Read the new version and "
                          "decide whether to append to it");
  }
  return arrow::Status::OK();
}

NewFiles AppendOperation::new_files() const { return DataFilesOf(fragments_); }

// --- Overwrite / create ---

void OverwriteOperation::Describe(format::Transaction* transaction) const {
  auto* overwrite = transaction->mutable_overwrite();
  for (const auto& fragment : fragments_) *overwrite->add_fragments() = fragment;
}

arrow::Result<format::Manifest> OverwriteOperation::Apply(const format::Manifest& base) const {
  format::Manifest manifest = base;
  manifest.clear_fragments();
  std::optional<format::SchemaWithIds> previous;
  if (base.has_schema()) {
    ARROW_ASSIGN_OR_RAISE(previous, format::DecodeSchema(base.schema()));
  }
  // The rows the indexes covered are gone; so are the indexes.
  manifest.clear_indexes();
  int32_t next_field_id = base.next_field_id();
  const format::SchemaWithIds schema =
      AssignFieldIds(schema_, previous ? &*previous : nullptr, &next_field_id);
  ARROW_ASSIGN_OR_RAISE(*manifest.mutable_schema(), format::EncodeSchema(schema));
  manifest.set_next_field_id(next_field_id);
  AddFragments(fragments_, &manifest);
  return manifest;
}

arrow::Status OverwriteOperation::Rebase(const std::vector<format::Transaction>&,
                                         const format::Manifest& latest) {
  if (is_create_) {
    return AlreadyExists("a concurrent writer created the dataset first (version ",
                         latest.version(), "); append to it instead");
  }
  // An overwrite does not depend on what it replaces.
  return arrow::Status::OK();
}

NewFiles OverwriteOperation::new_files() const { return DataFilesOf(fragments_); }

// --- Delete ---

arrow::Result<std::unique_ptr<DeleteOperation>> DeleteOperation::Plan(
    std::shared_ptr<io::Storage> storage, const format::Manifest& base,
    const std::shared_ptr<arrow::Schema>& schema, std::string predicate, RowFinder finder,
    const DeletionVectors* base_deletions, std::string description) {
  ARROW_ASSIGN_OR_RAISE(auto filter, expr::Filter::Parse(predicate, schema));
  if (!finder) {
    finder = [storage, schema, filter](const format::Fragment& fragment, const Roaring& deleted) {
      return FindMatchingRows(*storage, fragment, schema, *filter, deleted);
    };
  }
  std::unique_ptr<DeleteOperation> operation(
      new DeleteOperation(std::move(storage), std::move(filter), std::move(finder)));
  operation->description_ = std::move(description);
  for (const auto& fragment : base.fragments()) {
    std::shared_ptr<const Roaring> deleted;
    if (base_deletions != nullptr) {
      auto loaded = base_deletions->Get(fragment);
      if (!loaded.ok()) {
        RemoveNewFiles(*operation->storage_, operation->new_files());
        return loaded.status();
      }
      deleted = *std::move(loaded);
    }
    auto planned = operation->PlanFragment(base, fragment, std::move(deleted));
    if (!planned.ok()) {
      // The deletion files written so far will never be committed.
      RemoveNewFiles(*operation->storage_, operation->new_files());
      return planned;
    }
  }
  return operation;
}

void DeleteOperation::DropPlan(uint32_t fragment_id) {
  auto plan = plans_.find(fragment_id);
  if (plan == plans_.end()) return;
  if (!plan->second.deletion_file.path().empty()) {
    (void)storage_->DeleteFile(plan->second.deletion_file.path());
  }
  plans_.erase(plan);
}

NewFiles DeleteOperation::new_files() const {
  NewFiles added;
  for (const auto& [fragment_id, plan] : plans_) {
    if (!plan.deletion_file.path().empty()) added.files.push_back(plan.deletion_file.path());
  }
  return added;
}

arrow::Status DeleteOperation::PlanFragment(const format::Manifest& manifest,
                                            const format::Fragment& fragment,
                                            std::shared_ptr<const Roaring> deleted) {
  DropPlan(fragment.id());
  if (deleted == nullptr) {
    ARROW_ASSIGN_OR_RAISE(deleted, LoadDeletionVector(*storage_, fragment));
  }
  ARROW_ASSIGN_OR_RAISE(Roaring matches, finder_(fragment, *deleted));
  if (matches.isEmpty()) return arrow::Status::OK();
  Roaring all_deleted = *deleted;
  all_deleted |= matches;
  FragmentPlan plan;
  plan.deleted_rows = all_deleted.cardinality();
  if (plan.deleted_rows < fragment.physical_rows()) {
    ARROW_ASSIGN_OR_RAISE(
        plan.deletion_file,
        WriteDeletionVector(*storage_, fragment.id(), manifest.version() + 1, all_deleted));
  }
  plans_[fragment.id()] = std::move(plan);
  return arrow::Status::OK();
}

void DeleteOperation::Describe(format::Transaction* transaction) const {
  auto* description = transaction->mutable_delete_();
  description->set_predicate(description_.empty() ? filter_->text() : description_);
  for (const auto& [fragment_id, plan] : plans_) {
    if (plan.deletion_file.path().empty()) {
      description->add_removed_fragment_ids(fragment_id);
    } else {
      description->add_updated_fragment_ids(fragment_id);
    }
  }
}

arrow::Result<format::Manifest> DeleteOperation::Apply(const format::Manifest& base) const {
  format::Manifest manifest = base;
  manifest.clear_fragments();
  for (const auto& fragment : base.fragments()) {
    auto plan = plans_.find(fragment.id());
    if (plan == plans_.end()) {
      *manifest.add_fragments() = fragment;
    } else if (!plan->second.deletion_file.path().empty()) {
      format::Fragment* updated = manifest.add_fragments();
      *updated = fragment;
      *updated->mutable_deletion() = plan->second.deletion_file;
    }
    // else: every row of the fragment is deleted, so the fragment leaves the manifest.
  }
  return manifest;
}

arrow::Status DeleteOperation::Rebase(const std::vector<format::Transaction>& theirs,
                                      const format::Manifest& latest) {
  if (HasOverwrite(theirs)) {
    return CommitConflict(/*retryable=*/true,
                          "the dataset was overwritten by a concurrent commit (now version ",
                          latest.version(),
                          "); nothing was deleted. Run the delete again on the "
                          "new version if it still applies");
  }
  // Fragments that a concurrent delete touched: our plan was made against their old deletion
  // vector, so it is evaluated again against the current one.
  for (uint32_t id : FragmentsRewrittenBy(theirs)) {
    if (plans_.count(id) == 0) continue;
    return CommitConflict(/*retryable=*/true, "fragment ", id,
                          " was compacted by a concurrent commit (now version ", latest.version(),
                          "); nothing was deleted. Run the delete again on the new version");
  }
  for (uint32_t id : FragmentsDeletedFrom(theirs)) {
    if (plans_.count(id) == 0) continue;
    DropPlan(id);
    for (const auto& fragment : latest.fragments()) {
      if (fragment.id() == id) ARROW_RETURN_NOT_OK(PlanFragment(latest, fragment));
    }
  }
  return arrow::Status::OK();
}

// --- Rewrite (compaction) ---

void RewriteOperation::Describe(format::Transaction* transaction) const {
  auto* rewrite = transaction->mutable_rewrite();
  for (const auto& group : groups_) {
    auto* described = rewrite->add_groups();
    for (uint32_t id : group.old_fragment_ids) described->add_old_fragment_ids(id);
    for (const auto& fragment : group.new_fragments) *described->add_new_fragments() = fragment;
  }
}

arrow::Result<format::Manifest> RewriteOperation::Apply(const format::Manifest& base) const {
  // Which group replaces each old fragment, and whether it is the group's first.
  std::map<uint32_t, std::pair<size_t, bool>> replaced;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const auto& ids = groups_[g].old_fragment_ids;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!replaced.emplace(ids[i], std::make_pair(g, i == 0)).second) {
        return InvalidArgument("a compaction lists fragment ", ids[i], " twice");
      }
    }
  }
  format::Manifest manifest = base;
  manifest.clear_fragments();
  size_t found = 0;
  Roaring live;
  for (const auto& fragment : base.fragments()) {
    auto group = replaced.find(fragment.id());
    if (group == replaced.end()) {
      *manifest.add_fragments() = fragment;
      live.add(fragment.id());
      continue;
    }
    ++found;
    if (!group->second.second) continue;  // its rows are in the group's new fragments
    for (const auto& written : groups_[group->second.first].new_fragments) {
      format::Fragment* added = manifest.add_fragments();
      *added = written;
      added->set_id(manifest.next_fragment_id());
      live.add(added->id());
      manifest.set_next_fragment_id(manifest.next_fragment_id() + 1);
    }
  }
  if (found != replaced.size()) {
    // Rebase rejects every commit that removes our fragments; this is the last line of defence.
    return CommitConflict(/*retryable=*/true,
                          "fragments this compaction rewrites are no longer in ", "version ",
                          base.version(), "; run the compaction again");
  }
  // Segments with no live fragment left answer for nothing: they leave their index.
  for (auto& definition : *manifest.mutable_indexes()) {
    auto* segments = definition.mutable_segments();
    for (int i = segments->size() - 1; i >= 0; --i) {
      auto covered =
          io::DecodePortableRoaring(segments->Get(i).fragment_bitmap(),
                                    "the fragment bitmap of segment " + segments->Get(i).uuid());
      if (covered.ok() && !covered->intersect(live)) segments->DeleteSubrange(i, 1);
    }
  }
  return manifest;
}

arrow::Status RewriteOperation::Rebase(const std::vector<format::Transaction>& theirs,
                                       const format::Manifest& latest) {
  std::set<uint32_t> ours;
  for (const auto& group : groups_)
    ours.insert(group.old_fragment_ids.begin(), group.old_fragment_ids.end());
  const auto conflict = [&](std::string_view what, uint32_t id) {
    return CommitConflict(/*retryable=*/true, "fragment ", id, " was ", what,
                          " by a concurrent commit (now version ", latest.version(),
                          "); nothing was committed. Run the ", name_, " again");
  };
  if (HasOverwrite(theirs)) {
    return CommitConflict(/*retryable=*/true,
                          "the dataset was overwritten by a concurrent commit (now version ",
                          latest.version(), "); nothing was committed. Run the ", name_, " again");
  }
  for (uint32_t id : FragmentsDeletedFrom(theirs)) {
    if (ours.count(id) != 0) return conflict("deleted from", id);
  }
  for (uint32_t id : FragmentsRewrittenBy(theirs)) {
    if (ours.count(id) != 0) return conflict("compacted", id);
  }
  return arrow::Status::OK();
}

NewFiles RewriteOperation::new_files() const {
  std::vector<format::Fragment> written;
  for (const auto& group : groups_) {
    written.insert(written.end(), group.new_fragments.begin(), group.new_fragments.end());
  }
  return DataFilesOf(written);
}

// --- Index changes ---

std::string NormalizeIndexName(std::string_view name) {
  std::string normalized(name);
  for (char& c : normalized) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return normalized;
}

std::vector<int> FindIndexes(const format::Manifest& manifest, std::string_view name) {
  const std::string wanted = NormalizeIndexName(name);
  std::vector<int> found;
  for (int i = 0; i < manifest.indexes_size(); ++i) {
    if (NormalizeIndexName(manifest.indexes(i).name()) == wanted) found.push_back(i);
  }
  return found;
}

std::string_view IndexOperation::name() const {
  return change_.definition ? "index" : "drop_index";
}

void IndexOperation::Describe(format::Transaction* transaction) const {
  auto* description = transaction->mutable_index();
  description->set_index_name(NormalizeIndexName(change_.name));
  if (change_.definition) *description->mutable_definition() = *change_.definition;
  for (const auto& uuid : change_.removed_segment_uuids) {
    description->add_removed_segment_uuids(uuid);
  }
  description->set_drop(!change_.definition.has_value());
}

arrow::Result<format::Manifest> IndexOperation::Apply(const format::Manifest& base) const {
  const std::vector<int> existing = FindIndexes(base, change_.name);
  if (existing.size() > 1) {
    return Error(ErrorKind::kAmbiguous, "version ", base.version(), " has ", existing.size(),
                 " indexes named '", change_.name,
                 "' differing only by case; drop them by their exact names with another tool "
                 "first");
  }
  format::Manifest manifest = base;
  manifest.clear_indexes();
  for (int i = 0; i < base.indexes_size(); ++i) {
    if (existing.empty() || i != existing[0]) *manifest.add_indexes() = base.indexes(i);
  }
  if (!change_.definition) {
    if (existing.empty()) {
      return NotFound("no index named '", change_.name, "' in version ", base.version());
    }
    return manifest;
  }
  // The invariants of a logical index, checked on the manifest actually published.
  std::set<std::string> uuids;
  Roaring covered;
  for (const auto& segment : change_.definition->segments()) {
    // Every reader builds the segment's directory from its uuid.
    ARROW_RETURN_NOT_OK(format::CheckUuid(segment.uuid(), "index '" + change_.name + "' segment"));
    if (!uuids.insert(segment.uuid()).second) {
      return InvalidArgument("index '", change_.name, "' lists segment ", segment.uuid(), " twice");
    }
    if (segment.fragment_bitmap().empty()) {
      return Corrupt("segment ", segment.uuid(), " has an empty fragment bitmap");
    }
    ARROW_ASSIGN_OR_RAISE(
        Roaring fragments,
        io::DecodePortableRoaring(segment.fragment_bitmap(),
                                  "the fragment bitmap of segment " + segment.uuid()));
    if (covered.and_cardinality(fragments) > 0) {
      return InvalidArgument("segments of index '", change_.name, "' overlap: segment ",
                             segment.uuid(), " covers fragments another segment covers");
    }
    covered |= fragments;
  }
  *manifest.add_indexes() = *change_.definition;
  return manifest;
}

arrow::Status IndexOperation::Rebase(const std::vector<format::Transaction>& theirs,
                                     const format::Manifest& latest) {
  const std::string ours = NormalizeIndexName(change_.name);
  for (const auto& transaction : theirs) {
    if (transaction.has_overwrite()) {
      return CommitConflict(/*retryable=*/true,
                            "the dataset was overwritten by a concurrent "
                            "commit (now version ",
                            latest.version(), "); index '", change_.name,
                            "' was not changed. Build it again on the new data");
    }
    if (transaction.has_index() && transaction.index().index_name() == ours) {
      return CommitConflict(/*retryable=*/true, "index '", change_.name,
                            "' was changed by a concurrent commit (now version ", latest.version(),
                            "); retry on the new version");
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::dataset
