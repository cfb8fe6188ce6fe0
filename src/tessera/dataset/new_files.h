// New files: what a write adds to the dataset before it commits, and the two duties the commit
// has towards them.
//
//  - Before publishing, the commit checks that every new file the version references exists
//    (CheckNewFilesExist). Cleanup never removes an unreferenced file younger than its grace
//    period, so in normal operation this always holds; the check catches what the grace cannot:
//    a cleanup run with delete_unverified, a clock skew beyond the grace, a user removing files,
//    a write that took longer than the grace. A commit that fails it publishes nothing.
//  - When the commit fails and certainly published nothing, it removes them (RemoveNewFiles,
//    best effort), so that a failed write leaves no orphans waiting for cleanup's grace period.
//    A crash still can; cleanup reclaims those.
//
// The check cannot close every window on its own: a cleanup that listed a file before the check
// and deletes it after still wins. The grace period closes that window (docs/datasets.md).
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// Paths relative to the dataset root.
struct NewFiles {
  // Data files, deletion files, the files of new index segments.
  std::vector<std::string> files;
  // Directories of new index segments ("_indices/<uuid>"), removed as a whole on failure.
  std::vector<std::string> directories;
  // False for files the caller handed in and may commit again (segments another process built):
  // a failed commit leaves them in place.
  bool remove_on_failure = true;
};

// The data files of `fragments` with their block checksums.
NewFiles DataFilesOf(const std::vector<format::Fragment>& fragments);

// CommitConflict (retryable: running the whole write again writes its files again) naming the
// first missing file, its dataset and `operation`.
arrow::Status CheckNewFilesExist(const io::Storage& storage, const NewFiles& added,
                                 std::string_view operation);

// Removes the files and directories, ignoring errors (they are orphans either way; cleanup
// reclaims what this cannot). Does nothing when !added.remove_on_failure.
void RemoveNewFiles(io::Storage& storage, const NewFiles& added);

}  // namespace tessera::dataset
