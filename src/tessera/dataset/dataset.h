// Dataset: one immutable, committed version of a versioned columnar dataset (docs/design.md,
// "On-disk format" and "Commit protocol").
//
// A Dataset object is a snapshot: its version, schema and fragments never change. Reads
// (Scan, Take, CountRows) see exactly that version, however many commits land meanwhile.
// Writes (Append, Overwrite, Delete) commit a new version through the optimistic protocol of
// dataset/commit.h and return the new snapshot; the object they were called on is unchanged and
// remains readable. A write started from an old snapshot is rebased onto newer versions when
// the conflict matrix allows it, and fails with CommitConflict otherwise.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/external_files.h"
#include "tessera/dataset/operation.h"
#include "tessera/dataset/options.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class DeletionVectors;

// Row address of (fragment, offset): the identity of a row within a version.
inline uint64_t MakeRowAddress(uint32_t fragment_id, uint32_t offset) {
  return (static_cast<uint64_t>(fragment_id) << 32) | offset;
}
inline uint32_t FragmentOf(uint64_t row_address) {
  return static_cast<uint32_t>(row_address >> 32);
}
inline uint32_t OffsetOf(uint64_t row_address) { return static_cast<uint32_t>(row_address); }

struct VersionInfo {
  uint64_t version = 0;
  std::chrono::system_clock::time_point created;
  std::string operation;  // "create", "append", "delete", "overwrite"
  uint64_t num_rows = 0;  // live rows (physical minus deleted)
  uint64_t num_fragments = 0;
  // Why the manifest cannot be read (a Corrupt error's message); empty when it can. When set,
  // only `version` is meaningful.
  std::string unreadable;
};

// A manifest that cannot be read, as ListVersions and Cleanup report it.
struct UnreadableVersion {
  uint64_t version = 0;
  std::string error;  // "Corrupt: manifest ... cannot be decoded"
};

struct CleanupReport {
  std::vector<uint64_t> removed_versions;
  std::vector<std::string> removed_files;  // relative paths; segment directories end in '/'
  uint64_t bytes_removed = 0;
  bool dry_run = false;
  // Unreferenced files and segment directories kept only because they are younger than the
  // grace period.
  uint64_t kept_by_grace = 0;
  // Manifests that cannot be read: while there is one, cleanup removes no file at all, since
  // it cannot know which files that version references.
  std::vector<UnreadableVersion> unreadable_versions;
};

class Dataset {
 public:
  // Creates a new dataset at `uri` from all batches of `source` (version 1).
  // AlreadyExists if a dataset is there already; Unsupported for column types tessera cannot
  // store (the message names the field).
  static arrow::Result<std::shared_ptr<Dataset>> Create(
      std::string_view uri, std::shared_ptr<arrow::RecordBatchReader> source,
      const WriteOptions& options = {});

  // Creates a new dataset at `uri` (version 1) whose fragments are the external Parquet files
  // `files` (paths or glob patterns, dataset/external_files.h), one fragment each, without
  // copying them (docs/external.md). The schema is the first file's, with the columns of
  // external.vector_dimensions read as vectors; every file must match it. Errors name the file;
  // nothing is committed when one fails.
  static arrow::Result<std::shared_ptr<Dataset>> CreateExternal(
      std::string_view uri, const std::vector<std::string>& files,
      const ExternalOptions& external = {}, const WriteOptions& options = {});

  // Opens the latest version, or `version`. NotFound when `uri` holds no dataset or no such
  // version; Corrupt when the manifest is damaged; Stale naming an external file that changed
  // since it was registered (dataset/external_files.h), unless `check_external_files` is false
  // (what `refresh` needs to read a version whose files changed).
  static arrow::Result<std::shared_ptr<Dataset>> Open(std::string_view uri,
                                                      std::optional<uint64_t> version = {},
                                                      bool check_external_files = true);

  // --- the snapshot ---
  uint64_t version() const;
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  // Stable field ids, parallel to schema()->fields().
  const std::vector<int32_t>& field_ids() const { return field_ids_; }
  const format::Manifest& manifest() const { return *manifest_; }
  const std::shared_ptr<io::Storage>& storage() const { return storage_; }
  const std::string& uri() const { return storage_->root(); }
  // Live rows: physical rows minus deleted rows, from metadata alone.
  uint64_t CountRows() const;

  // --- reads of this version ---
  arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> Scan(const ScanOptions& options) const;
  arrow::Result<std::shared_ptr<arrow::Table>> ScanToTable(const ScanOptions& options) const;
  // Rows matching `filter` (all rows when empty).
  arrow::Result<uint64_t> CountRows(std::string_view filter) const;
  // Rows at `row_addresses`, in that order (duplicates allowed), with `columns` (all when
  // empty). Reads only the requested rows. NotFound for an address whose fragment or offset
  // does not exist in this version or whose row is deleted.
  arrow::Result<std::shared_ptr<arrow::Table>> Take(
      const std::vector<uint64_t>& row_addresses,
      const std::vector<std::string>& columns = {}) const;

