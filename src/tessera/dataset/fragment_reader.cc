#include "tessera/dataset/fragment_reader.h"

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::unique_ptr<FragmentReader>> FragmentReader::Open(
    const io::Storage& storage, const format::Fragment& fragment,
    const std::shared_ptr<arrow::Schema>& schema, const std::vector<int>& columns) {
  if (fragment.files_size() != 1) {
    return Corrupt("fragment ", fragment.id(), " of dataset ", storage.root(), " has ",
                   fragment.files_size(), " data files; this build reads exactly one");
  }
  const format::DataFile& file = fragment.files(0);
  std::unique_ptr<FragmentReader> reader(new FragmentReader());
  reader->fragment_id_ = fragment.id();
  reader->physical_rows_ = fragment.physical_rows();
  reader->rows_per_batch_ = file.rows_per_batch();
  reader->path_ = storage.AbsolutePath(file.path());

  auto source = storage.OpenForRead(file.path());
  if (!source.ok()) {
    return WithContext(source.status(), "reading fragment " + std::to_string(fragment.id()) +
                                            " of dataset " + storage.root());
  }
  arrow::ipc::IpcReadOptions options = arrow::ipc::IpcReadOptions::Defaults();
  // A memory-mapped batch read whole is zero-copy: every buffer is a slice of the mapping.
  // Arrow reads a projected batch buffer by buffer into fresh memory instead (a copy of the
  // column per batch), so projection is used only where reading costs I/O (remote storage);
  // ReadBatch selects the columns either way.
  if (!storage.is_local()) options.included_fields = columns;
  options.use_threads = false;
  auto file_reader = arrow::ipc::RecordBatchFileReader::Open(*source, options);
  if (!file_reader.ok()) {
    return Corrupt("data file ", reader->path_, " of fragment ", fragment.id(),
                   " cannot be read: ", file_reader.status().message());
  }
  reader->reader_ = *file_reader;
  reader->num_batches_ = reader->reader_->num_record_batches();
  const uint64_t expected_batches =
      reader->rows_per_batch_ == 0
          ? 0
          : (reader->physical_rows_ + reader->rows_per_batch_ - 1) / reader->rows_per_batch_;
  if (static_cast<uint64_t>(reader->num_batches_) != expected_batches) {
    return Corrupt("data file ", reader->path_, " has ", reader->num_batches_,
                   " record batches; the manifest implies ", expected_batches);
  }
  if (columns.empty()) {
    reader->schema_ = schema;
  } else {
    arrow::FieldVector fields;
    for (int column : columns) fields.push_back(schema->field(column));
    reader->schema_ = arrow::schema(std::move(fields));
  }
  ARROW_ASSIGN_OR_RAISE(reader->deletions_, LoadDeletionVector(storage, fragment));
  return reader;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FragmentReader::ReadBatch(int index) const {
  auto batch = reader_->ReadRecordBatch(index);
  if (!batch.ok()) {
    return Corrupt("data file ", path_, " batch ", index,
                   " cannot be read: ", batch.status().message());
  }
  GlobalReadStatistics().batches_opened++;
  // The IPC reader orders included fields by their position in the file; restore the order
  // the caller asked for.
  if ((*batch)->schema()->Equals(*schema_, /*check_metadata=*/false)) return *batch;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (const auto& field : schema_->fields()) {
    columns.push_back((*batch)->GetColumnByName(field->name()));
  }
  return arrow::RecordBatch::Make(schema_, (*batch)->num_rows(), std::move(columns));
}

}  // namespace tessera::dataset
