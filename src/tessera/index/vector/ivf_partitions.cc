#include "tessera/index/vector/ivf_partitions.h"

#include <arrow/array.h>
#include <arrow/buffer.h>
#include <arrow/util/key_value_metadata.h>

#include <algorithm>

#include "tessera/io/array_verification.h"
#include "tessera/io/checksummed_output.h"
#include "tessera/io/parallel_reads.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

constexpr const char* kPartitionsKey = "tessera.ivf.num_partitions";
constexpr const char* kDimKey = "tessera.ivf.dim";

std::shared_ptr<arrow::DataType> ValueType(const PartitionLayout& layout) {
  switch (layout.values) {
    case PartitionLayout::Values::kUInt8:
      return arrow::uint8();
    case PartitionLayout::Values::kInt32:
      return arrow::int32();
    case PartitionLayout::Values::kFloat32:
      break;
  }
  return arrow::float32();
}

size_t ValueSize(const PartitionLayout& layout) { return layout.value_size(); }

std::shared_ptr<arrow::Schema> PartitionSchema(const PartitionLayout& layout, int num_partitions) {
  return arrow::schema(
      {arrow::field(layout.key, arrow::uint64(), /*nullable=*/false),
       arrow::field(layout.column, arrow::fixed_size_list(ValueType(layout), layout.width),
                    /*nullable=*/false)},
      arrow::key_value_metadata({kPartitionsKey, kDimKey},
                                {std::to_string(num_partitions), std::to_string(layout.width)}));
}

}  // namespace

arrow::Result<std::unique_ptr<IvfPartitionWriter>> IvfPartitionWriter::Open(io::Storage& storage,
                                                                            std::string path,
                                                                            PartitionLayout layout,
                                                                            int num_partitions) {
  std::unique_ptr<IvfPartitionWriter> writer(new IvfPartitionWriter());
  writer->storage_ = &storage;
  writer->path_ = std::move(path);
  writer->layout_ = layout;
  writer->num_partitions_ = num_partitions;
  writer->schema_ = PartitionSchema(layout, num_partitions);
  ARROW_ASSIGN_OR_RAISE(writer->stream_, io::OpenChecksummedForWrite(storage, writer->path_));
  ARROW_ASSIGN_OR_RAISE(writer->writer_,
                        arrow::ipc::MakeFileWriter(writer->stream_, writer->schema_,
                                                   arrow::ipc::IpcWriteOptions::Defaults()));
  return writer;
}

arrow::Status IvfPartitionWriter::Write(const uint64_t* row_addresses, const void* values,
                                        int64_t count) {
  if (written_ >= num_partitions_) {
    return MakeError(ErrorKind::kInternal, "IVF partitions file " + path_ + " already has " +
                                               std::to_string(num_partitions_) + " partitions");
  }
  largest_partition_ = std::max(largest_partition_, count);
  // Buffers of empty partitions still point somewhere: some writers dislike null data.
  static const uint64_t kNoAddress = 0;
  static const float kNoValue = 0;
  if (count == 0) {
    row_addresses = &kNoAddress;
    values = &kNoValue;
  }
  // The buffers wrap the caller's memory: the writer serializes them before returning.
  auto addresses = std::make_shared<arrow::UInt64Array>(
      count, arrow::Buffer::Wrap(row_addresses, static_cast<size_t>(count)));
  const int64_t value_count = count * layout_.width;
  auto value_buffer = std::make_shared<arrow::Buffer>(
      static_cast<const uint8_t*>(values),
      static_cast<int64_t>(static_cast<size_t>(value_count) * ValueSize(layout_)));
  auto value_array = arrow::MakeArray(
      arrow::ArrayData::Make(ValueType(layout_), value_count, {nullptr, value_buffer}, 0));
  ARROW_ASSIGN_OR_RAISE(auto lists,
                        arrow::FixedSizeListArray::FromArrays(value_array, layout_.width));
  auto batch = arrow::RecordBatch::Make(schema_, count, {addresses, lists});
  ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*batch));
  ++written_;
  return arrow::Status::OK();
}

arrow::Status IvfPartitionWriter::Finish() {
  if (written_ != num_partitions_) {
    return MakeError(ErrorKind::kInternal, "IVF partitions file " + path_ + " got " +
                                               std::to_string(written_) + " of " +
                                               std::to_string(num_partitions_) + " partitions");
  }
  ARROW_RETURN_NOT_OK(writer_->Close());
  ARROW_RETURN_NOT_OK(stream_->Close());
  return storage_->Sync(path_);
}

