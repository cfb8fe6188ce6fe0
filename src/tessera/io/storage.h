// Storage: the files under one dataset root, reached through arrow::fs.
//
// Every path given to Storage is relative to the root ("_versions/000...1.manifest").
// The one primitive the commit protocol needs beyond plain files is PutIfAbsent: on a local
// filesystem it writes a temporary file, fsyncs it and link(2)s it to the final name, so the
// name appears atomically, fully written, and only once. On S3-compatible object storage
// (`s3://bucket/prefix`, s3_store.h) it is a conditional PUT, and every failure of the store is
// typed (PermissionDenied, NotFound, Unavailable) and names the dataset URI. Other filesystems
// arrow::fs knows are reachable for reads but refuse PutIfAbsent with Unsupported.
//
// Every write (OpenForWrite's streams, WriteFile, PutIfAbsent, Sync) fails under one rule: a
// full disk or an exhausted quota (ENOSPC, EDQUOT) is ResourceExhausted naming the file and
// saying to free space; any other failure of the storage is IOError.
#pragma once

#include <arrow/buffer.h>
#include <arrow/filesystem/filesystem.h>
#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/io/verified_blocks.h"

namespace tessera::io {

class S3Store;

struct FileEntry {
  std::string path;  // relative to the root
  int64_t size_bytes = 0;
  std::chrono::system_clock::time_point modified;
  bool is_directory = false;
};

class Storage {
 public:
  // `uri_or_path`: a local path (relative paths are made absolute) or a URI arrow::fs knows.
  static arrow::Result<std::shared_ptr<Storage>> Open(std::string_view uri_or_path);

  // The root as the user named it, absolute for local paths: used in messages.
  const std::string& root() const { return root_; }
  bool is_local() const { return is_local_; }
  std::string AbsolutePath(std::string_view relative) const;

  arrow::Result<bool> Exists(std::string_view relative) const;
  // The whole file; on object storage one GET, or none when the process has read it before.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view relative) const;
  // A random-access view of the file; memory-mapped on local filesystems, so reading a
  // slice touches only the pages of that slice. On object storage it reads through the
  // process's cache in chunks (cached_object_file.h); `expected_size`, when the caller knows
  // the size (from the file's checksums), spares the HEAD that would ask for it, and a file
  // found shorter is Corrupt when read. Local files ignore it: their real size is checked.
  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenForRead(
      std::string_view relative, std::optional<int64_t> expected_size = std::nullopt) const;
  // A new file to stream into; the caller closes it, then calls Sync().
  arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenForWrite(std::string_view relative);
  // Makes a closed file durable (fsync on local filesystems, nothing elsewhere).
  arrow::Status Sync(std::string_view relative);
  // Writes a whole file durably (not atomically against concurrent writers of the same name).
  arrow::Status WriteFile(std::string_view relative, std::string_view contents);
  // Creates the file with `contents` iff no file of that name exists. Returns false, writing
  // nothing visible, when it already exists. Atomic and durable on local filesystems.
  arrow::Result<bool> PutIfAbsent(std::string_view relative, std::string_view contents);

  // Files directly under `relative_dir` (not recursive); empty if the directory is missing.
  arrow::Result<std::vector<FileEntry>> List(std::string_view relative_dir) const;
  arrow::Status DeleteFile(std::string_view relative);
  arrow::Status DeleteDirectory(std::string_view relative);
  arrow::Status CreateDirectory(std::string_view relative);

  // The blocks of this dataset's files that readers have verified (verified_blocks.h).
  VerifiedBlocks& verified_blocks() const { return *verified_blocks_; }

 private:
  Storage(std::shared_ptr<arrow::fs::FileSystem> filesystem, std::string base, std::string root,
          bool is_local);
  std::string FullPath(std::string_view relative) const;
  // `status` with the kind of an object store's failure; unchanged elsewhere.
  arrow::Status Typed(const arrow::Status& status) const;

  std::shared_ptr<arrow::fs::FileSystem> filesystem_;
  std::string base_;  // root as a path inside filesystem_
  std::string root_;
  bool is_local_;
  std::shared_ptr<S3Store> s3_;  // set for s3:// roots
  std::unique_ptr<VerifiedBlocks> verified_blocks_ = std::make_unique<VerifiedBlocks>();
};

}  // namespace tessera::io
