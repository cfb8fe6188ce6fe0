#include "tessera/io/replace_file.h"

#include <arrow/io/file.h>
#include <arrow/util/io_util.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "tessera/io/fault_injection.h"
#include "tessera/io/uuid.h"
#include "tessera/io/write_errors.h"

namespace tessera::io {

namespace {

// fsync of the temporary, whose failure names the file being replaced.
arrow::Status SyncTemporary(const std::string& temporary, const std::string& path) {
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("opening for fsync the new contents of", path);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) return ErrorOfErrno(error, "fsync of", path);
  return arrow::Status::OK();
}

// Everything up to the rename; the caller removes the temporary when it fails.
arrow::Status WriteTemporary(const std::string& temporary, const std::string& path,
                             const ContentsWriter& write) {
  auto opened = arrow::io::FileOutputStream::Open(temporary);
  if (!opened.ok()) {
    const int error = arrow::internal::ErrnoFromStatus(opened.status());
    return ErrorOfErrno(error != 0 ? error : EIO, "creating", path);
  }
  std::shared_ptr<arrow::io::OutputStream> stream = *std::move(opened);
  arrow::Status status = WriteError(write(stream), "writing", path);
  if (status.ok()) {
    if (const int error = InjectedWriteErrorFor(path))
      status = ErrorOfErrno(error, "writing", path);
  }
  // Closed in every case, so that a failed write leaves no open descriptor behind.
  const arrow::Status closed = WriteError(stream->Close(), "closing", path);
  ARROW_RETURN_NOT_OK(status);
  ARROW_RETURN_NOT_OK(closed);
  return SyncTemporary(temporary, path);
}

}  // namespace

arrow::Status ReplaceFile(const std::string& path, const ContentsWriter& write) {
  const std::filesystem::path target(path);
  const std::filesystem::path directory =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string temporary =
      (directory / ("." + target.filename().string() + ".tmp-" + NewUuid())).string();
  arrow::Status status = WriteTemporary(temporary, path, write);
  if (status.ok() && std::rename(temporary.c_str(), path.c_str()) != 0) {
    status = ErrnoError("renaming the new contents onto", path);
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  return SyncPath(directory.string(), /*directory=*/true);
}

arrow::Status ReplaceFile(const std::string& path, std::string_view contents) {
  return ReplaceFile(path, [contents](std::shared_ptr<arrow::io::OutputStream> stream) {
    return stream->Write(contents.data(), static_cast<int64_t>(contents.size()));
  });
}

}  // namespace tessera::io
