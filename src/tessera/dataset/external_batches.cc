#include "tessera/dataset/external_batches.h"

#include <arrow/array/concatenate.h>
#include <arrow/util/byte_size.h>

#include <algorithm>

#include "tessera/dataset/external_columns.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::unique_ptr<ExternalBatches>> ExternalBatches::Open(
    const format::Fragment& fragment, const std::shared_ptr<arrow::Schema>& schema) {
  const format::DataFile& data_file = fragment.files(0);
  std::unique_ptr<ExternalBatches> batches(new ExternalBatches());
  ARROW_ASSIGN_OR_RAISE(batches->file_,
                        ExternalParquetFile::Open(data_file.external().location(), &data_file));
  batches->schema_ = schema;
  for (const auto& field : schema->fields()) {
    const int position = batches->file_->schema()->GetFieldIndex(field->name());
    if (position < 0 ||
        !ExternalTypeAccepted(*batches->file_->schema()->field(position)->type(), *field->type())) {
      return Error(ErrorKind::kStale, "external file ", data_file.external().location(),
                   " no longer has column '", field->name(), "' of type ",
                   field->type()->ToString(),
                   "; restore it, or run `tessera refresh` to record what it holds now");
    }
    batches->fields_.push_back(position);
  }
  batches->rows_per_batch_ = data_file.rows_per_batch();
  batches->num_rows_ = fragment.physical_rows();
  if (fragment.physical_rows() != data_file.num_rows() ||
      data_file.num_rows() != static_cast<uint64_t>(batches->file_->num_rows())) {
    return Corrupt("fragment ", fragment.id(), " claims ", fragment.physical_rows(),
                   " rows of external file ", data_file.external().location(),
                   ", whose entry says ", data_file.num_rows(), " and which holds ",
                   batches->file_->num_rows());
  }
  if (batches->rows_per_batch_ == 0) {
    return Corrupt("fragment ", fragment.id(), " names external file ",
                   data_file.external().location(), " with 0 rows per batch");
  }
  batches->num_batches_ = static_cast<int>((batches->num_rows_ + batches->rows_per_batch_ - 1) /
                                           batches->rows_per_batch_);
  return batches;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> ExternalBatches::ReadBatch(
    int index, const std::vector<uint32_t>* rows) const {
  if (index < 0 || index >= num_batches_) {
    return InvalidArgument("batch ", index, " of external file ", file_->location(),
                           " does not exist; it has ", num_batches_);
  }
  const int64_t start = static_cast<int64_t>(index) * static_cast<int64_t>(rows_per_batch_);
  const int64_t end =
      std::min(start + static_cast<int64_t>(rows_per_batch_), static_cast<int64_t>(num_rows_));
  // The last row group starting at or before `start`, then every one up to `end`.
  int group = 0;
  while (group + 1 < file_->num_row_groups() && file_->row_group_start(group + 1) <= start) {
    ++group;
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> pieces;
  for (int64_t row = start; row < end && group < file_->num_row_groups(); ++group) {
    const int64_t group_start = file_->row_group_start(group);
    const int64_t group_end = file_->row_group_start(group + 1);
    const int64_t piece_end = std::min(end, group_end);
    if (piece_end <= row) continue;  // an empty row group
    if (rows != nullptr) {
      // No wanted row in this piece: nulls stand in for rows the caller will not use.
      auto first = std::lower_bound(rows->begin(), rows->end(), static_cast<uint32_t>(row - start));
      if (first == rows->end() || *first >= static_cast<uint32_t>(piece_end - start)) {
        std::vector<std::shared_ptr<arrow::Array>> nulls;
        for (const auto& field : schema_->fields()) {
          ARROW_ASSIGN_OR_RAISE(auto null, arrow::MakeArrayOfNull(field->type(), piece_end - row));
          nulls.push_back(std::move(null));
        }
        pieces.push_back(arrow::RecordBatch::Make(schema_, piece_end - row, std::move(nulls)));
        row = piece_end;
        continue;
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto decoded, RowGroup(group));
    // The row group's decoded pieces of rows_per_batch rows that [row, piece_end) overlaps.
    const auto piece_rows = static_cast<int64_t>(rows_per_batch_);
    for (int64_t at = row; at < piece_end;) {
      const auto piece = static_cast<size_t>((at - group_start) / piece_rows);
      if (piece >= decoded->size()) break;  // cannot happen: the row group's rows were checked
      const int64_t piece_start = group_start + static_cast<int64_t>(piece) * piece_rows;
      const int64_t until = std::min(piece_end, piece_start + (*decoded)[piece]->num_rows());
      pieces.push_back((*decoded)[piece]->Slice(at - piece_start, until - at));
      at = until;
    }
    row = piece_end;
  }
  if (pieces.size() == 1) return pieces[0];
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < schema_->num_fields(); ++c) {
    arrow::ArrayVector parts;
    for (const auto& piece : pieces) parts.push_back(piece->column(c));
    ARROW_ASSIGN_OR_RAISE(auto column, arrow::Concatenate(parts));
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema_, end - start, std::move(columns));
}

ExternalBatches::Decoded ExternalBatches::RowGroup(int index) const {
  std::shared_future<Decoded> batch;
  std::promise<Decoded> promise;
  bool decodes = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = kept_.find(index);
    if (found != kept_.end()) {
      recency_.splice(recency_.begin(), recency_, found->second.recency);
      batch = found->second.batch;
    } else {
      batch = promise.get_future().share();
      recency_.push_front(index);
      kept_.emplace(index, Kept{batch, false, 0, recency_.begin()});
      decodes = true;
    }
  }
  if (!decodes) return batch.get();
  Decoded decoded = [&]() -> Decoded {
    // Every waiter gets a value, whatever Decode does (an exception would leave them waiting
    // on a broken promise and the entry in the cache for good).
    try {
      return Decode(index);
    } catch (const std::exception& error) {
      return Error(ErrorKind::kInternal, "decoding row group ", index, " of external file ",
                   file_->location(), ": ", error.what());
    }
  }();
  promise.set_value(decoded);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = kept_.find(index);
  if (!decoded.ok()) {  // errors are returned, not kept
    recency_.erase(found->second.recency);
    kept_.erase(found);
    return decoded;
  }
  for (const auto& piece : **decoded) {
    found->second.bytes += static_cast<int64_t>(arrow::util::TotalBufferSize(*piece));
  }
  found->second.ready = true;
  kept_bytes_ += found->second.bytes;
  Evict();
  return decoded;
}

void ExternalBatches::Evict() const {
  // From the least recently used, skipping row groups still being decoded; the most recently
  // used stays whatever its size.
  auto victim = recency_.end();
  while (kept_bytes_ > kKeptBytes && victim != recency_.begin()) {
    --victim;
    if (victim == recency_.begin()) break;
    auto found = kept_.find(*victim);
    if (!found->second.ready) continue;
    kept_bytes_ -= found->second.bytes;
    kept_.erase(found);
    victim = recency_.erase(victim);
  }
}

ExternalBatches::Decoded ExternalBatches::Decode(int index) const {
  ARROW_ASSIGN_OR_RAISE(auto raw,
                        file_->ReadRowGroup(index, fields_, static_cast<int64_t>(rows_per_batch_)));
  auto decoded = std::make_shared<DecodedGroup>();
  int64_t first_row = file_->row_group_start(index);
  for (const auto& piece : raw) {
    GlobalReadStatistics().external_rows_decoded += static_cast<uint64_t>(piece->num_rows());
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      const auto& field = schema_->field(c);
      // Decoded from a file tessera did not write: checked before anything follows its offsets
      // (the conversion to the dataset's type included), and again once converted.
      arrow::Status valid = piece->column(c)->ValidateFull();
      if (valid.ok()) {
        ARROW_ASSIGN_OR_RAISE(
            auto column, ConformExternalColumn(piece->column(c), field->type(), file_->location(),
                                               field->name(), first_row));
        if (column != piece->column(c)) valid = column->ValidateFull();  // converted
        columns.push_back(std::move(column));
      }
      if (!valid.ok()) {
        return file_->CorruptError(Concat("row group ", index, " column '", field->name(),
                                          "' decodes to malformed values (", valid.message(), ")"));
      }
    }
    decoded->push_back(arrow::RecordBatch::Make(schema_, piece->num_rows(), std::move(columns)));
    first_row += piece->num_rows();
  }
  return std::shared_ptr<const DecodedGroup>(std::move(decoded));
}

}  // namespace tessera::dataset
