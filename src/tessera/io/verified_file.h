// VerifiedFile: a file read together with its block checksums (block_checksums.h), which
// verifies every byte before a reader uses it.
//
// It is an arrow::io::RandomAccessFile, so Arrow's IPC reader reads through it. Small reads
// (file footers, message metadata, small record batches: at most kEagerReadBytes) are verified
// as they are read. Large reads of a memory-mapped file are returned unverified, zero-copy: the
// caller verifies the ranges it actually uses with VerifyRange (array_verification.h does this
// for Arrow arrays), so a take of a few rows checks a few blocks, not a whole record batch.
// Files that are not memory-mapped (object stores) are verified on every read.
//
// Each block is verified at most once per opened dataset: the flags live in the Storage
// (verified_blocks.h), so a long-lived reader pays for a block once. Every failure is Corrupt,
// naming the file.
#pragma once

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/io/block_checksums.h"
#include "tessera/io/storage.h"

namespace tessera::io {

class VerifiedFile : public arrow::io::RandomAccessFile {
 public:
  static constexpr int64_t kEagerReadBytes = 64 * 1024;

  // Opens `path` and its companion. `description` names the file in messages ("data file X of
  // fragment 3", "file pages.arrow of BTREE segment U"); `remedy` says what to do about damage.
  // NotFound if the file is missing; Corrupt if the companion is missing or damaged or the
  // file's size differs from the size its checksums cover.
  static arrow::Result<std::shared_ptr<VerifiedFile>> Open(const Storage& storage,
                                                           std::string_view path,
                                                           std::string description,
                                                           std::string remedy);

  const std::string& description() const { return description_; }

  // Verifies [data, data + size), which must lie in a buffer this file returned; Corrupt
  // otherwise, or when a block covering it fails its checksum.
  arrow::Status VerifyRange(const uint8_t* data, int64_t size) const;
  // Verifies bytes [offset, offset + size) of the file.
  arrow::Status VerifyOffsets(int64_t offset, int64_t size) const;
  // A Corrupt status naming this file, for damage found by other checks (structure, values).
  arrow::Status CorruptError(std::string_view what) const;

  // arrow::io::RandomAccessFile
  arrow::Status Close() override;
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Seek(int64_t position) override;
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override;
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override;
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override;
  arrow::Result<int64_t> GetSize() override { return size_; }
  bool supports_zero_copy() const override { return mapped_ != nullptr; }

 private:
  VerifiedFile() = default;
  arrow::Status VerifyBlocks(int64_t first_block, int64_t last_block) const;

  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
  std::shared_ptr<arrow::Buffer> mapped_;  // the whole file, when memory-mapped
  int64_t size_ = 0;
  int64_t position_ = 0;
  bool closed_ = false;
  std::string description_;
  std::string remedy_;
  BlockChecksums checksums_;
  std::shared_ptr<BlockFlags> verified_;
};

}  // namespace tessera::io
