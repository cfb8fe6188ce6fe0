// BtreeSegmentWriter: streams a sorted run of (key, row address) entries into the files of one
// BTREE segment (layout in btree_layout.h). It buffers one page at a time, so its memory is
// O(page_rows) whatever the run's length; both a build (after sorting) and a merge (k-way, in
// order) feed it.
#pragma once

#include <arrow/builder.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/btree_layout.h"

namespace tessera::index::scalar {

struct BtreeSegmentStats {
  int64_t page_rows = 0;
  uint64_t num_pages = 0;
  uint64_t num_values = 0;  // entries of the sorted run
  uint64_t num_nulls = 0;
  uint64_t num_nans = 0;
};

template <typename Key>
class BtreeSegmentWriter {
 public:
  static arrow::Result<std::unique_ptr<BtreeSegmentWriter>> Open(
      const SegmentDirectory& out, const std::shared_ptr<arrow::DataType>& storage,
      int64_t page_rows);

  // Entries must come in strictly increasing (key, row address) order, without NaN keys;
  // Internal error otherwise (the writer never produces an unsorted segment).
  arrow::Status Append(const Key& key, uint64_t row_address);

  // Flushes the last page and writes the lookup layer and the null (and, for float keys, NaN)
  // row lists, both ascending.
  arrow::Result<BtreeSegmentStats> Finish(const std::vector<uint64_t>& null_rows,
                                          const std::vector<uint64_t>& nan_rows);

 private:
  BtreeSegmentWriter(const SegmentDirectory& out, std::shared_ptr<arrow::DataType> storage,
                     int64_t page_rows, KeyAppender<Key> appender)
      : out_(out), storage_(std::move(storage)), page_rows_(page_rows), appender_(appender) {}

  arrow::Status FlushPage();

  SegmentDirectory out_;
  std::shared_ptr<arrow::DataType> storage_;
  int64_t page_rows_;
  KeyAppender<Key> appender_;
  std::unique_ptr<IpcFileWriter> pages_;
  std::unique_ptr<arrow::ArrayBuilder> values_;
  arrow::UInt64Builder rows_;
  std::unique_ptr<arrow::ArrayBuilder> firsts_;
  std::unique_ptr<arrow::ArrayBuilder> lasts_;
  arrow::UInt32Builder page_sizes_;
  BtreeSegmentStats stats_;
  // The previous entry, to enforce the order (binary keys are copied: their source may go).
  bool has_previous_ = false;
  std::conditional_t<kIsBinaryKey<Key>, std::string, Key> previous_key_{};
  uint64_t previous_row_ = 0;
};

extern template class BtreeSegmentWriter<int64_t>;
extern template class BtreeSegmentWriter<uint64_t>;
extern template class BtreeSegmentWriter<double>;
extern template class BtreeSegmentWriter<std::string_view>;

}  // namespace tessera::index::scalar
