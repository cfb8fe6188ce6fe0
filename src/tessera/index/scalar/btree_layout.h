// The files of one BTREE segment (`_indices/<uuid>/`), all Arrow IPC files:
//
//   pages.arrow   the sorted run: columns `value` (the storage type, see btree_key.h) and
//                 `_rowaddr` (uint64), both non-null; every record batch is one page of
//                 `page_rows` rows (the last may be shorter); rows are sorted by (value, row
//                 address) across the whole file, and NaN or null values never appear.
//   lookup.arrow  one row per page, in page order: `first` and `last` (the page's first and last
//                 value, storage type) and `rows` (uint32). A lookup binary-searches this layer
//                 and opens only the pages whose [first, last] meets the predicate.
//   nulls.arrow   column `_rowaddr` (uint64): the rows whose value is null, ascending, in batches
//                 of at most kAddressBatchRows.
//   nans.arrow    float columns only, same shape: the rows whose value is NaN, ascending.
//
// Each file has its block checksums beside it (`<name>.crc32c`, io/block_checksums.h); every
// batch is verified before it is used. The files never change after the build. Readers
// memory-map them: opening a segment reads the
// footers and the lookup layer; pages are decoded on demand.
#pragma once

#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/io/storage.h"
#include "tessera/io/verified_ipc_file.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kBtreeFamilyName = "BTREE";
inline constexpr std::string_view kPagesFile = "pages.arrow";
inline constexpr std::string_view kLookupFile = "lookup.arrow";
inline constexpr std::string_view kNullsFile = "nulls.arrow";
inline constexpr std::string_view kNansFile = "nans.arrow";
inline constexpr int64_t kAddressBatchRows = 64 * 1024;

// SegmentMeta.details keys.
inline constexpr std::string_view kDetailPageRows = "page_rows";
inline constexpr std::string_view kDetailNumPages = "num_pages";
inline constexpr std::string_view kDetailNumValues = "num_values";
inline constexpr std::string_view kDetailNumNulls = "num_nulls";
inline constexpr std::string_view kDetailNumNans = "num_nans";
inline constexpr std::string_view kDetailValueType = "value_type";

std::shared_ptr<arrow::Schema> PagesSchema(const std::shared_ptr<arrow::DataType>& storage);
std::shared_ptr<arrow::Schema> LookupSchema(const std::shared_ptr<arrow::DataType>& storage);
std::shared_ptr<arrow::Schema> AddressSchema();

// An Arrow IPC file being written into a segment directory; Close() makes it durable.
class IpcFileWriter {
 public:
  static arrow::Result<std::unique_ptr<IpcFileWriter>> Open(
      const SegmentDirectory& directory, std::string_view name,
      const std::shared_ptr<arrow::Schema>& schema);
  arrow::Status Write(const arrow::RecordBatch& batch);
  arrow::Status Close();

 private:
  IpcFileWriter() = default;
  std::shared_ptr<io::Storage> storage_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> stream_;
  std::shared_ptr<arrow::ipc::RecordBatchWriter> writer_;
};

// Writes `rows` (ascending addresses) as an address file.
arrow::Status WriteAddressFile(const SegmentDirectory& directory, std::string_view name,
                               const std::vector<uint64_t>& rows);

// Opens an IPC file of a segment through its block checksums; Corrupt (naming the segment and
// file) when it cannot be read or its schema is not `expected` (when given).
arrow::Result<std::unique_ptr<io::VerifiedIpcFile>> OpenIpcFile(const SegmentDirectory& directory,
                                                                std::string_view name,
                                                                const arrow::Schema* expected);

// All addresses of an address file, ascending; Corrupt if they are not.
arrow::Result<std::vector<uint64_t>> ReadAddressFile(const SegmentDirectory& directory,
                                                     const io::VerifiedIpcFile& file,
                                                     std::string_view name);

// One page of the sorted run, decoded into keys. Binary keys view into `batch`.
template <typename Key>
struct Page {
  std::shared_ptr<arrow::RecordBatch> batch;
  std::vector<Key> keys;
  const uint64_t* rows = nullptr;
  int64_t size() const { return static_cast<int64_t>(keys.size()); }
};

template <typename Key>
arrow::Result<Page<Key>> DecodePage(std::shared_ptr<arrow::RecordBatch> batch) {
  Page<Key> page;
  page.keys.reserve(static_cast<size_t>(batch->num_rows()));
  bool has_null = false;
  ARROW_RETURN_NOT_OK(ForEachKey<Key>(
      *batch->column(0), [&](int64_t, const Key& key) { page.keys.push_back(key); },
      [&](int64_t) { has_null = true; }));
  const auto& rows = *batch->column(1);
  if (has_null || rows.null_count() != 0 || rows.type_id() != arrow::Type::UINT64) {
    return Corrupt("a BTREE page holds null values or row addresses");
  }
  page.rows = static_cast<const arrow::UInt64Array&>(rows).raw_values();
  page.batch = std::move(batch);
  return page;
}

}  // namespace tessera::index::scalar
