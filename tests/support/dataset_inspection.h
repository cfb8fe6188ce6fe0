// Inspection of a dataset from outside the library's write path, for tests of concurrency and
// crash safety: the ids a version holds, the files its root holds, the files a manifest
// references, and a check that every committed version is readable.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/format/manifest.pb.h"

namespace tessera::testing {

// The ids (column "id") of every live row of `snapshot`, sorted; duplicates are kept, so a row
// committed twice shows up twice.
arrow::Result<std::vector<int64_t>> ScanIds(const dataset::Dataset& snapshot);

// first, first + 1, ..., last - 1.
std::vector<int64_t> IdRange(int64_t first, int64_t last);

// Every file under the directories the commit protocol writes (data/, _deletions/,
// _transactions/, _versions/), temporary files included, as paths relative to `root`.
std::set<std::string> ListDatasetFiles(const std::string& root);

// Files of those directories that `manifest` makes live: its data files, deletion files,
// transaction file, and the manifest itself.
std::set<std::string> FilesReferencedBy(const format::Manifest& manifest);

// The elements of `after` that are not in `before`.
std::set<std::string> NewFiles(const std::set<std::string>& before,
                               const std::set<std::string>& after);

// Sets a file's access and modification times (to age it past a cleanup retention).
void SetModificationTime(const std::string& path, std::chrono::system_clock::time_point time);

// Checks every version ListVersions reports: it opens; its scan holds no duplicate id and as many
// rows as CountRows() and ListVersions say; the version numbers are contiguous.
arrow::Status CheckEveryVersionReadable(const std::string& uri);

}  // namespace tessera::testing
