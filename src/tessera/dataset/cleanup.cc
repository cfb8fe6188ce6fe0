#include "tessera/dataset/cleanup.h"

#include <algorithm>
#include <set>
#include <string>

#include "tessera/dataset/manifest_store.h"
#include "tessera/format/paths.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

using Clock = std::chrono::system_clock;

void AddReferencedFiles(const format::Manifest& manifest, std::set<std::string>* referenced) {
  referenced->insert(manifest.transaction_file());
  for (const auto& index : manifest.indexes()) {
    for (const auto& segment : index.segments()) {
      referenced->insert(std::string(format::kIndicesDir) + "/" + segment.uuid());
    }
  }
  for (const auto& fragment : manifest.fragments()) {
    for (const auto& file : fragment.files()) {
      // External files lie outside the directories cleanup lists: never candidates.
      if (file.has_external()) continue;
      for (auto& path : io::FileAndChecksums(file.path())) referenced->insert(std::move(path));
    }
    if (fragment.has_deletion()) referenced->insert(fragment.deletion().path());
  }
}

// The instant `age` before `now`; the earliest instant the clock holds when `age` reaches past
// it (a retention of centuries keeps everything instead of overflowing the nanosecond clock).
Clock::time_point Before(Clock::time_point now, std::chrono::seconds age) {
  constexpr auto kLongestAge =
      std::chrono::duration_cast<std::chrono::seconds>(Clock::duration::max());
  if (age >= kLongestAge) return Clock::time_point::min();
  return now - age;
}

// What the manifests say about the files of the dataset.
struct References {
  std::set<std::string> kept;     // referenced by a remaining manifest
  std::set<std::string> removed;  // referenced by a manifest this cleanup removes
};

// Decides, for one unreferenced candidate, whether it goes.
class Verdict {
 public:
  Verdict(const CleanupOptions& options, const References& references, bool blocked)
      : references_(references), blocked_(blocked), delete_unverified_(options.delete_unverified) {
    const auto now = Clock::now();
    retention_cutoff_ = Before(now, options.older_than);
    grace_cutoff_ = Before(now, std::max(options.older_than, options.grace_period));
  }

  // `path` as the manifests name it; `modified`: its (newest) modification time.
  bool Removes(const std::string& path, Clock::time_point modified, CleanupReport* report) const {
    if (references_.kept.count(path) > 0 || blocked_) return false;
    if (modified >= retention_cutoff_) return false;
    if (references_.removed.count(path) > 0 || delete_unverified_) return true;
    if (modified >= grace_cutoff_) {
      report->kept_by_grace += 1;
      return false;
    }
    return true;
  }

 private:
  const References& references_;
  bool blocked_;
  bool delete_unverified_;
  Clock::time_point retention_cutoff_;
  Clock::time_point grace_cutoff_;
};

// Deletes, tolerating what a concurrent cleanup already deleted.
arrow::Status Remove(io::Storage& storage, const std::string& path, bool directory) {
  auto status = directory ? storage.DeleteDirectory(path) : storage.DeleteFile(path);
  if (status.ok()) return status;
  ARROW_ASSIGN_OR_RAISE(bool present, storage.Exists(path));
  return present ? status : arrow::Status::OK();
}

}  // namespace

arrow::Result<CleanupReport> CleanupDataset(io::Storage& storage, const CleanupOptions& options) {
  if (options.older_than.count() < 0 || options.grace_period.count() < 0) {
    return InvalidArgument("cleanup retention and grace period must not be negative");
  }
  ARROW_ASSIGN_OR_RAISE(auto versions, ListVersionNumbers(storage));
  if (versions.empty()) {
    return NotFound("no dataset at ", storage.root(), " (it has no _versions/*.manifest)");
  }
  const auto cutoff = Before(Clock::now(), options.older_than);
  const int64_t cutoff_micros =
      std::chrono::duration_cast<std::chrono::microseconds>(cutoff.time_since_epoch()).count();

  CleanupReport report;
  report.dry_run = options.dry_run;
  References references;
  bool kept_a_readable_version = false;
  // Newest first, so that the newest readable version is known to be kept.
  for (auto version = versions.rbegin(); version != versions.rend(); ++version) {
    auto manifest = ReadManifest(storage, *version);
    if (!manifest.ok()) {
      const ErrorKind kind = KindOf(manifest.status());
      if (kind == ErrorKind::kNotFound) continue;  // removed by a concurrent cleanup
      if (kind != ErrorKind::kCorrupt) return manifest.status();
      report.unreadable_versions.push_back(
          {*version, std::string(ErrorKindName(kind)) + ": " + manifest.status().message()});
      continue;
    }
    const bool keep = *version == versions.back() || !kept_a_readable_version ||
                      (*manifest)->created_at_micros() >= cutoff_micros;
    kept_a_readable_version = true;
    if (keep) {
      AddReferencedFiles(**manifest, &references.kept);
    } else {
      AddReferencedFiles(**manifest, &references.removed);
      report.removed_versions.push_back(*version);
    }
  }
  std::reverse(report.removed_versions.begin(), report.removed_versions.end());
  std::reverse(report.unreadable_versions.begin(), report.unreadable_versions.end());

  // Manifests go first: once they are gone, nothing can reference the files removed below.
  ARROW_ASSIGN_OR_RAISE(auto manifest_entries, storage.List(format::kVersionsDir));
  for (uint64_t version : report.removed_versions) {
    const std::string path = format::ManifestPath(version);
    for (const auto& entry : manifest_entries) {
      if (entry.path == path) report.bytes_removed += static_cast<uint64_t>(entry.size_bytes);
    }
    if (!options.dry_run) ARROW_RETURN_NOT_OK(Remove(storage, path, /*directory=*/false));
  }

  // An unreadable manifest may reference any file: keep them all until it is dealt with.
  const Verdict verdict(options, references, !report.unreadable_versions.empty());
  for (std::string_view directory :
       {format::kDataDir, format::kDeletionsDir, format::kTransactionsDir, format::kVersionsDir}) {
    ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(directory));
    for (const auto& entry : entries) {
      if (entry.is_directory) continue;
      // In _versions/ only the leftovers of interrupted put-if-absent are garbage.
      if (directory == format::kVersionsDir && (format::ParseManifestName(entry.path) ||
                                                entry.path.find("/.tmp-") == std::string::npos)) {
        continue;
      }
      if (!verdict.Removes(entry.path, entry.modified, &report)) continue;
      report.removed_files.push_back(entry.path);
      report.bytes_removed += static_cast<uint64_t>(entry.size_bytes);
      if (!options.dry_run) ARROW_RETURN_NOT_OK(Remove(storage, entry.path, /*directory=*/false));
    }
  }
  // Segment directories: a build in flight writes into a young directory nobody references
  // yet; its age is that of its newest file.
  ARROW_ASSIGN_OR_RAISE(auto segments, storage.List(format::kIndicesDir));
  for (const auto& segment : segments) {
    if (!segment.is_directory || references.kept.count(segment.path) > 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto files, storage.List(segment.path));
    auto newest = segment.modified;
    uint64_t bytes = 0;
    for (const auto& file : files) {
      newest = std::max(newest, file.modified);
      bytes += static_cast<uint64_t>(file.size_bytes);
    }
    if (!verdict.Removes(segment.path, newest, &report)) continue;
    report.removed_files.push_back(segment.path + "/");
    report.bytes_removed += bytes;
    if (!options.dry_run) ARROW_RETURN_NOT_OK(Remove(storage, segment.path, /*directory=*/true));
  }
  return report;
}

}  // namespace tessera::dataset
