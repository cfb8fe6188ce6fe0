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

void AddReferencedFiles(const format::Manifest& manifest, std::set<std::string>* referenced) {
  referenced->insert(manifest.transaction_file());
  for (const auto& index : manifest.indexes()) {
    for (const auto& segment : index.segments()) {
      referenced->insert(std::string(format::kIndicesDir) + "/" + segment.uuid());
    }
  }
  for (const auto& fragment : manifest.fragments()) {
    for (const auto& file : fragment.files()) {
      referenced->insert(file.path());
      referenced->insert(io::ChecksumPathOf(file.path()));
    }
    if (fragment.has_deletion()) referenced->insert(fragment.deletion().path());
  }
}

}  // namespace

arrow::Result<CleanupReport> CleanupDataset(io::Storage& storage, const CleanupOptions& options) {
  if (options.older_than.count() < 0) {
    return InvalidArgument("cleanup retention must not be negative");
  }
  ARROW_ASSIGN_OR_RAISE(auto versions, ListVersionNumbers(storage));
  if (versions.empty()) {
    return NotFound("no dataset at ", storage.root(), " (it has no _versions/*.manifest)");
  }
  const auto cutoff = std::chrono::system_clock::now() - options.older_than;
  const int64_t cutoff_micros =
      std::chrono::duration_cast<std::chrono::microseconds>(cutoff.time_since_epoch()).count();

  CleanupReport report;
  report.dry_run = options.dry_run;
  std::set<std::string> referenced;
  for (uint64_t version : versions) {
    ARROW_ASSIGN_OR_RAISE(auto manifest, ReadManifest(storage, version));
    const bool keep = version == versions.back() || manifest->created_at_micros() >= cutoff_micros;
    if (keep) {
      AddReferencedFiles(*manifest, &referenced);
    } else {
      report.removed_versions.push_back(version);
    }
  }
  // Manifests go first: once they are gone, nothing can reference the files removed below.
  ARROW_ASSIGN_OR_RAISE(auto manifest_entries, storage.List(format::kVersionsDir));
  for (uint64_t version : report.removed_versions) {
    const std::string path = format::ManifestPath(version);
    for (const auto& entry : manifest_entries) {
      if (entry.path == path) report.bytes_removed += static_cast<uint64_t>(entry.size_bytes);
    }
    if (!options.dry_run) ARROW_RETURN_NOT_OK(storage.DeleteFile(path));
  }

  for (std::string_view directory :
       {format::kDataDir, format::kDeletionsDir, format::kTransactionsDir, format::kVersionsDir}) {
    ARROW_ASSIGN_OR_RAISE(auto entries, storage.List(directory));
    for (const auto& entry : entries) {
      if (entry.is_directory || entry.modified >= cutoff || referenced.count(entry.path) > 0) {
        continue;
      }
      // In _versions/ only the leftovers of interrupted put-if-absent are garbage.
      if (directory == format::kVersionsDir && (format::ParseManifestName(entry.path) ||
                                                entry.path.find("/.tmp-") == std::string::npos)) {
        continue;
      }
      report.removed_files.push_back(entry.path);
      report.bytes_removed += static_cast<uint64_t>(entry.size_bytes);
      if (!options.dry_run) ARROW_RETURN_NOT_OK(storage.DeleteFile(entry.path));
    }
  }
  // Segment directories: a build in flight writes into a young directory nobody references
  // yet; its age is that of its newest file.
  ARROW_ASSIGN_OR_RAISE(auto segments, storage.List(format::kIndicesDir));
  for (const auto& segment : segments) {
    if (!segment.is_directory || referenced.count(segment.path) > 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto files, storage.List(segment.path));
    auto newest = segment.modified;
    uint64_t bytes = 0;
    for (const auto& file : files) {
      newest = std::max(newest, file.modified);
      bytes += static_cast<uint64_t>(file.size_bytes);
    }
    if (newest >= cutoff) continue;
    report.removed_files.push_back(segment.path + "/");
    report.bytes_removed += bytes;
    if (!options.dry_run) ARROW_RETURN_NOT_OK(storage.DeleteDirectory(segment.path));
  }
  return report;
}

}  // namespace tessera::dataset
