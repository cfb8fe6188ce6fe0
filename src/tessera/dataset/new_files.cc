#include "tessera/dataset/new_files.h"

#include "tessera/io/block_checksums.h"

#include "tessera/status.h"

namespace tessera::dataset {

NewFiles DataFilesOf(const std::vector<format::Fragment>& fragments) {
  NewFiles added;
  for (const auto& fragment : fragments) {
    for (const auto& file : fragment.files()) {
      // An external file is not the write's to check or to remove on failure.
      if (file.has_external()) continue;
      for (auto& path : io::FileAndChecksums(file.path())) added.files.push_back(std::move(path));
    }
  }
  return added;
}

arrow::Status CheckNewFilesExist(const io::Storage& storage, const NewFiles& added,
                                 std::string_view operation) {
  auto check = [&](const std::string& path) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(bool present, storage.Exists(path));
    if (present) return arrow::Status::OK();
    return CommitConflict(
        /*retryable=*/true, "dataset ", storage.root(), ": ", path, ", written for this ",
        operation,
        ", is missing at commit time (removed by a cleanup run with "
        "--delete-unverified, or by hand); nothing was committed. Run the ",
        operation, " again (segments built by another process must be built again)");
  };
  for (const auto& directory : added.directories) ARROW_RETURN_NOT_OK(check(directory));
  for (const auto& file : added.files) ARROW_RETURN_NOT_OK(check(file));
  return arrow::Status::OK();
}

void RemoveNewFiles(io::Storage& storage, const NewFiles& added) {
  if (!added.remove_on_failure) return;
  for (const auto& file : added.files) {
    (void)storage.DeleteFile(file);
  }
  for (const auto& directory : added.directories) {
    (void)storage.DeleteDirectory(directory);
  }
}

}  // namespace tessera::dataset
