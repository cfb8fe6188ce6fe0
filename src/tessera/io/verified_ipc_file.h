// VerifiedIpcFile: an Arrow IPC file that tessera wrote, opened through its block checksums
// (verified_file.h), whose record batches are verified (array_verification.h) before they are
// returned.
//
// This is the one way data fragments and segment files are read: a damaged file gives Corrupt
// naming it, never a crash or a wrong answer. Readers that use only a few rows of a batch read
// it unverified and verify those rows (array_verification.h); everything else uses ReadBatch.
#pragma once

#include <arrow/ipc/reader.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/io/verified_file.h"

namespace tessera::io {

class VerifiedIpcFile {
 public:
  // See VerifiedFile::Open for `description` and `remedy`. `included_fields`: columns to decode
  // on storage that is not memory-mapped (all when empty); a mapped file always decodes every
  // column, zero-copy.
  static arrow::Result<std::unique_ptr<VerifiedIpcFile>> Open(
      const Storage& storage, std::string_view path, std::string description, std::string remedy,
      const std::vector<int>& included_fields = {});

  std::shared_ptr<arrow::Schema> schema() const { return reader_->schema(); }
  int num_batches() const { return reader_->num_record_batches(); }
  const VerifiedFile& file() const { return *file_; }

  // Batch `index`, every column verified.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadBatch(int index) const;
  // Batch `index` with its metadata verified but not its values: verify the rows and columns
  // used (array_verification.h) before using any of them.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadBatchUnverified(int index) const;

 private:
  VerifiedIpcFile() = default;
  arrow::Status VerifyFooter() const;
  std::shared_ptr<VerifiedFile> file_;
  std::shared_ptr<arrow::ipc::RecordBatchFileReader> reader_;
  mutable std::mutex first_read_mutex_;
  mutable std::atomic<bool> first_read_done_{false};
};

}  // namespace tessera::io
