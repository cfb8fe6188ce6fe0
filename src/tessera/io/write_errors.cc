#include "tessera/io/write_errors.h"

#include <arrow/util/io_util.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tessera/status.h"

namespace tessera::io {

arrow::Status ErrorOfErrno(int error, std::string_view action, const std::string& path) {
  if (error == ENOSPC || error == EDQUOT) {
    return Error(ErrorKind::kResourceExhausted, "disk full ", action, " ", path, " (",
                 std::strerror(error), "): free space (or raise the quota) and retry");
  }
  return Error(ErrorKind::kIOError, action, " ", path, ": ", std::strerror(error));
}

arrow::Status ErrnoError(std::string_view action, const std::string& path) {
  return ErrorOfErrno(errno, action, path);
}

arrow::Status WriteError(const arrow::Status& status, std::string_view action,
                         const std::string& path) {
  if (status.ok()) return status;
  const int error = arrow::internal::ErrnoFromStatus(status);
  if (error == ENOSPC || error == EDQUOT) return ErrorOfErrno(error, action, path);
  return status;
}

arrow::Status SyncPath(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return ErrnoError("opening for fsync", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return ErrnoError("fsync of", path);
  return arrow::Status::OK();
}

}  // namespace tessera::io
