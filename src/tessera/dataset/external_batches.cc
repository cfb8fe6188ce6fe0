#include "tessera/dataset/external_batches.h"

#include <arrow/array/concatenate.h>
#include <arrow/compute/api_vector.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/byte_size.h>

#include <algorithm>

#include "tessera/dataset/external_columns.h"
#include "tessera/dataset/external_pages.h"
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
  batches->bad_vectors_as_null_ = data_file.external().bad_vectors_as_null();
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
    if (rows != nullptr) {
      // A few rows: the pages holding them, when the file says where they are.
      ARROW_ASSIGN_OR_RAISE(auto from_pages, ReadFromPages(group, row, piece_end, start, *rows));
      if (from_pages != nullptr) {
        pieces.push_back(std::move(from_pages));
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

arrow::Result<std::shared_ptr<arrow::RecordBatch>> ExternalBatches::ReadFromPages(
    int group, int64_t first, int64_t end, int64_t batch_start,
    const std::vector<uint32_t>& rows) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = kept_.find(group);
    if (found != kept_.end() && found->second.ready) return nullptr;  // decoded already
  }
  const int64_t group_start = file_->row_group_start(group);
  const int64_t group_rows = file_->row_group_start(group + 1) - group_start;
  // The wanted rows in [first, end), as offsets within the row group.
  std::vector<int64_t> wanted;
  for (auto at =
           std::lower_bound(rows.begin(), rows.end(), static_cast<uint32_t>(first - batch_start));
       at != rows.end() && batch_start + *at < end; ++at) {
    if (wanted.empty() || wanted.back() != batch_start + *at - group_start) {
      wanted.push_back(batch_start + *at - group_start);
    }
  }
  // Never read an offset index or pages through the footer of what the file held when opened.
  ARROW_RETURN_NOT_OK(file_->CheckUnchanged());
  std::vector<std::vector<PageRun>> fields;
  for (int field : fields_) {
    auto runs = ReadPagesHolding(*file_, group, field, wanted, group_rows / kPageReadShare);
    if (!runs.ok()) {
      // An unreadable file is an error either way. Pages that do not decode as the offset
      // index says are left to the row group's own decoding, which reads them right or says
      // what is wrong with them (an offset index is not needed to read the file).
      if (KindOf(runs.status()) == ErrorKind::kIOError || IsFailureToRead(runs.status())) {
        return runs.status();
      }
      return nullptr;
    }
    if (!*runs) return nullptr;  // the row group it is
    fields.push_back(std::move(**runs));
  }
  // Each column: the wanted rows from the pages read, nulls elsewhere.
  const int64_t length = end - first;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  uint64_t decoded_rows = 0;
  for (int c = 0; c < schema_->num_fields(); ++c) {
    arrow::ArrayVector parts;
    std::vector<int64_t> run_starts;  // position of each run's first row in the concatenation
    int64_t at = 0;
    for (const auto& run : fields[static_cast<size_t>(c)]) {
      ARROW_ASSIGN_OR_RAISE(auto part,
                            ConformDecoded(run.values, c, group, group_start + run.first_row));
      run_starts.push_back(at);
      at += part->length();
      parts.push_back(std::move(part));
    }
    decoded_rows = std::max(decoded_rows, static_cast<uint64_t>(at));
    ARROW_ASSIGN_OR_RAISE(auto values, arrow::Concatenate(parts));
    // Take's indices: each wanted row's position in `values`, null for the others.
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> positions,
                          arrow::AllocateBuffer(length * static_cast<int64_t>(sizeof(int64_t))));
    auto* position_values = reinterpret_cast<int64_t*>(positions->mutable_data());
    std::fill(position_values, position_values + length, 0);
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> validity,
                          arrow::AllocateEmptyBitmap(length));
    const auto& runs = fields[static_cast<size_t>(c)];
    size_t run = 0;
    for (int64_t row : wanted) {
      while (run + 1 < runs.size() && runs[run + 1].first_row <= row) ++run;
      const int64_t position = group_start + row - first;
      position_values[position] = run_starts[run] + (row - runs[run].first_row);
      arrow::bit_util::SetBit(validity->mutable_data(), position);
    }
    const arrow::Int64Array indices(length, positions, validity,
                                    length - static_cast<int64_t>(wanted.size()));
    ARROW_ASSIGN_OR_RAISE(auto column, arrow::compute::Take(*values, indices));
    columns.push_back(std::move(column));
  }
  GlobalReadStatistics().external_rows_decoded += decoded_rows;
  return arrow::RecordBatch::Make(schema_, length, std::move(columns));
}

arrow::Result<std::shared_ptr<arrow::Array>> ExternalBatches::ConformDecoded(
    const std::shared_ptr<arrow::Array>& decoded, int column, int group, int64_t first_row) const {
  const auto& field = schema_->field(column);
  // Decoded from a file tessera did not write: checked before anything follows its offsets (the
  // conversion to the dataset's type included), and again once converted.
  arrow::Status valid = decoded->ValidateFull();
  if (valid.ok()) {
    int64_t bad_rows = 0;
    ARROW_ASSIGN_OR_RAISE(
        auto conformed,
        ConformExternalColumn(decoded, field->type(), file_->location(), field->name(), first_row,
                              bad_vectors_as_null_, &bad_rows));
    bad_vectors_ += static_cast<uint64_t>(bad_rows);
    if (conformed != decoded) valid = conformed->ValidateFull();  // converted
    if (valid.ok()) return conformed;
  }
  return file_->CorruptError(Concat("row group ", group, " column '", field->name(),
                                    "' decodes to malformed values (", valid.message(), ")"));
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
      ARROW_ASSIGN_OR_RAISE(auto column, ConformDecoded(piece->column(c), c, index, first_row));
      columns.push_back(std::move(column));
    }
    decoded->push_back(arrow::RecordBatch::Make(schema_, piece->num_rows(), std::move(columns)));
    first_row += piece->num_rows();
  }
  return std::shared_ptr<const DecodedGroup>(std::move(decoded));
}

}  // namespace tessera::dataset
