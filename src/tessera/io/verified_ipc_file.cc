#include "tessera/io/verified_ipc_file.h"

#include <cstring>

#include "tessera/io/array_verification.h"
#include "tessera/status.h"

namespace tessera::io {

namespace {

// Whether a failure of Arrow's IPC reader means the file is damaged (reported as Corrupt naming
// it) rather than being one already (Corrupt), one of the storage or the process that tessera
// typed (a throttled or refused read, a file gone from object storage: not damage), or Arrow's
// own out-of-memory or cancellation. Arrow reports damaged bytes as IOError or Invalid.
bool IsDamage(const arrow::Status& status) {
  if (KindOf(status) == ErrorKind::kCorrupt) return false;
  if (status.IsOutOfMemory() || status.IsCancelled()) return false;
  return !(HasErrorDetail(status) &&
           (IsStorageOrProcessFailure(status) || KindOf(status) == ErrorKind::kNotFound));
}

}  // namespace

arrow::Result<std::unique_ptr<VerifiedIpcFile>> VerifiedIpcFile::Open(
    const Storage& storage, std::string_view path, std::string description, std::string remedy,
    const std::vector<int>& included_fields) {
  std::unique_ptr<VerifiedIpcFile> ipc(new VerifiedIpcFile());
  ARROW_ASSIGN_OR_RAISE(
      ipc->file_, VerifiedFile::Open(storage, path, std::move(description), std::move(remedy)));
  ARROW_RETURN_NOT_OK(ipc->VerifyFooter());
  arrow::ipc::IpcReadOptions options = arrow::ipc::IpcReadOptions::Defaults();
  // A memory-mapped batch read whole is zero-copy: every buffer is a slice of the mapping.
  // Arrow reads a projected batch buffer by buffer into fresh memory instead (a copy of the
  // column per batch), so projection is used only where reading costs I/O.
  if (!ipc->file_->supports_zero_copy()) options.included_fields = included_fields;
  options.use_threads = false;
  auto reader = arrow::ipc::RecordBatchFileReader::Open(ipc->file_, options);
  if (!reader.ok()) {
    if (!IsDamage(reader.status())) {
      return reader.status();
    }
    return ipc->file_->CorruptError("cannot be read as an Arrow IPC file: " +
                                    reader.status().message());
  }
  ipc->reader_ = *reader;
  return ipc;
}

arrow::Status VerifiedIpcFile::VerifyFooter() const {
  // The file ends with the footer, its int32 length and the magic "ARROW1". The footer locates
  // every batch, so it is verified whole, however large (small reads are verified anyway).
  constexpr int64_t kTrailerBytes = 10;
  ARROW_ASSIGN_OR_RAISE(int64_t size, file_->GetSize());
  if (size < kTrailerBytes) return file_->CorruptError("is too short for an Arrow IPC file");
  // A small read: verified as it is read.
  ARROW_ASSIGN_OR_RAISE(auto trailer, file_->ReadAt(size - kTrailerBytes, kTrailerBytes));
  int32_t footer_bytes = 0;
  std::memcpy(&footer_bytes, trailer->data(), sizeof(footer_bytes));
  if (footer_bytes < 0 || footer_bytes > size - kTrailerBytes) {
    return file_->CorruptError(Concat("declares an Arrow IPC footer of ", footer_bytes, " bytes"));
  }
  return file_->VerifyOffsets(size - kTrailerBytes - footer_bytes, footer_bytes);
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> VerifiedIpcFile::ReadBatchUnverified(
    int index) const {
  if (index < 0 || index >= reader_->num_record_batches()) {
    return file_->CorruptError(
        Concat("has no record batch ", index, " (it has ", reader_->num_record_batches(), ")"));
  }
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> batch;
  bool read = false;
  if (!first_read_done_.load(std::memory_order_acquire)) {
    // Arrow's reader notes on its first read that it has read the dictionaries (a plain
    // field): the first read is made by one thread; the others wait for it, then read at once
    // (not one after the other under the lock: on object storage each read is a round trip).
    std::lock_guard<std::mutex> lock(first_read_mutex_);
    if (!first_read_done_.load(std::memory_order_relaxed)) {
      batch = reader_->ReadRecordBatch(index);
      read = true;
      if (batch.ok()) first_read_done_.store(true, std::memory_order_release);
    }
  }
  if (!read) batch = reader_->ReadRecordBatch(index);
  if (!batch.ok()) {
    if (!IsDamage(batch.status())) {
      return batch.status();
    }
    return file_->CorruptError(
        Concat("cannot read record batch ", index, ": ", batch.status().message()));
  }
  // Lengths and buffer counts: cheap, and what VerifyRows relies on to find the rows' bytes.
  arrow::Status valid = (*batch)->Validate();
  if (!valid.ok()) {
    return file_->CorruptError(
        Concat("holds an invalid record batch ", index, ": ", valid.message()));
  }
  return *batch;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> VerifiedIpcFile::ReadBatch(int index) const {
  ARROW_ASSIGN_OR_RAISE(auto batch, ReadBatchUnverified(index));
  ARROW_RETURN_NOT_OK(VerifyBatch(*file_, *batch));
  return batch;
}

}  // namespace tessera::io
