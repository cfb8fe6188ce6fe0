// The partitions file of an IVF segment, `partitions.arrow`: an Arrow IPC file with one record
// batch per partition, in partition order (an empty partition is an empty batch).
//
// Columns: `_rowaddr` uint64 (the row address), then the row's payload, by layout:
//  - IVF_FLAT: `vector` fixed_size_list<float32>[dim], the raw vector as float32 (float16
//    columns are converted exactly);
//  - quantized families (IVF_SQ, IVF_PQ, IVF_RQ): `code` fixed_size_list<uint8>[code size],
//    the row's code as the family defines it.
// The IVF_HNSW_* families store their graphs in a second file of the same form, `graphs.arrow`
// (hnsw_graph.h): key `_node` (level << 32 | node), payload `neighbors`
// fixed_size_list<int32>[2m], one batch per partition.
// Rows are never null. Schema metadata records the partition count and the payload width
// (key tessera.ivf.dim), checked on open.
//
// The file is written uncompressed and read through a memory map, zero-copy: opening it reads
// only its footer, a partition's batch metadata is decoded the first time it is used, and a
// search touches only the pages of the partitions it probes. On object storage the same holds
// for requests: a search fetches the partitions it probes (Prefetch: concurrently), never the
// whole file. Its block checksums are beside it (`partitions.arrow.crc32c`,
// io/block_checksums.h); a partition's bytes are verified the first time it is used (Verify).
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/io/storage.h"
#include "tessera/io/verified_blocks.h"
#include "tessera/io/verified_ipc_file.h"

namespace tessera::index::vector {

inline constexpr const char* kIvfPartitionsFile = "partitions.arrow";

// The columns of a partitions file: a uint64 key per row and its fixed-width payload.
struct PartitionLayout {
  enum class Values { kFloat32, kUInt8, kInt32 };

  static PartitionLayout Vectors(int dim) { return {"vector", Values::kFloat32, dim}; }
  static PartitionLayout Codes(int code_size) { return {"code", Values::kUInt8, code_size}; }
  // The graphs file of the IVF_HNSW_* families (ivf_graphs.h): per (node, level) row, its key
  // (level << 32 | node) and `width` neighbour ids.
  static PartitionLayout GraphLinks(int width) {
    return {"neighbors", Values::kInt32, width, "_node"};
  }

  const char* column = "vector";
  Values values = Values::kFloat32;
  int width = 0;  // values per row
  const char* key = "_rowaddr";

  size_t value_size() const { return values == Values::kUInt8 ? 1 : 4; }
  size_t row_bytes() const { return static_cast<size_t>(width) * value_size(); }
};

// Writes the partitions in order 0, 1, ..., num_partitions - 1, then Finish() closes and syncs.
class IvfPartitionWriter {
 public:
  static arrow::Result<std::unique_ptr<IvfPartitionWriter>> Open(io::Storage& storage,
                                                                 std::string path,
                                                                 PartitionLayout layout,
                                                                 int num_partitions);
  // `count` rows: row addresses and count × width values (floats or bytes, by layout).
  arrow::Status Write(const uint64_t* row_addresses, const void* values, int64_t count);
  arrow::Status Finish();
  // The most rows one partition was given so far.
  int64_t largest_partition() const { return largest_partition_; }

 private:
  IvfPartitionWriter() = default;

  io::Storage* storage_ = nullptr;
  std::string path_;
  PartitionLayout layout_;
  int num_partitions_ = 0;
  int written_ = 0;
  int64_t largest_partition_ = 0;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
};

// An open partitions file: pointers into its partitions' buffers (its memory map on local
// storage, fetched bytes on object storage), each partition's set the first time it is
// verified. Safe to share between threads: a partition is loaded once, under a lock of
// its own, before any accessor reads it.
class IvfPartitions {
 public:
  // Corrupt when the file does not hold `num_partitions` valid partitions of dimension `dim`.
  // Messages name the file as `what` and its path.
  static arrow::Result<std::unique_ptr<IvfPartitions>> Open(
      const io::Storage& storage, const std::string& path, PartitionLayout layout,
      int num_partitions, std::string_view what = "IVF partitions file");

  int num_partitions() const { return static_cast<int>(partitions_.size()); }
  // Loads the partition (decodes its batch's metadata) and verifies its bytes against their
  // checksums, once; later calls are free. Callers verify a partition before any accessor
  // below; Corrupt names the file and partition.
  arrow::Status Verify(int partition) const;
  // Verifies `partitions` ahead of their use: on object storage concurrently
  // (io::ParallelReads), so that their round trips overlap; on local storage nothing (a
  // partition's first use maps it). Returns what Verify would.
  arrow::Status Prefetch(const std::vector<int>& partitions) const;
  // Whether the file is on object storage (Prefetch fetches there).
  bool remote() const { return remote_; }
  // Corrupt naming the file, for `what` is wrong with it.
  arrow::Status CorruptError(const std::string& what) const {
    return file_->file().CorruptError(what);
  }
  int64_t size(int partition) const { return partitions_[partition].size; }
  const uint64_t* row_addresses(int partition) const {
    return partitions_[partition].row_addresses;
  }
  // size(partition) × width floats (layout Vectors).
  const float* vectors(int partition) const {
    return static_cast<const float*>(partitions_[partition].values);
  }
  // size(partition) × width bytes (layout Codes).
  const uint8_t* codes(int partition) const {
    return static_cast<const uint8_t*>(partitions_[partition].values);
  }
  // size(partition) × width int32 values (layout GraphLinks).
  const int32_t* links(int partition) const {
    return static_cast<const int32_t*>(partitions_[partition].values);
  }

 private:
  struct Partition {
    std::shared_ptr<arrow::RecordBatch> batch;  // keeps the mapped buffers alive
    int64_t size = 0;
    const uint64_t* row_addresses = nullptr;
    const void* values = nullptr;
  };
  // Decodes partition `p`'s batch metadata into partitions_[p] (under its lock).
  arrow::Status Load(int p) const;

  std::unique_ptr<io::VerifiedIpcFile> file_;
  std::string where_;                         // the file, for messages
  std::unique_ptr<io::BlockFlags> verified_;  // one flag per partition: loaded and verified
  PartitionLayout layout_;
  bool remote_ = false;  // on object storage
  mutable std::vector<Partition> partitions_;
  // Partition p's lock, held while it loads: one each, so that loads of different partitions
  // (network round trips on object storage) never wait for each other.
  std::unique_ptr<std::mutex[]> locks_;
};

}  // namespace tessera::index::vector
