#include "tessera/dataset/fragment_reader.h"

#include <arrow/array.h>

#include <algorithm>

#include "tessera/io/array_verification.h"

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/external_batches.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::unique_ptr<FragmentReader>> FragmentReader::Open(
    const io::Storage& storage, const format::Fragment& fragment,
    const std::shared_ptr<arrow::Schema>& schema, const std::vector<int>& columns,
    std::shared_ptr<const Roaring> deletions) {
  if (fragment.files_size() != 1) {
    return Corrupt("fragment ", fragment.id(), " of dataset ", storage.root(), " has ",
                   fragment.files_size(), " data files; this build reads exactly one");
  }
  const format::DataFile& file = fragment.files(0);
  std::unique_ptr<FragmentReader> reader(new FragmentReader());
  reader->fragment_id_ = fragment.id();
  reader->physical_rows_ = fragment.physical_rows();
  reader->rows_per_batch_ = file.rows_per_batch();
  if (columns.empty()) {
    reader->schema_ = schema;
  } else {
    arrow::FieldVector fields;
    for (int column : columns) fields.push_back(schema->field(column));
    reader->schema_ = arrow::schema(std::move(fields));
  }
  if (file.has_external()) {
    reader->path_ = file.external().location();
    ARROW_ASSIGN_OR_RAISE(reader->external_, ExternalBatches::Open(fragment, reader->schema_));
    reader->num_batches_ = reader->external_->num_batches();
  } else {
    reader->path_ = storage.AbsolutePath(file.path());
    ARROW_ASSIGN_OR_RAISE(
        reader->file_,
        io::VerifiedIpcFile::Open(
            storage, file.path(),
            Concat("data file ", reader->path_, " of fragment ", fragment.id(), " of dataset ",
                   storage.root()),
            "restore the file from a backup; versions that do not reference this fragment "
            "still read",
            columns));
    reader->num_batches_ = reader->file_->num_batches();
    reader->decoded_.resize(static_cast<size_t>(reader->num_batches_));
  }
  const uint64_t expected_batches =
      reader->rows_per_batch_ == 0
          ? 0
          : (reader->physical_rows_ + reader->rows_per_batch_ - 1) / reader->rows_per_batch_;
  if (static_cast<uint64_t>(reader->num_batches_) != expected_batches) {
    return Corrupt("data file ", reader->path_, " has ", reader->num_batches_,
                   " record batches; the manifest implies ", expected_batches);
  }
  for (int i = 0; i < reader->schema_->num_fields(); ++i) reader->all_columns_.push_back(i);
  reader->verified_columns_ = std::make_unique<io::BlockFlags>(
      static_cast<uint64_t>(reader->num_batches_) * reader->all_columns_.size());
  if (deletions == nullptr) {
    ARROW_ASSIGN_OR_RAISE(deletions, LoadDeletionVector(storage, fragment));
  }
  reader->deletions_ = std::move(deletions);
  GlobalReadStatistics().data_files_opened++;
  return reader;
}

FragmentReader::~FragmentReader() = default;

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FragmentReader::ReadBatchUnverified(
    int index) const {
  // Decoded Parquet holds its values, not a map's addresses: ExternalBatches bounds what it
  // keeps, and its batches are validated as they are decoded.
  if (external_ != nullptr) return external_->ReadBatch(index);
  if (index >= 0 && index < num_batches_) {
    std::lock_guard<std::mutex> lock(decoded_mutex_);
    if (decoded_[index] != nullptr) return decoded_[index];
  }
  ARROW_ASSIGN_OR_RAISE(auto batch, DecodeBatch(index));  // fails for an index out of range
  std::lock_guard<std::mutex> lock(decoded_mutex_);
  // Another thread may have decoded it meanwhile: every caller gets the batch kept first, the
  // one whose columns the verified flags describe.
  if (decoded_[index] == nullptr) decoded_[index] = std::move(batch);
  return decoded_[index];
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FragmentReader::DecodeBatch(int index) const {
  ARROW_ASSIGN_OR_RAISE(auto batch, file_->ReadBatchUnverified(index));
  GlobalReadStatistics().batches_opened++;
  if (static_cast<uint64_t>(batch->num_rows()) !=
      std::min(rows_per_batch_, physical_rows_ - static_cast<uint64_t>(index) * rows_per_batch_)) {
    return file_->file().CorruptError(Concat("batch ", index, " holds ", batch->num_rows(),
                                             " rows; the manifest implies ", rows_per_batch_,
                                             " per batch and ", physical_rows_, " in all"));
  }
  // The IPC reader orders included fields by their position in the file; restore the order
  // the caller asked for.
  if (batch->schema()->Equals(*schema_, /*check_metadata=*/false)) return batch;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& field : schema_->fields()) {
    auto column = batch->GetColumnByName(field->name());
    if (column == nullptr || !column->type()->Equals(*field->type())) {
      return file_->file().CorruptError(Concat("batch ", index, " lacks column '", field->name(),
                                               "' of type ", field->type()->ToString()));
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FragmentReader::ReadBatch(int index) const {
  ARROW_ASSIGN_OR_RAISE(auto batch, ReadBatchUnverified(index));
  ARROW_RETURN_NOT_OK(VerifyColumns(index, *batch, all_columns_));
  return batch;
}

arrow::Status FragmentReader::VerifyColumns(int index, const arrow::RecordBatch& batch,
                                            const std::vector<int>& positions) const {
  if (external_ != nullptr) return arrow::Status::OK();  // validated when decoded
  for (int position : positions) {
    const uint64_t flag = VerifiedFlag(index, position);
    if (verified_columns_->IsSet(flag)) continue;
    ARROW_RETURN_NOT_OK(
        io::VerifyArrayRows(file(), *batch.column_data(position), 0, batch.num_rows()));
    verified_columns_->Set(flag);
    GlobalReadStatistics().columns_verified++;
  }
  return arrow::Status::OK();
}

arrow::Status FragmentReader::VerifyColumnRows(int index, const arrow::RecordBatch& batch,
                                               const std::vector<int>& positions, int64_t start,
                                               int64_t count) const {
  if (external_ != nullptr) return arrow::Status::OK();  // validated when decoded
  for (int position : positions) {
    if (verified_columns_->IsSet(VerifiedFlag(index, position))) continue;
    ARROW_RETURN_NOT_OK(io::VerifyArrayRows(file(), *batch.column_data(position), start, count));
  }
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FragmentReader::ReadRowsOfBatch(
    int index, const std::vector<uint32_t>& rows) const {
  if (external_ != nullptr) {
    // Decodes only the row groups holding the rows.
    ARROW_ASSIGN_OR_RAISE(auto batch, external_->ReadBatch(index, &rows));
    if (!rows.empty() && rows.back() >= batch->num_rows()) {
      return InvalidArgument("row ", rows.back(), " is outside batch ", index, " of ", path_);
    }
    return batch;
  }
  ARROW_ASSIGN_OR_RAISE(auto batch, ReadBatchUnverified(index));
  for (uint32_t row : rows) {
    if (row >= batch->num_rows()) {
      return InvalidArgument("row ", row, " is outside batch ", index, " of ", path_);
    }
  }
  // Runs of consecutive rows are verified together.
  for (size_t i = 0; i < rows.size();) {
    size_t end = i + 1;
    while (end < rows.size() && rows[end] == rows[end - 1] + 1) ++end;
    ARROW_RETURN_NOT_OK(
        VerifyColumnRows(index, *batch, all_columns_, rows[i], static_cast<int64_t>(end - i)));
    i = end;
  }
  return batch;
}

}  // namespace tessera::dataset
