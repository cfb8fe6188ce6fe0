#include "tessera/io/storage.h"

#include <arrow/filesystem/localfs.h>
#include <arrow/io/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "tessera/io/fault_injection.h"
#include "tessera/io/s3_settings.h"
#include "tessera/io/s3_store.h"
#include "tessera/io/uuid.h"
#include "tessera/io/write_errors.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

// A stream from OpenForWrite: its failures follow WriteError's rule, and injected write
// errors (fault_injection.h) apply to it.
class WriteStream : public arrow::io::OutputStream {
 public:
  WriteStream(std::shared_ptr<arrow::io::OutputStream> inner, std::string relative,
              std::string path, std::shared_ptr<S3Store> s3)
      : inner_(std::move(inner)),
        relative_(std::move(relative)),
        path_(std::move(path)),
        s3_(std::move(s3)) {}

  arrow::Status Write(const void* data, int64_t nbytes) override {
    if (const int error = InjectedWriteErrorFor(relative_)) {
      return ErrorOfErrno(error, "writing", path_);
    }
    return Checked(inner_->Write(data, nbytes), "writing");
  }
  arrow::Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    if (const int error = InjectedWriteErrorFor(relative_)) {
      return ErrorOfErrno(error, "writing", path_);
    }
    return Checked(inner_->Write(data), "writing");
  }
  arrow::Status Flush() override { return Checked(inner_->Flush(), "writing"); }
  arrow::Status Close() override { return Checked(inner_->Close(), "closing"); }
  arrow::Status Abort() override { return inner_->Abort(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  bool closed() const override { return inner_->closed(); }

 private:
  arrow::Status Checked(const arrow::Status& status, std::string_view action) const {
    arrow::Status checked = WriteError(status, action, path_);
    return s3_ ? s3_->Typed(checked) : checked;
  }

  std::shared_ptr<arrow::io::OutputStream> inner_;
  std::string relative_;
  std::string path_;
  std::shared_ptr<S3Store> s3_;
};

arrow::Status WriteAll(int fd, std::string_view contents, const std::string& path,
                       std::string_view relative) {
  if (const int error = InjectedWriteErrorFor(relative))
    return ErrorOfErrno(error, "writing", path);
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("writing", path);
    }
    written += static_cast<size_t>(n);
  }
  return arrow::Status::OK();
}

std::string ParentOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

}  // namespace

arrow::Result<std::shared_ptr<Storage>> Storage::Open(std::string_view uri_or_path) {
  if (uri_or_path.empty()) return InvalidArgument("dataset path is empty");
  const std::string text(uri_or_path);
  const bool looks_like_uri = text.find("://") != std::string::npos;
  if (!looks_like_uri) {
    std::error_code error;
    std::string absolute = std::filesystem::absolute(text, error).lexically_normal().string();
    if (error) return InvalidArgument("cannot resolve path ", text, ": ", error.message());
    while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
    return std::shared_ptr<Storage>(new Storage(std::make_shared<arrow::fs::LocalFileSystem>(),
                                                absolute, absolute, /*is_local=*/true));
  }
  if (IsS3Uri(text)) {
    ARROW_ASSIGN_OR_RAISE(auto store, S3Store::Open(text));
    std::shared_ptr<Storage> storage(new Storage(store->filesystem(),
                                                 store->location().FilesystemPath(),
                                                 store->location().Uri(), /*is_local=*/false));
    storage->s3_ = std::move(store);
    return storage;
  }
  std::string base;
  auto filesystem = arrow::fs::FileSystemFromUri(text, &base);
  if (!filesystem.ok())
    return InvalidArgument("cannot open ", text, ": ", filesystem.status().message());
  const bool is_local = (*filesystem)->type_name() == "local";
  return std::shared_ptr<Storage>(new Storage(*filesystem, base, text, is_local));
}

Storage::Storage(std::shared_ptr<arrow::fs::FileSystem> filesystem, std::string base,
                 std::string root, bool is_local)
    : filesystem_(std::move(filesystem)),
      base_(std::move(base)),
      root_(std::move(root)),
      is_local_(is_local) {}

std::string Storage::FullPath(std::string_view relative) const {
  if (relative.empty()) return base_;
  return base_ + "/" + std::string(relative);
}

arrow::Status Storage::Typed(const arrow::Status& status) const {
  return s3_ ? s3_->Typed(status) : status;
}

std::string Storage::AbsolutePath(std::string_view relative) const {
  return is_local_ ? FullPath(relative) : root_ + "/" + std::string(relative);
}

arrow::Result<bool> Storage::Exists(std::string_view relative) const {
  auto info = filesystem_->GetFileInfo(FullPath(relative));
  if (!info.ok()) return Typed(info.status());
  return info->type() != arrow::fs::FileType::NotFound;
}

arrow::Result<std::shared_ptr<arrow::Buffer>> Storage::ReadFile(std::string_view relative) const {
  if (s3_) return s3_->ReadWhole(relative);
  ARROW_ASSIGN_OR_RAISE(auto file, OpenForRead(relative));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  return file->ReadAt(0, size);
}

arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> Storage::OpenForRead(
    std::string_view relative, std::optional<int64_t> expected_size) const {
  if (s3_) return s3_->OpenForRead(relative, expected_size);
  const std::string path = FullPath(relative);
  if (is_local_) {
    if (::access(path.c_str(), F_OK) != 0) {
      return NotFound("file ", AbsolutePath(relative), " does not exist");
    }
    auto mapped = arrow::io::MemoryMappedFile::Open(path, arrow::io::FileMode::READ);
    if (!mapped.ok()) return WithContext(mapped.status(), "opening " + path);
    return std::shared_ptr<arrow::io::RandomAccessFile>(*mapped);
  }
  auto file = filesystem_->OpenInputFile(path);
  if (!file.ok() && file.status().message().find("Path does not exist") != std::string::npos) {
    return NotFound("file ", AbsolutePath(relative), " does not exist");
  }
  return file;
}

arrow::Result<std::shared_ptr<arrow::io::OutputStream>> Storage::OpenForWrite(
    std::string_view relative) {
  const std::string path = FullPath(relative);
  // Object stores have no directories: creating one would put a marker object per level.
  if (!s3_) {
    ARROW_RETURN_NOT_OK(WriteError(filesystem_->CreateDir(ParentOf(path), /*recursive=*/true),
                                   "creating the directory of", path));
  }
  auto stream = filesystem_->OpenOutputStream(path);
  if (!stream.ok()) return Typed(WriteError(stream.status(), "creating", path));
  return std::make_shared<WriteStream>(*std::move(stream), std::string(relative),
                                       AbsolutePath(relative), s3_);
}

arrow::Status Storage::Sync(std::string_view relative) {
  if (!is_local_) return arrow::Status::OK();
  return SyncPath(FullPath(relative), /*directory=*/false);
}

arrow::Status Storage::WriteFile(std::string_view relative, std::string_view contents) {
  ARROW_ASSIGN_OR_RAISE(auto stream, OpenForWrite(relative));
  ARROW_RETURN_NOT_OK(stream->Write(contents.data(), static_cast<int64_t>(contents.size())));
  ARROW_RETURN_NOT_OK(stream->Close());
  return Sync(relative);
}

arrow::Result<bool> Storage::PutIfAbsent(std::string_view relative, std::string_view contents) {
  if (s3_) {
    if (const int error = InjectedWriteErrorFor(relative)) {
      return ErrorOfErrno(error, "writing", AbsolutePath(relative));
    }
    return s3_->PutIfAbsent(relative, contents);
  }
  if (!is_local_) {
    return Unsupported("atomic put-if-absent is not implemented for ", root_,
                       "; use a local filesystem path");
  }
  const std::string final_path = FullPath(relative);
  const std::string directory = ParentOf(final_path);
  ARROW_RETURN_NOT_OK(WriteError(filesystem_->CreateDir(directory, /*recursive=*/true),
                                 "creating the directory of", final_path));
  // The temporary name starts with '.' so that readers listing the directory skip it.
  const std::string temporary = directory + "/.tmp-" + NewUuid();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  // Errors name the file being written, not its temporary name.
  if (fd < 0) return ErrnoError("creating", final_path);
  arrow::Status status = WriteAll(fd, contents, final_path, relative);
  if (status.ok() && ::fsync(fd) != 0) status = ErrnoError("fsync of", final_path);
  ::close(fd);
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  CrashPoint(kCrashWhileWritingManifest);
  // link(2) fails with EEXIST instead of replacing: exactly one writer gets the name.
  const int rc = ::link(temporary.c_str(), final_path.c_str());
  const int link_error = errno;
  ::unlink(temporary.c_str());
  if (rc != 0) {
    if (link_error == EEXIST) return false;
    errno = link_error;
    return ErrnoError("linking", final_path);
  }
  ARROW_RETURN_NOT_OK(SyncPath(directory, /*directory=*/true));
  return true;
}

arrow::Result<std::vector<FileEntry>> Storage::List(std::string_view relative_dir) const {
  arrow::fs::FileSelector selector;
  selector.base_dir = FullPath(relative_dir);
  selector.allow_not_found = true;
  selector.recursive = false;
  // Another process may remove an entry (a commit's temporary manifest) between the listing
  // and its stat, which Arrow reports as an error: such a listing is simply taken again.
  constexpr int kAttempts = 8;
  auto listed = filesystem_->GetFileInfo(selector);
  // (Object stores list without a stat per entry; their failures were retried already.)
  for (int attempt = 1; !s3_ && !listed.ok() && attempt < kAttempts; ++attempt) {
    listed = filesystem_->GetFileInfo(selector);
  }
  if (!listed.ok()) return Typed(listed.status());
  auto infos = *std::move(listed);
  std::vector<FileEntry> entries;
  entries.reserve(infos.size());
  const std::string prefix = relative_dir.empty() ? "" : std::string(relative_dir) + "/";
  for (const auto& info : infos) {
    FileEntry entry;
    entry.path = prefix + info.base_name();
    entry.size_bytes = info.size();
    entry.modified =
        std::chrono::time_point_cast<std::chrono::system_clock::duration>(info.mtime());
    entry.is_directory = info.type() == arrow::fs::FileType::Directory;
    entries.push_back(std::move(entry));
  }
  return entries;
}

arrow::Status Storage::DeleteFile(std::string_view relative) {
  return Typed(filesystem_->DeleteFile(FullPath(relative)));
}

arrow::Status Storage::DeleteDirectory(std::string_view relative) {
  return Typed(filesystem_->DeleteDir(FullPath(relative)));
}

arrow::Status Storage::CreateDirectory(std::string_view relative) {
  if (s3_) return arrow::Status::OK();  // a prefix exists once an object is under it
  return filesystem_->CreateDir(FullPath(relative), /*recursive=*/true);
}

}  // namespace tessera::io
