#include "tessera/dataset/fragment_writer.h"

#include <arrow/io/interfaces.h>
#include <arrow/ipc/writer.h>
#include <arrow/table.h>

#include <string>

#include "tessera/dataset/fragment_statistics.h"
#include "tessera/dataset/new_files.h"
#include "tessera/format/paths.h"
#include "tessera/io/block_checksums.h"
#include "tessera/io/checksummed_output.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::dataset {

namespace {

// Accumulates rows into one data file at a time, cutting batches of exactly rows_per_batch.
class FragmentSink {
 public:
  FragmentSink(io::Storage& storage, std::shared_ptr<arrow::Schema> schema,
               const WriteOptions& options)
      : storage_(storage), schema_(std::move(schema)), options_(options), statistics_(schema_) {}

  arrow::Status Add(const std::shared_ptr<arrow::RecordBatch>& batch) {
    if (batch->num_rows() == 0) return arrow::Status::OK();
    pending_.push_back(batch);
    pending_rows_ += static_cast<uint64_t>(batch->num_rows());
    while (pending_rows_ >= BatchTarget()) ARROW_RETURN_NOT_OK(WriteBatch(BatchTarget()));
    return arrow::Status::OK();
  }

  arrow::Result<std::vector<format::Fragment>> Finish() {
    while (pending_rows_ > 0)
      ARROW_RETURN_NOT_OK(WriteBatch(std::min(pending_rows_, BatchTarget())));
    ARROW_RETURN_NOT_OK(CloseFile());
    return std::move(fragments_);
  }

  // After a failure: removes every file written so far, the unfinished one included (best
  // effort), so that a failed write leaves no orphans.
  void RemoveWritten() {
    writer_.reset();
    if (stream_ != nullptr) (void)stream_->Close();
    const auto remove = [&](const std::string& data_file) {
      for (const auto& path : io::FileAndChecksums(data_file)) (void)storage_.DeleteFile(path);
    };
    if (!path_.empty()) remove(path_);
    for (const auto& fragment : fragments_) {
      for (const auto& file : fragment.files()) remove(file.path());
    }
  }

 private:
  // Rows the next batch should have: a full batch, or what fits in the current file.
  uint64_t BatchTarget() const {
    return std::min(options_.rows_per_batch, options_.max_rows_per_file - rows_in_file_);
  }

  arrow::Status WriteBatch(uint64_t rows) {
    auto table = arrow::Table::FromRecordBatches(schema_, pending_);
    ARROW_RETURN_NOT_OK(table.status());
    ARROW_ASSIGN_OR_RAISE(auto combined, (*table)->CombineChunksToBatch());
    auto head = combined->Slice(0, static_cast<int64_t>(rows));
    pending_.clear();
    pending_rows_ -= rows;
    if (pending_rows_ > 0) pending_.push_back(combined->Slice(static_cast<int64_t>(rows)));

    if (writer_ == nullptr) ARROW_RETURN_NOT_OK(OpenFile());
    ARROW_RETURN_NOT_OK(statistics_.Add(*head));
    ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*head));
    rows_in_file_ += rows;
    if (rows_in_file_ >= options_.max_rows_per_file) ARROW_RETURN_NOT_OK(CloseFile());
    return arrow::Status::OK();
  }

  arrow::Status OpenFile() {
    path_ = format::DataFilePath(io::NewUuid());
    ARROW_ASSIGN_OR_RAISE(stream_, io::OpenChecksummedForWrite(storage_, path_));
    arrow::ipc::IpcWriteOptions ipc_options = arrow::ipc::IpcWriteOptions::Defaults();
    ipc_options.codec = nullptr;  // uncompressed: rows are read in place from a memory map
    ARROW_ASSIGN_OR_RAISE(writer_, arrow::ipc::MakeFileWriter(stream_, schema_, ipc_options));
    rows_in_file_ = 0;
    return arrow::Status::OK();
  }

  arrow::Status CloseFile() {
    if (writer_ == nullptr) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(writer_->Close());
    ARROW_ASSIGN_OR_RAISE(int64_t size, stream_->Tell());
    ARROW_RETURN_NOT_OK(stream_->Close());
    ARROW_RETURN_NOT_OK(storage_.Sync(path_));
    format::Fragment fragment;
    fragment.set_physical_rows(rows_in_file_);
    format::DataFile* file = fragment.add_files();
    file->set_path(path_);
    file->set_num_rows(rows_in_file_);
    file->set_size_bytes(static_cast<uint64_t>(size));
    file->set_rows_per_batch(options_.rows_per_batch);
    ARROW_ASSIGN_OR_RAISE(*fragment.mutable_statistics(), statistics_.Finish());
    fragments_.push_back(std::move(fragment));
    writer_.reset();
    stream_.reset();
    rows_in_file_ = 0;
    return arrow::Status::OK();
  }

  io::Storage& storage_;
  std::shared_ptr<arrow::Schema> schema_;
  const WriteOptions& options_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending_;
  uint64_t pending_rows_ = 0;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
  uint64_t rows_in_file_ = 0;
  StatisticsCollector statistics_;  // of the file being written
  std::vector<format::Fragment> fragments_;
};

arrow::Result<std::shared_ptr<arrow::RecordBatch>> ConformToSchema(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& schema) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  columns.reserve(schema->num_fields());
  for (const auto& field : schema->fields()) {
    auto column = batch.GetColumnByName(field->name());
    if (column == nullptr) {
      return InvalidArgument("a batch lacks column '", field->name(), "'");
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema, batch.num_rows(), std::move(columns));
}

}  // namespace

arrow::Result<std::vector<format::Fragment>> WriteFragments(
    io::Storage& storage, arrow::RecordBatchReader& source,
    const std::shared_ptr<arrow::Schema>& schema, const WriteOptions& options) {
  if (options.max_rows_per_file == 0 || options.rows_per_batch == 0 ||
      options.max_rows_per_file > UINT32_MAX) {
    return InvalidArgument("max_rows_per_file must be in [1, 2^32) and rows_per_batch positive");
  }
  const util::ControlScope control(options.control);
  FragmentSink sink(storage, schema, options);
  auto written = [&]() -> arrow::Result<std::vector<format::Fragment>> {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(source.ReadNext(&batch));
      if (batch == nullptr) break;
      // Malformed input (a damaged Arrow file given to append) must not become a data file.
      arrow::Status valid = batch->ValidateFull();
      if (!valid.ok()) {
        return InvalidArgument("an input batch is malformed (", valid.message(),
                               "); the write is abandoned; check the input file");
      }
      ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(*batch, schema));
      ARROW_RETURN_NOT_OK(sink.Add(conformed));
      ARROW_RETURN_NOT_OK(util::AdvanceProgress(static_cast<uint64_t>(batch->num_rows())));
    }
    return sink.Finish();
  }();
  if (!written.ok()) {
    sink.RemoveWritten();
    return written;
  }
  // The last point before the caller commits: a write cancelled now leaves no file behind.
  if (arrow::Status cancelled = util::CheckCancelled(); !cancelled.ok()) {
    RemoveNewFiles(storage, DataFilesOf(*written));
    return cancelled;
  }
  return written;
}

}  // namespace tessera::dataset
