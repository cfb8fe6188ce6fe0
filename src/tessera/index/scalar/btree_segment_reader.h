// BtreeSegmentReader: answers ScalarQuery predicates (scalar_query.h) from one BTREE segment
// (layout in btree_layout.h) with exact, ascending, unique row addresses. As a
// ScalarSegmentReader it answers every leaf ScalarQueryOf translates, exactly, at a cost of the
// rows of the pages it would decode (from the lookup layer).
//
// Opening memory-maps the segment's files and reads the lookup layer (first and last value of
// every page); a query binary-searches that layer and decodes only the pages whose value range
// meets the predicate, so a point lookup decodes O(1) pages (pages_read() counts them).
//
// Answers equal what Arrow compute returns on the raw column (the unindexed scan's semantics):
//  - kEquals and kRange follow `equal` / `less` / ...: NaN equals nothing and compares false
//    with everything, so NaN rows are never in their answers, and a NaN query value or bound
//    answers nothing; -0.0 equals 0.0. A null query value or bound answers nothing.
//  - kIn is `= ANY`: each value matches what kEquals matches (a NaN value nothing, -0.0 and
//    0.0 each other); null list entries match nothing.
//  - A kRange with neither bound answers every row that is neither null nor NaN; kIn with an
//    empty list answers nothing.
//  - kIsNull answers the null rows; kIsNotNull every other row, NaN rows included.
// Query values must have the column's type (timestamps: its unit; string and binary types mix;
// float16 values are accepted for float16 columns); InvalidArgument otherwise.
//
// Search() may be called from several threads at once.
#pragma once

#include <arrow/ipc/reader.h>
#include <arrow/record_batch.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/btree_layout.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

class BtreeSegmentReader final : public ScalarSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<BtreeSegmentReader>> Open(const format::SegmentMeta& segment,
                                                                 const SegmentDirectory& directory);
  ~BtreeSegmentReader() override;

  const format::SegmentMeta& meta() const override { return meta_; }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;
  // From the lookup layer's page sizes, decoding only the pages where key ranges start and end;
  // IS NULL reads the null rows' file and takes its size.
  arrow::Result<std::optional<uint64_t>> Count(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Search(const ScalarQuery& query) const;

  // The type the values are stored as (the column's, float16 widened to float32).
  const std::shared_ptr<arrow::DataType>& storage_type() const { return storage_; }
  KeyDomain domain() const { return domain_; }
  int num_pages() const { return num_pages_; }
  uint64_t page_rows(int index) const;
  // Pages decoded since Open, by queries and ReadPage.
  uint64_t pages_read() const { return pages_read_.load(); }

  // Page `index` of the sorted run, validated against the lookup layer.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadPage(int index) const;
  // The rows whose value is null (NaN), ascending.
  arrow::Result<std::vector<uint64_t>> NullRows() const;
  arrow::Result<std::vector<uint64_t>> NanRows() const;

  // The lookup layer's columns (first and last value of each page), and page sizes.
  const std::shared_ptr<arrow::RecordBatch>& lookup() const { return lookup_; }

  class Searcher;  // the typed search over one key domain (btree_segment_reader.cc)

 private:
  BtreeSegmentReader() = default;
  // A count of SegmentMeta.details (num_nulls, ...); the row count when absent or malformed.
  uint64_t DetailCount(std::string_view key) const;

  format::SegmentMeta meta_;
  SegmentDirectory directory_;
  std::shared_ptr<arrow::DataType> storage_;
  KeyDomain domain_ = KeyDomain::kSigned;
  int num_pages_ = 0;
  std::shared_ptr<arrow::RecordBatch> lookup_;
  const uint32_t* page_sizes_ = nullptr;
  std::unique_ptr<io::VerifiedIpcFile> pages_;
  std::unique_ptr<io::VerifiedIpcFile> nulls_;
  std::unique_ptr<io::VerifiedIpcFile> nans_;  // float domain only
  // The IPC file reader is not documented as thread-safe; reads are from a memory map and short.
  mutable std::mutex mutex_;
  mutable std::atomic<uint64_t> pages_read_{0};
  std::unique_ptr<Searcher> searcher_;
};

}  // namespace tessera::index::scalar
