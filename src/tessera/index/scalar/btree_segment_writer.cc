#include "tessera/index/scalar/btree_segment_writer.h"

#include <cmath>

namespace tessera::index::scalar {

template <typename Key>
arrow::Result<std::unique_ptr<BtreeSegmentWriter<Key>>> BtreeSegmentWriter<Key>::Open(
    const SegmentDirectory& out, const std::shared_ptr<arrow::DataType>& storage,
    int64_t page_rows) {
  ARROW_ASSIGN_OR_RAISE(auto appender, KeyAppender<Key>::Make(storage));
  std::unique_ptr<BtreeSegmentWriter> writer(
      new BtreeSegmentWriter(out, storage, page_rows, appender));
  writer->stats_.page_rows = page_rows;
  ARROW_ASSIGN_OR_RAISE(writer->pages_, IpcFileWriter::Open(out, kPagesFile, PagesSchema(storage)));
  ARROW_ASSIGN_OR_RAISE(writer->values_, arrow::MakeBuilder(storage));
  ARROW_ASSIGN_OR_RAISE(writer->firsts_, arrow::MakeBuilder(storage));
  ARROW_ASSIGN_OR_RAISE(writer->lasts_, arrow::MakeBuilder(storage));
  ARROW_RETURN_NOT_OK(writer->values_->Reserve(page_rows));
  ARROW_RETURN_NOT_OK(writer->rows_.Reserve(page_rows));
  return writer;
}

template <typename Key>
arrow::Status BtreeSegmentWriter<Key>::Append(const Key& key, uint64_t row_address) {
  if constexpr (kIsFloatKey<Key>) {
    if (std::isnan(key)) {
      return Error(ErrorKind::kInternal, "a NaN value reached the sorted run of BTREE segment ",
                   out_.uuid);
    }
  }
  if (has_previous_) {
    const Key previous = Key(previous_key_);
    if (key < previous || (!(previous < key) && row_address <= previous_row_)) {
      return Error(ErrorKind::kInternal, "entries of BTREE segment ", out_.uuid,
                   " arrived out of order at row address ", row_address);
    }
  }
  has_previous_ = true;
  previous_key_ = key;
  previous_row_ = row_address;
  ARROW_RETURN_NOT_OK(appender_.Append(values_.get(), key));
  ARROW_RETURN_NOT_OK(rows_.Append(row_address));
  ++stats_.num_values;
  if (rows_.length() >= page_rows_) return FlushPage();
  return arrow::Status::OK();
}

template <typename Key>
arrow::Status BtreeSegmentWriter<Key>::FlushPage() {
  const int64_t size = rows_.length();
  if (size == 0) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto values, values_->Finish());
  ARROW_ASSIGN_OR_RAISE(auto rows, rows_.Finish());
  const arrow::ArraySpan span(*values->data());
  ARROW_RETURN_NOT_OK(firsts_->AppendArraySlice(span, 0, 1));
  ARROW_RETURN_NOT_OK(lasts_->AppendArraySlice(span, size - 1, 1));
  ARROW_RETURN_NOT_OK(page_sizes_.Append(static_cast<uint32_t>(size)));
  ARROW_RETURN_NOT_OK(
      pages_->Write(*arrow::RecordBatch::Make(PagesSchema(storage_), size, {values, rows})));
  ++stats_.num_pages;
  ARROW_RETURN_NOT_OK(values_->Reserve(page_rows_));
  return rows_.Reserve(page_rows_);
}

template <typename Key>
arrow::Result<BtreeSegmentStats> BtreeSegmentWriter<Key>::Finish(
    const std::vector<uint64_t>& null_rows, const std::vector<uint64_t>& nan_rows) {
  ARROW_RETURN_NOT_OK(FlushPage());
  ARROW_RETURN_NOT_OK(pages_->Close());

  ARROW_ASSIGN_OR_RAISE(auto firsts, firsts_->Finish());
  ARROW_ASSIGN_OR_RAISE(auto lasts, lasts_->Finish());
  ARROW_ASSIGN_OR_RAISE(auto sizes, page_sizes_.Finish());
  ARROW_ASSIGN_OR_RAISE(auto lookup,
                        IpcFileWriter::Open(out_, kLookupFile, LookupSchema(storage_)));
  ARROW_RETURN_NOT_OK(lookup->Write(*arrow::RecordBatch::Make(
      LookupSchema(storage_), static_cast<int64_t>(stats_.num_pages), {firsts, lasts, sizes})));
  ARROW_RETURN_NOT_OK(lookup->Close());

  ARROW_RETURN_NOT_OK(WriteAddressFile(out_, kNullsFile, null_rows));
  stats_.num_nulls = null_rows.size();
  if constexpr (kIsFloatKey<Key>) {
    ARROW_RETURN_NOT_OK(WriteAddressFile(out_, kNansFile, nan_rows));
    stats_.num_nans = nan_rows.size();
  } else if (!nan_rows.empty()) {
    return Error(ErrorKind::kInternal, "NaN rows given for a non-float BTREE segment");
  }
  return stats_;
}

template class BtreeSegmentWriter<int64_t>;
template class BtreeSegmentWriter<uint64_t>;
template class BtreeSegmentWriter<double>;
template class BtreeSegmentWriter<std::string_view>;

}  // namespace tessera::index::scalar