arrow::Result<std::unique_ptr<IvfPartitions>> IvfPartitions::Open(const io::Storage& storage,
                                                                  const std::string& path,
                                                                  PartitionLayout layout,
                                                                  int num_partitions,
                                                                  std::string_view what) {
  const std::string where = std::string(what) + " " + storage.AbsolutePath(path);
  std::unique_ptr<IvfPartitions> partitions(new IvfPartitions());
  ARROW_ASSIGN_OR_RAISE(
      partitions->file_,
      io::VerifiedIpcFile::Open(storage, path, where,
                                "rebuild the index (tessera index create --replace) or drop it"));
  const auto& file = *partitions->file_;
  const auto expected = PartitionSchema(layout, num_partitions);
  if (!file.schema()->Equals(*expected, /*check_metadata=*/true)) {
    return Corrupt(where, " has schema ", file.schema()->ToString(true), "; expected ",
                   expected->ToString(true));
  }
  if (file.num_batches() != num_partitions) {
    return Corrupt(where, " has ", file.num_batches(), " partitions; its model has ",
                   num_partitions);
  }
  partitions->partitions_.resize(static_cast<size_t>(num_partitions));
  partitions->locks_ = std::make_unique<std::mutex[]>(static_cast<size_t>(num_partitions));
  partitions->verified_ = std::make_unique<io::BlockFlags>(static_cast<uint64_t>(num_partitions));
  partitions->where_ = where;
  partitions->layout_ = layout;
  partitions->remote_ = !storage.is_local();
  return partitions;
}

arrow::Status IvfPartitions::Load(int p) const {
  // Metadata only: the values are verified by the caller.
  ARROW_ASSIGN_OR_RAISE(auto batch, file_->ReadBatchUnverified(p));
  const auto& addresses = static_cast<const arrow::UInt64Array&>(*batch->column(0));
  const auto& lists = static_cast<const arrow::FixedSizeListArray&>(*batch->column(1));
  const auto& values = *lists.values();
  if (addresses.null_count() != 0 || lists.null_count() != 0 || values.null_count() != 0) {
    return Corrupt(where_, " partition ", p, " holds nulls");
  }
  Partition& partition = partitions_[static_cast<size_t>(p)];
  partition.size = batch->num_rows();
  partition.row_addresses = addresses.raw_values();
  const size_t first = static_cast<size_t>(partition.size == 0 ? 0 : lists.value_offset(0));
  partition.values = values.data()->GetValues<uint8_t>(1, 0) +
                     (static_cast<size_t>(values.offset()) + first) * ValueSize(layout_);
  partition.batch = std::move(batch);
  return arrow::Status::OK();
}

arrow::Status IvfPartitions::Verify(int partition) const {
  if (partition < 0 || partition >= num_partitions()) {
    return file_->file().CorruptError(Concat("has no partition ", partition));
  }
  const auto flag = static_cast<uint64_t>(partition);
  if (verified_->IsSet(flag)) return arrow::Status::OK();
  std::lock_guard<std::mutex> lock(locks_[static_cast<size_t>(partition)]);
  if (verified_->IsSet(flag)) return arrow::Status::OK();
  const Partition& entry = partitions_[static_cast<size_t>(partition)];
  if (entry.batch == nullptr) ARROW_RETURN_NOT_OK(Load(partition));
  arrow::Status status = io::VerifyBatch(file_->file(), *entry.batch);
  if (!status.ok()) return WithContext(status, Concat("partition ", partition));
  verified_->Set(flag);  // after the partition's fields: a reader that sees it sees them
  return arrow::Status::OK();
}

arrow::Status IvfPartitions::Prefetch(const std::vector<int>& partitions) const {
  if (!remote_) return arrow::Status::OK();
  std::vector<int> missing;
  for (int p : partitions) {
    if (p < 0 || p >= num_partitions() || !verified_->IsSet(static_cast<uint64_t>(p))) {
      missing.push_back(p);
    }
  }
  return io::ParallelReads(static_cast<int64_t>(missing.size()),
                           [&](int64_t i) { return Verify(missing[static_cast<size_t>(i)]); });
}

}  // namespace tessera::index::vector
