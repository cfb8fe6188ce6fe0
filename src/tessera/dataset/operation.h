// Operations: what a commit does to a manifest, and how it survives losing a commit race.
//
// An operation is planned against the version its writer read. Its files (data, deletion
// vectors) are written before the commit; Apply() only edits metadata, so retrying on a newer
// base is cheap. When another writer committed first, Rebase() is told every transaction that
// landed since, and either accepts them (possibly re-planning, as a Delete of the same fragment
// does) or fails with CommitConflict per the matrix of docs/design.md, "Commit protocol":
//
//   ours \ theirs   Append   Delete                    Overwrite   Index          Rewrite
//   Append          ok       ok                        conflict    ok             ok
//   Delete          ok       same fragment: re-plan    conflict    ok             same fragment:
//                                                                                 conflict
//   Overwrite       ok       ok                        ok          ok             ok
//   Index           ok       ok                        conflict    other name: ok; ok
//                                                                  same name:
//                                                                  conflict (retryable)
//   Rewrite         ok       same fragment: conflict   conflict    ok             same fragment:
//                                                                                 conflict
// (Rewrite is compaction, dataset/compaction.h. Index segments stay valid across it: a segment
// answers only for fragments that still exist, so rewritten fragments become unindexed.)
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/new_files.h"
#include "tessera/expr/filter.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/format/schema_codec.h"
#include "tessera/format/transaction.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class DeletionVectors;

class Operation {
 public:
  virtual ~Operation() = default;
  // "create", "append", "delete", "overwrite": recorded in the manifest.
  virtual std::string_view name() const = 0;
  // Records the operation in its transaction.
  virtual void Describe(format::Transaction* transaction) const = 0;
  // The manifest after applying the operation to `base`; version and bookkeeping fields are
  // set by the commit.
  virtual arrow::Result<format::Manifest> Apply(const format::Manifest& base) const = 0;
  // Accepts the transactions committed since our base (oldest first), re-planning if needed,
  // or returns CommitConflict. `latest` is the manifest the next attempt will apply to.
  virtual arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                               const format::Manifest& latest) = 0;
  // True when applying would change nothing (a rebased delete whose rows a concurrent delete
  // already removed): the commit then writes no version.
  virtual bool IsNoop() const { return false; }
  // The files this operation wrote for the version it publishes: checked by the commit before
  // publishing, removed when it fails (dataset/new_files.h).
  virtual NewFiles new_files() const = 0;
};

// Adds fragments already written.
class AppendOperation : public Operation {
 public:
  explicit AppendOperation(std::vector<format::Fragment> fragments)
      : fragments_(std::move(fragments)) {}
  std::string_view name() const override { return "append"; }
  void Describe(format::Transaction* transaction) const override;
  arrow::Result<format::Manifest> Apply(const format::Manifest& base) const override;
  arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                       const format::Manifest& latest) override;
  NewFiles new_files() const override;

 private:
  std::vector<format::Fragment> fragments_;
};

// Replaces groups of fragments by new fragments holding their live rows (compaction,
// dataset/compaction.h). The new fragments of a group take the place of its first old fragment
// in the manifest's order, so a scan returns the rows in the order it did before. Index segments
// none of whose fragments remain are removed from their index in the same commit.
class RewriteOperation : public Operation {
 public:
  struct Group {
    std::vector<uint32_t> old_fragment_ids;
    std::vector<format::Fragment> new_fragments;  // ids assigned at commit
  };
  // `name`: "compact", or "refresh" for external files recorded again (external_refresh.h).
  explicit RewriteOperation(std::vector<Group> groups, std::string name = "compact")
      : groups_(std::move(groups)), name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  void Describe(format::Transaction* transaction) const override;
  arrow::Result<format::Manifest> Apply(const format::Manifest& base) const override;
  arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                       const format::Manifest& latest) override;
  bool IsNoop() const override { return groups_.empty(); }
  NewFiles new_files() const override;

 private:
  std::vector<Group> groups_;
  std::string name_;
};

// Replaces every fragment and the schema. Also creates datasets (applied to an empty base).
class OverwriteOperation : public Operation {
 public:
  OverwriteOperation(std::vector<format::Fragment> fragments, std::shared_ptr<arrow::Schema> schema,
                     bool is_create)
      : fragments_(std::move(fragments)), schema_(std::move(schema)), is_create_(is_create) {}
  std::string_view name() const override { return is_create_ ? "create" : "overwrite"; }
  void Describe(format::Transaction* transaction) const override;
  arrow::Result<format::Manifest> Apply(const format::Manifest& base) const override;
  arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                       const format::Manifest& latest) override;
  NewFiles new_files() const override;

 private:
  std::vector<format::Fragment> fragments_;
  std::shared_ptr<arrow::Schema> schema_;
  bool is_create_;
};

