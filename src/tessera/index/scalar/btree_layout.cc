#include "tessera/index/scalar/btree_layout.h"

#include <algorithm>

#include "tessera/io/checksummed_output.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

std::string FilePath(const SegmentDirectory& directory, std::string_view name) {
  return directory.path + "/" + std::string(name);
}

}  // namespace

std::shared_ptr<arrow::Schema> PagesSchema(const std::shared_ptr<arrow::DataType>& storage) {
  return arrow::schema({arrow::field("value", storage, /*nullable=*/false),
                        arrow::field("_rowaddr", arrow::uint64(), /*nullable=*/false)});
}

std::shared_ptr<arrow::Schema> LookupSchema(const std::shared_ptr<arrow::DataType>& storage) {
  return arrow::schema({arrow::field("first", storage, /*nullable=*/false),
                        arrow::field("last", storage, /*nullable=*/false),
                        arrow::field("rows", arrow::uint32(), /*nullable=*/false)});
}

std::shared_ptr<arrow::Schema> AddressSchema() {
  return arrow::schema({arrow::field("_rowaddr", arrow::uint64(), /*nullable=*/false)});
}

arrow::Result<std::unique_ptr<IpcFileWriter>> IpcFileWriter::Open(
    const SegmentDirectory& directory, std::string_view name,
    const std::shared_ptr<arrow::Schema>& schema) {
  std::unique_ptr<IpcFileWriter> writer(new IpcFileWriter());
  writer->storage_ = directory.storage;
  writer->path_ = FilePath(directory, name);
  ARROW_ASSIGN_OR_RAISE(writer->stream_,
                        io::OpenChecksummedForWrite(*writer->storage_, writer->path_));
  ARROW_ASSIGN_OR_RAISE(writer->writer_, arrow::ipc::MakeFileWriter(writer->stream_, schema));
  return writer;
}

arrow::Status IpcFileWriter::Write(const arrow::RecordBatch& batch) {
  return writer_->WriteRecordBatch(batch);
}

arrow::Status IpcFileWriter::Close() {
  ARROW_RETURN_NOT_OK(writer_->Close());
  ARROW_RETURN_NOT_OK(stream_->Close());
  return storage_->Sync(path_);
}

arrow::Status WriteAddressFile(const SegmentDirectory& directory, std::string_view name,
                               const std::vector<uint64_t>& rows) {
  ARROW_ASSIGN_OR_RAISE(auto writer, IpcFileWriter::Open(directory, name, AddressSchema()));
  for (size_t start = 0; start < rows.size(); start += kAddressBatchRows) {
    const size_t count = std::min(rows.size() - start, static_cast<size_t>(kAddressBatchRows));
    arrow::UInt64Builder builder;
    ARROW_RETURN_NOT_OK(builder.AppendValues(rows.data() + start, static_cast<int64_t>(count)));
    ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
    ARROW_RETURN_NOT_OK(writer->Write(
        *arrow::RecordBatch::Make(AddressSchema(), static_cast<int64_t>(count), {array})));
  }
  return writer->Close();
}

arrow::Result<std::unique_ptr<io::VerifiedIpcFile>> OpenIpcFile(const SegmentDirectory& directory,
                                                                std::string_view name,
                                                                const arrow::Schema* expected) {
  ARROW_ASSIGN_OR_RAISE(
      auto file,
      io::VerifiedIpcFile::Open(*directory.storage, FilePath(directory, name),
                                Concat("file ", name, " of BTREE segment ", directory.uuid),
                                "rebuild the index (tessera index create --replace) or drop it"));
  if (expected != nullptr && !file->schema()->Equals(*expected, /*check_metadata=*/false)) {
    return Corrupt("file ", name, " of BTREE segment ", directory.uuid, " has schema ",
                   file->schema()->ToString(), "; expected ", expected->ToString());
  }
  return file;
}

arrow::Result<std::vector<uint64_t>> ReadAddressFile(const SegmentDirectory& directory,
                                                     const io::VerifiedIpcFile& file,
                                                     std::string_view name) {
  std::vector<uint64_t> rows;
  for (int i = 0; i < file.num_batches(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto batch, file.ReadBatch(i));
    const auto& column = *batch->column(0);
    if (column.null_count() != 0) {
      return Corrupt("file ", name, " of BTREE segment ", directory.uuid,
                     " holds null row addresses");
    }
    const auto& addresses = static_cast<const arrow::UInt64Array&>(column);
    rows.insert(rows.end(), addresses.raw_values(), addresses.raw_values() + addresses.length());
  }
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i - 1] >= rows[i]) {
      return Corrupt("file ", name, " of BTREE segment ", directory.uuid,
                     " holds row addresses out of order");
    }
  }
  return rows;
}

}  // namespace tessera::index::scalar
