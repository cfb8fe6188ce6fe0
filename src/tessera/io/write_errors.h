// The one rule for failed writes to local files, shared by every write path (io::Storage's data
// files, deletion files, segment files and manifests; io::ReplaceFile): a full disk or an
// exhausted quota (ENOSPC, EDQUOT) is ResourceExhausted naming the file and saying to free
// space; any other failure of the storage is IOError naming the file.
#pragma once

#include <arrow/status.h>

#include <string>
#include <string_view>

namespace tessera::io {

// The failure `error` (an errno value) of `action` ("writing", "fsync of") on `path`.
arrow::Status ErrorOfErrno(int error, std::string_view action, const std::string& path);

// ErrorOfErrno of the current errno.
arrow::Status ErrnoError(std::string_view action, const std::string& path);

// An Arrow status of a write (which carries the OS error as a detail) under the same rule; OK
// stays OK, and a failure without a disk-full errno is returned as it is.
arrow::Status WriteError(const arrow::Status& status, std::string_view action,
                         const std::string& path);

// Makes a closed local file (or, with `directory`, the entries of a directory) durable: fsync.
arrow::Status SyncPath(const std::string& path, bool directory);

}  // namespace tessera::io