// The live offsets of `fragment` that a delete removes, given its current deletion vector
// `deleted`: an index-aware reader (query/filtered_read.h) finds them through indexes, the
// default evaluates the predicate on the fragment's rows. Called again for a fragment whose
// deletion vector a concurrent delete changed, with the new one.
using RowFinder =
    std::function<arrow::Result<Roaring>(const format::Fragment& fragment, const Roaring& deleted)>;

// Deletes the rows matching a predicate, fragment by fragment.
class DeleteOperation : public Operation {
 public:
  // Finds the rows of `predicate` on every fragment of `base` (with `finder`, or by evaluating
  // the predicate when it is empty) and writes the new deletion vectors. `base_deletions`: the
  // deletion vectors of `base` when the caller has them loaded (null loads them).
  // `description`: what the transaction records instead of the predicate's text, for a
  // delete whose rows a finder names without one (imported positions).
  static arrow::Result<std::unique_ptr<DeleteOperation>> Plan(
      std::shared_ptr<io::Storage> storage, const format::Manifest& base,
      const std::shared_ptr<arrow::Schema>& schema, std::string predicate, RowFinder finder = {},
      const DeletionVectors* base_deletions = nullptr, std::string description = {});

  // True when the predicate matches no live row: there is nothing to commit.
  bool IsNoop() const override { return plans_.empty(); }
  std::string_view name() const override { return "delete"; }
  void Describe(format::Transaction* transaction) const override;
  arrow::Result<format::Manifest> Apply(const format::Manifest& base) const override;
  arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                       const format::Manifest& latest) override;
  // The deletion files of the current plan (those of replaced plans are already removed).
  NewFiles new_files() const override;

 private:
  struct FragmentPlan {
    uint64_t deleted_rows = 0;           // all deleted rows of the fragment, old and new
    format::DeletionFile deletion_file;  // empty path when every row is deleted
  };

  DeleteOperation(std::shared_ptr<io::Storage> storage, std::shared_ptr<const expr::Filter> filter,
                  RowFinder finder)
      : storage_(std::move(storage)), filter_(std::move(filter)), finder_(std::move(finder)) {}
  // (Re-)evaluates the predicate on `fragment` as it stands in `manifest`.
  // `deleted`: the fragment's current deletion vector, when already loaded.
  arrow::Status PlanFragment(const format::Manifest& manifest, const format::Fragment& fragment,
                             std::shared_ptr<const Roaring> deleted = nullptr);
  // Forgets the plan of `fragment_id`, removing the deletion file it wrote (referenced by
  // nothing: it was never committed).
  void DropPlan(uint32_t fragment_id);

  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<const expr::Filter> filter_;
  RowFinder finder_;
  std::string description_;                 // empty: the predicate's text
  std::map<uint32_t, FragmentPlan> plans_;  // fragments with newly deleted rows
};

// A change of one logical index: create, replace, optimize, merge, commit of segments, drop.
// The new definition carries the complete segment set of the index after the change.
struct IndexChange {
  std::string name;                            // as the user spelled it
  std::optional<format::IndexDef> definition;  // absent: drop the index
  std::vector<std::string> removed_segment_uuids;
  // The files of the segments this change adds (index/segment_files.h fills it in): the commit
  // checks they exist before publishing, and removes them on failure if remove_on_failure.
  NewFiles new_files;
};

class IndexOperation : public Operation {
 public:
  explicit IndexOperation(IndexChange change) : change_(std::move(change)) {}
  std::string_view name() const override;
  void Describe(format::Transaction* transaction) const override;
  arrow::Result<format::Manifest> Apply(const format::Manifest& base) const override;
  arrow::Status Rebase(const std::vector<format::Transaction>& theirs,
                       const format::Manifest& latest) override;
  NewFiles new_files() const override { return change_.new_files; }

 private:
  IndexChange change_;
};

// Index names: display case is kept, lookups ignore case (docs/design.md, "Index lifecycle").
std::string NormalizeIndexName(std::string_view name);
// Positions in manifest.indexes() of the definitions named `name` (ignoring case); more than
// one only in manifests written by other tools, which mutations reject as Ambiguous.
std::vector<int> FindIndexes(const format::Manifest& manifest, std::string_view name);

}  // namespace tessera::dataset