  // --- writes: each commits one new version and returns it ---
  // InvalidArgument naming the fields when the schema differs from this version's.
  arrow::Result<std::shared_ptr<Dataset>> Append(std::shared_ptr<arrow::RecordBatchReader> source,
                                                 const WriteOptions& options = {}) const;
  // Appends the external Parquet files `files` (paths or glob patterns) as new fragments,
  // without copying them; their columns must match the schema (a vector column may be a list
  // of the same floats). Of `external`, bad_vectors_as_null applies (the schema says which
  // columns are vectors). Errors name the file; nothing is committed when one fails.
  arrow::Result<std::shared_ptr<Dataset>> AppendExternal(const std::vector<std::string>& files,
                                                         const ExternalOptions& external = {},
                                                         const WriteOptions& options = {}) const;
  // Replaces all rows (and possibly the schema); fields kept by name and type keep their ids.
  arrow::Result<std::shared_ptr<Dataset>> Overwrite(
      std::shared_ptr<arrow::RecordBatchReader> source, const WriteOptions& options = {}) const;
  // Deletes the rows matching `filter` (a non-empty predicate; "true" deletes everything).
  // When no live row matches it commits nothing and returns this snapshot. Fragments whose
  // rows are all deleted leave the manifest.
  arrow::Result<std::shared_ptr<Dataset>> Delete(std::string_view filter,
                                                 const WriteOptions& options = {}) const;
  // The same delete with the rows found by `finder` (operation.h), which must return exactly the
  // live rows `filter` matches: query::Delete finds them through indexes. `deletions`: this
  // version's deletion vectors when the caller has them loaded (null loads them).
  arrow::Result<std::shared_ptr<Dataset>> Delete(std::string_view filter, RowFinder finder,
                                                 const WriteOptions& options = {},
                                                 const DeletionVectors* deletions = nullptr) const;

  // Deletes exactly the rows at `row_addresses` (rows already deleted are skipped; when none is
  // left it commits nothing and returns this snapshot). NotFound naming an address whose
  // fragment or offset this version lacks. `description` is what the transaction records
  // ("position deletes from FILE").
  arrow::Result<std::shared_ptr<Dataset>> DeleteRows(const std::vector<uint64_t>& row_addresses,
                                                     std::string description,
                                                     const WriteOptions& options = {}) const;

  // Commits a change of one logical index (index/lifecycle.h builds these; segment files must
  // already be written). Conflicts per docs/design.md, "Commit protocol": a concurrent change of
  // the same index or an overwrite is a retryable CommitConflict.
  arrow::Result<std::shared_ptr<Dataset>> CommitIndexChange(IndexChange change,
                                                            const WriteOptions& options = {}) const;

  // --- history and maintenance (act on the whole dataset, not only this snapshot) ---
  // Every version, oldest first; one whose manifest is damaged is listed with `unreadable` set
  // instead of failing the whole listing.
  arrow::Result<std::vector<VersionInfo>> ListVersions() const;
  // The latest committed version, which may be newer than this snapshot.
  arrow::Result<std::shared_ptr<Dataset>> Latest() const;
  // Removes manifests older than the retention (never the latest) and then files referenced by
  // no remaining manifest that are older than the retention (and, for files no manifest ever
  // referenced, than the grace period). See dataset/cleanup.h.
  arrow::Result<CleanupReport> Cleanup(const CleanupOptions& options) const;
  // The same two for the dataset at `uri` without opening a version first, so that they work
  // (and report it) when the latest manifest itself is damaged.
  static arrow::Result<std::vector<VersionInfo>> ListVersionsAt(std::string_view uri);
  static arrow::Result<CleanupReport> CleanupAt(std::string_view uri,
                                                const CleanupOptions& options);

  // Internal: use Create/Open.
  Dataset(std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest,
          std::shared_ptr<arrow::Schema> schema, std::vector<int32_t> field_ids);

  // Builds a snapshot from a decoded manifest.
  static arrow::Result<std::shared_ptr<Dataset>> FromManifest(
      std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest);

 private:
  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<const format::Manifest> manifest_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int32_t> field_ids_;
};

// How input files are read: by their extension, or all as one format whatever their names
// (SQL's read_parquet / read_arrow).
enum class InputFormat { kByExtension, kParquet, kArrowFile };

// Opens Parquet (.parquet), Arrow IPC file (.arrow, .feather, .ipc) or Arrow IPC stream
// (.arrows) files as one stream of batches. All files must share one schema. Every batch is
// validated before it is returned (the files are untrusted).
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenFilesAsReader(
    const std::vector<std::string>& paths, InputFormat format = InputFormat::kByExtension);

}  // namespace tessera::dataset
