#include "support/dataset_inspection.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "support/table_builders.h"
#include "tessera/format/paths.h"
#include "tessera/io/block_checksums.h"

namespace tessera::testing {

arrow::Result<std::vector<int64_t>> ScanIds(const dataset::Dataset& snapshot) {
  dataset::ScanOptions options;
  options.columns = {"id"};
  ARROW_ASSIGN_OR_RAISE(auto table, snapshot.ScanToTable(options));
  std::vector<int64_t> ids = Int64Column(*table, "id");
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> IdRange(int64_t first, int64_t last) {
  std::vector<int64_t> ids;
  for (int64_t id = first; id < last; ++id) ids.push_back(id);
  return ids;
}

std::set<std::string> ListDatasetFiles(const std::string& root) {
  std::set<std::string> files;
  for (std::string_view directory :
       {format::kDataDir, format::kDeletionsDir, format::kTransactionsDir, format::kVersionsDir}) {
    const std::filesystem::path path = std::filesystem::path(root) / directory;
    std::error_code error;
    if (!std::filesystem::exists(path, error)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      files.insert(std::string(directory) + "/" + entry.path().filename().string());
    }
  }
  return files;
}

std::set<std::string> FilesReferencedBy(const format::Manifest& manifest) {
  std::set<std::string> files;
  files.insert(format::ManifestPath(manifest.version()));
  files.insert(manifest.transaction_file());
  for (const auto& fragment : manifest.fragments()) {
    for (const auto& file : fragment.files()) {
      for (auto& path : io::FileAndChecksums(file.path())) files.insert(std::move(path));
    }
    if (fragment.has_deletion() && !fragment.deletion().path().empty()) {
      files.insert(fragment.deletion().path());
    }
  }
  return files;
}

std::set<std::string> NewFiles(const std::set<std::string>& before,
                               const std::set<std::string>& after) {
  std::set<std::string> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::inserter(added, added.end()));
  return added;
}

void SetModificationTime(const std::string& path, std::chrono::system_clock::time_point time) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  struct timeval times[2];
  times[0].tv_sec = micros / 1000000;
  times[0].tv_usec = micros % 1000000;
  times[1] = times[0];
  if (::utimes(path.c_str(), times) != 0) {
    throw std::runtime_error("utimes failed on " + path);
  }
}

arrow::Status CheckEveryVersionReadable(const std::string& uri) {
  ARROW_ASSIGN_OR_RAISE(auto latest, dataset::Dataset::Open(uri));
  ARROW_ASSIGN_OR_RAISE(auto versions, latest->ListVersions());
  if (versions.empty()) return arrow::Status::Invalid(uri, ": ListVersions is empty");
  if (versions.back().version != latest->version()) {
    return arrow::Status::Invalid(uri, ": the latest version is ", latest->version(),
                                  " but ListVersions ends at ", versions.back().version);
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    const auto& info = versions[i];
    if (i > 0 && info.version != versions[i - 1].version + 1) {
      return arrow::Status::Invalid(uri, ": versions are not contiguous: ", versions[i - 1].version,
                                    " is followed by ", info.version);
    }
    auto snapshot = dataset::Dataset::Open(uri, info.version);
    if (!snapshot.ok()) {
      return snapshot.status().WithMessage("version ", info.version,
                                           " does not open: ", snapshot.status().message());
    }
    auto ids = ScanIds(**snapshot);
    if (!ids.ok()) {
      return ids.status().WithMessage("version ", info.version,
                                      " does not scan: ", ids.status().message());
    }
    if (std::adjacent_find(ids->begin(), ids->end()) != ids->end()) {
      return arrow::Status::Invalid(uri, ": version ", info.version, " holds a duplicate id ",
                                    *std::adjacent_find(ids->begin(), ids->end()));
    }
    if (ids->size() != (*snapshot)->CountRows() || ids->size() != info.num_rows) {
      return arrow::Status::Invalid(uri, ": version ", info.version, " scans ", ids->size(),
                                    " rows, CountRows() says ", (*snapshot)->CountRows(),
                                    ", ListVersions says ", info.num_rows);
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::testing
