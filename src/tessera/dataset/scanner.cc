#include "tessera/dataset/scanner.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/util/bit_run_reader.h>

#include <algorithm>
#include <set>

#include "tessera/dataset/candidate_batches.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/deletion_vectors.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/open_fragments.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/dataset/take.h"
#include "tessera/expr/filter.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::dataset {

std::string ColumnNames(const arrow::Schema& schema) {
  std::string names;
  for (const auto& field : schema.fields()) names += (names.empty() ? "" : ", ") + field->name();
  return names;
}

arrow::Result<std::vector<int>> ResolveColumns(const arrow::Schema& schema,
                                               const std::vector<std::string>& names) {
  std::vector<int> columns;
  if (names.empty()) {
    for (int i = 0; i < schema.num_fields(); ++i) columns.push_back(i);
    return columns;
  }
  std::set<std::string> seen;
  for (const auto& name : names) {
    const int index = schema.GetFieldIndex(name);
    if (index < 0) {
      return InvalidArgument("no column '", name,
                             "' in the dataset; its columns are: ", ColumnNames(schema));
    }
    if (!seen.insert(name).second) {
      return InvalidArgument("column '", name, "' is requested twice");
    }
    columns.push_back(index);
  }
  return columns;
}

namespace {

arrow::Result<std::shared_ptr<arrow::Array>> RowAddresses(uint32_t fragment_id, uint64_t first,
                                                          int64_t rows) {
  arrow::UInt64Builder builder;
  ARROW_RETURN_NOT_OK(builder.Resize(rows));
  for (int64_t row = 0; row < rows; ++row) {
    builder.UnsafeAppend(MakeRowAddress(fragment_id, static_cast<uint32_t>(first + row)));
  }
  return builder.Finish();
}

// Batches are processed in windows: up to window_ batches (of one or more fragments) are read,
// filtered and projected in parallel (util::ParallelFor), then returned in order. With a limit
// a window is one batch (the limit is met without reading ahead). Otherwise it starts at one
// batch on one thread and kBatchesPerThread a thread on more, and grows when the filter keeps
// few rows, up to kMaxBatchesPerThread a thread: each window hands work to the workers once (a
// wake-up costing tens of microseconds), which small windows of a selective filter would pay
// over and over. It is sized so that the previous window's share of kept rows would keep about
// the rows of its starting size; a dense stretch after a selective one may keep more, up to
// kMaxBatchesPerThread / kBatchesPerThread times as many, once. A window that returned every
// batch whole is followed by the largest (ResizeWindow).
class ScanReader : public arrow::RecordBatchReader {
 public:
  ScanReader(std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest,
             std::shared_ptr<arrow::Schema> dataset_schema, std::shared_ptr<arrow::Schema> output,
             std::vector<int> decoded, std::shared_ptr<const expr::Filter> filter,
             ScanOptions options, ScanContext context)
      : storage_(std::move(storage)),
        manifest_(std::move(manifest)),
        dataset_schema_(std::move(dataset_schema)),
        output_schema_(std::move(output)),
        decoded_(std::move(decoded)),
        filter_(std::move(filter)),
        options_(std::move(options)),
        context_(std::move(context)),
        base_window_(
            options_.limit || util::NumThreads() == 1 ? 1 : kBatchesPerThread * util::NumThreads()),
        window_(base_window_) {
    // Positions in a decoded batch (the columns of decoded_, in order) of the filter's columns
    // and of the other output columns.
    for (size_t position = 0; position < decoded_.size(); ++position) {
      const std::string& name = dataset_schema_->field(decoded_[position])->name();
      const auto& filtered =
          filter_ == nullptr ? std::vector<std::string>() : filter_->referenced_columns();
      if (std::find(filtered.begin(), filtered.end(), name) != filtered.end()) {
        filter_columns_.positions.push_back(static_cast<int>(position));
      } else if (output_schema_->GetFieldIndex(name) >= 0) {
        unverified_columns_.positions.push_back(static_cast<int>(position));
      }
    }
    for (const auto& field : output_schema_->fields()) {
      int position = -1;  // the row-address column
      if (field->name() != kRowAddressColumn) {
        for (size_t i = 0; i < decoded_.size(); ++i) {
          if (dataset_schema_->field(decoded_[i])->name() == field->name()) {
            position = static_cast<int>(i);
          }
        }
      }
      output_positions_.push_back(position);
    }
    for (ColumnSubset* subset : {&filter_columns_, &unverified_columns_}) {
      arrow::FieldVector fields;
      for (int position : subset->positions) {
        fields.push_back(dataset_schema_->field(decoded_[static_cast<size_t>(position)]));
      }
      subset->schema = arrow::schema(std::move(fields));
    }
  }

  std::shared_ptr<arrow::Schema> schema() const override { return output_schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (!Exhausted()) {
      if (next_ready_ < ready_.size()) {
        auto result = std::move(ready_[next_ready_++]);
        ARROW_ASSIGN_OR_RAISE(auto batch, std::move(result));
        if (options_.limit) {
          const uint64_t room = *options_.limit - returned_;
          if (static_cast<uint64_t>(batch->num_rows()) > room) {
            batch = batch->Slice(0, static_cast<int64_t>(room));
          }
        }
        if (batch->num_rows() == 0) continue;
        returned_ += static_cast<uint64_t>(batch->num_rows());
        *out = std::move(batch);
        return arrow::Status::OK();
      }
      ARROW_ASSIGN_OR_RAISE(bool more, ProcessWindow());
      if (!more) break;
    }
    return arrow::Status::OK();
  }

 private:
  static constexpr int kBatchesPerThread = 8;
  static constexpr int kMaxBatchesPerThread = 64;
  static constexpr size_t kCoalescedRows = 8192;
  static constexpr uint64_t kCoalescedBatches = 64;

  struct Work {
    std::shared_ptr<const FragmentReader> reader;
    int batch = 0;
  };

  // Some columns of a decoded batch: their positions in it, and their schema (made once: a
  // schema made per batch costs allocations and reference counts that the threads share).
  struct ColumnSubset {
    std::vector<int> positions;
    std::shared_ptr<arrow::Schema> schema;
  };

  // What one batch yields: no row (batch null), its kept rows (rows empty), or a few rows of
  // it (rows), copied later together with the following batches' few rows (Add, FlushHeld):
  // one output batch instead of many tiny ones, one copy instead of one per batch.
  struct Piece {
    std::shared_ptr<arrow::RecordBatch> batch;
    std::vector<uint32_t> rows;
    bool whole = false;  // batch is the read batch whole, a zero-copy slice of the file
  };

  bool Exhausted() const { return options_.limit && returned_ >= *options_.limit; }

  // Reads the next window of batches into ready_; false when every batch has been read.
  arrow::Result<bool> ProcessWindow() {
    std::vector<Work> window;
    // A fragment that cannot be opened fails after the batches before it, as in a serial scan.
    arrow::Status open_error;
    while (static_cast<int>(window.size()) < window_) {
      if (reader_ == nullptr || next_batch_ >= reader_->num_batches()) {
        if (next_fragment_ >= manifest_->fragments_size()) break;
        auto opened = OpenFragment(manifest_->fragments(next_fragment_));
        if (!opened.ok()) {
          open_error = opened.status();
          break;
        }
        reader_ = std::move(*opened);
        candidates_ = context_.candidates.empty()
                          ? nullptr
                          : context_.candidates[static_cast<size_t>(next_fragment_)];
        ++next_fragment_;
        next_batch_ = 0;
        continue;
      }
      const int batch = next_batch_++;
      if (candidates_ != nullptr &&
          !BatchHasCandidates(*candidates_,
                              static_cast<uint64_t>(batch) * reader_->rows_per_batch(),
                              reader_->rows_per_batch())) {
        continue;
      }
      window.push_back({reader_, batch});
    }
    ready_.clear();
    next_ready_ = 0;
    if (window.empty() && open_error.ok()) {
      // The scan's end: the rows still held for coalescing are its last batch.
      ARROW_RETURN_NOT_OK(FlushHeld());
      return !ready_.empty();
    }
    // Each batch keeps its own result, so errors surface in batch order, after the batches
    // before them, as a serial scan returns them.
    ARROW_ASSIGN_OR_RAISE(
        auto pieces, util::ParallelResults<Piece>(static_cast<int64_t>(window.size()),
                                                  [&](int64_t i) -> arrow::Result<Piece> {
                                                    return Process(window[static_cast<size_t>(i)]);
                                                  }));
    uint64_t scanned = 0;
    uint64_t kept = 0;
    bool every_batch_whole = true;
    for (size_t i = 0; i < pieces.size(); ++i) {
      every_batch_whole = every_batch_whole && pieces[i].ok() && pieces[i]->whole;
      scanned += window[i].reader->rows_per_batch();
      if (pieces[i].ok() && pieces[i]->batch != nullptr) {
        kept += pieces[i]->rows.empty() ? static_cast<uint64_t>(pieces[i]->batch->num_rows())
                                        : pieces[i]->rows.size();
      }
      ARROW_RETURN_NOT_OK(Add(std::move(pieces[i])));
    }
    if (!open_error.ok()) {
      ARROW_RETURN_NOT_OK(FlushHeld());
      ready_.emplace_back(std::move(open_error));
    }
    if (!options_.limit) ResizeWindow(scanned, kept, every_batch_whole);
    return true;
  }

  // Adds the next batch's piece to ready_, in order. A piece of a few rows is held and copied
  // later together with the following ones (up to kCoalescedRows rows, within runs of
  // kCoalescedBatches batches counted from the scan's start, so the output's batches do not
  // depend on the windows, hence on the thread count); with a limit, at once (no read-ahead).
  arrow::Status Add(arrow::Result<Piece> piece) {
    if (batches_added_++ % kCoalescedBatches == 0) ARROW_RETURN_NOT_OK(FlushHeld());
    if (piece.ok() && piece->batch == nullptr) return arrow::Status::OK();  // no row kept
    if (!piece.ok() || piece->rows.empty()) {
      ARROW_RETURN_NOT_OK(FlushHeld());
      if (!piece.ok()) {
        ready_.emplace_back(piece.status());
      } else if (piece->batch != nullptr) {
        ready_.emplace_back(std::move(piece->batch));
      }
      return arrow::Status::OK();
    }
    for (uint32_t row : piece->rows) held_rows_.push_back({held_batches_.size(), row});
    held_batches_.push_back(std::move(piece->batch));
    if (held_rows_.size() >= kCoalescedRows || options_.limit) return FlushHeld();
    return arrow::Status::OK();
  }

  // Copies the rows held into one batch of ready_.
  arrow::Status FlushHeld() {
    if (held_rows_.empty()) return arrow::Status::OK();
    ready_.push_back(CopyRows(output_schema_, held_batches_, held_rows_));
    held_batches_.clear();
    held_rows_.clear();
    return arrow::Status::OK();
  }

  // Sizes the next window after the share of the rows scanned that the last one kept. A window
  // that returned every batch whole (an unfiltered scan, fragments every row of which passes)
  // did almost nothing per batch (a slice of the file, columns verified before): the largest
  // window, so that handing the work out once is not most of the cost (two threads were slower
  // than one on such a scan), and the batches held cost no memory.
  void ResizeWindow(uint64_t scanned, uint64_t kept, bool every_batch_whole) {
    const int most = kMaxBatchesPerThread * util::NumThreads();
    if (every_batch_whole) {
      window_ = most;
      return;
    }
    const double share = static_cast<double>(std::max<uint64_t>(kept, 1)) /
                         static_cast<double>(std::max<uint64_t>(scanned, 1));
    window_ =
        static_cast<int>(std::clamp(static_cast<double>(base_window_) / share,
                                    static_cast<double>(base_window_), static_cast<double>(most)));
  }

  arrow::Result<std::shared_ptr<const FragmentReader>> OpenFragment(
      const format::Fragment& fragment) const {
    if (context_.open_fragments != nullptr) {
      return context_.open_fragments->Get(fragment, decoded_);
    }
    std::shared_ptr<const Roaring> deleted;
    if (context_.deletions != nullptr) {
      ARROW_ASSIGN_OR_RAISE(deleted, context_.deletions->Get(fragment));
    }
    ARROW_ASSIGN_OR_RAISE(
        std::shared_ptr<const FragmentReader> reader,
        FragmentReader::Open(*storage_, fragment, dataset_schema_, decoded_, std::move(deleted)));
    return reader;
  }

  // One batch, its deleted rows and the rows the filter rejects removed, projected (a Piece).
  // Late materialization: the filter's columns are verified and evaluated
  // first, and the other output columns are verified only as far as rows are kept: not at all
  // in a batch the filter rejects whole, only the kept rows' bytes where it keeps a few
  // (kWholeBatchFraction). A selective scan so reads, checks and faults in little more than
  // the filter's columns.
  arrow::Result<Piece> Process(const Work& work) const {
    const FragmentReader& reader = *work.reader;
    ARROW_ASSIGN_OR_RAISE(auto batch, reader.ReadBatchUnverified(work.batch));
    const int64_t rows = batch->num_rows();
    const uint64_t first = static_cast<uint64_t>(work.batch) * reader.rows_per_batch();
    GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(rows);
    ARROW_ASSIGN_OR_RAISE(auto mask, LiveRows(reader.deletions(), first, rows));
    if (filter_ != nullptr) {
      ARROW_RETURN_NOT_OK(reader.VerifyColumns(work.batch, *batch, filter_columns_.positions));
      auto evaluated = Columns(*batch, filter_columns_);
      // Deleted rows are not evaluated at all (Filter::Select), so they cannot fail a filter.
      ARROW_ASSIGN_OR_RAISE(mask, filter_->Select(*evaluated, mask.get()));
    }
    const int64_t kept = mask == nullptr ? rows : mask->true_count();
    if (kept == 0) return Piece{};
    ARROW_RETURN_NOT_OK(VerifyKept(reader, work.batch, *batch, unverified_columns_.positions,
                                   mask.get(), static_cast<uint64_t>(kept)));
    std::vector<std::shared_ptr<arrow::Array>> columns;
    columns.reserve(output_positions_.size());
    for (int position : output_positions_) {
      if (position < 0) {
        ARROW_ASSIGN_OR_RAISE(auto addresses,
                              RowAddresses(reader.fragment_id(), first, batch->num_rows()));
        columns.push_back(std::move(addresses));
      } else {
        columns.push_back(batch->column(position));
      }
    }
    auto projected = arrow::RecordBatch::Make(output_schema_, batch->num_rows(), columns);
    if (mask == nullptr || kept == rows) return Piece{std::move(projected), {}, true};
    if (static_cast<size_t>(kept) <= kCopyRowsLimit) {
      Piece piece{std::move(projected), {}};
      arrow::internal::SetBitRunReader runs(mask->values()->data(), mask->offset(), mask->length());
      for (auto run = runs.NextRun(); run.length != 0; run = runs.NextRun()) {
        for (int64_t row = run.position; row < run.position + run.length; ++row) {
          piece.rows.push_back(static_cast<uint32_t>(row));
        }
      }
      return piece;
    }
    ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(projected, mask));
    return Piece{filtered.record_batch(), {}};
  }

  // The columns `subset` of `batch`, as a batch.
  static std::shared_ptr<arrow::RecordBatch> Columns(const arrow::RecordBatch& batch,
                                                     const ColumnSubset& subset) {
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    arrays.reserve(subset.positions.size());
    for (int position : subset.positions) arrays.push_back(batch.column(position));
    return arrow::RecordBatch::Make(subset.schema, batch.num_rows(), std::move(arrays));
  }

  // Verifies the rows of columns `positions` of batch `index` that `mask` keeps (`kept` of
  // them; every row when null).
  static arrow::Status VerifyKept(const FragmentReader& reader, int index,
                                  const arrow::RecordBatch& batch,
                                  const std::vector<int>& positions,
                                  const arrow::BooleanArray* mask, uint64_t kept) {
    if (positions.empty()) return arrow::Status::OK();
    if (mask == nullptr || kept * kWholeBatchFraction >= static_cast<uint64_t>(batch.num_rows())) {
      return reader.VerifyColumns(index, batch, positions);
    }
    arrow::internal::SetBitRunReader runs(mask->values()->data(), mask->offset(), mask->length());
    for (auto run = runs.NextRun(); run.length != 0; run = runs.NextRun()) {
      ARROW_RETURN_NOT_OK(
          reader.VerifyColumnRows(index, batch, positions, run.position, run.length));
    }
    return arrow::Status::OK();
  }

  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<const format::Manifest> manifest_;
  std::shared_ptr<arrow::Schema> dataset_schema_;
  std::shared_ptr<arrow::Schema> output_schema_;
  std::vector<int> decoded_;
  std::shared_ptr<const expr::Filter> filter_;
  ColumnSubset filter_columns_;
  ColumnSubset unverified_columns_;    // output columns the filter does not read
  std::vector<int> output_positions_;  // per output column: its position, -1 for _rowaddr
  ScanOptions options_;
  const ScanContext context_;
  const int base_window_;
  int window_;  // batches in the next window
  std::shared_ptr<const FragmentReader> reader_;
  const Roaring* candidates_ = nullptr;  // reader_'s fragment's, when only they are read
  int next_fragment_ = 0;
  int next_batch_ = 0;
  std::vector<arrow::Result<std::shared_ptr<arrow::RecordBatch>>> ready_;
  size_t next_ready_ = 0;
  uint64_t batches_added_ = 0;  // pieces added since the scan began
  // The pieces of a few rows not yet copied: their batches and the rows to copy.
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_batches_;
  std::vector<RowOfBatches> held_rows_;
  uint64_t returned_ = 0;
};

}  // namespace

arrow::Result<std::vector<int>> ProjectedColumns(const arrow::Schema& schema,
                                                 const ScanOptions& options) {
  if (options.columns.empty()) return ResolveColumns(schema, {});
  std::vector<std::string> data;
  for (const auto& name : options.columns) {
    if (name != kRowAddressColumn) data.push_back(name);
  }
  if (data.empty()) return std::vector<int>();
  return ResolveColumns(schema, data);
}

arrow::Result<std::shared_ptr<arrow::Schema>> ScanOutputSchema(const arrow::Schema& schema,
                                                               const ScanOptions& options) {
  const auto row_address = arrow::field(kRowAddressColumn, arrow::uint64(), /*nullable=*/false);
  ARROW_ASSIGN_OR_RAISE(auto projected, ProjectedColumns(schema, options));
  arrow::FieldVector fields;
  bool named = false;
  size_t next = 0;
  if (options.columns.empty()) {
    for (int index : projected) fields.push_back(schema.field(index));
  } else {
    for (const auto& name : options.columns) {
      if (name == kRowAddressColumn) {
        if (named) return InvalidArgument("column '", name, "' is requested twice");
        named = true;
        fields.push_back(row_address);
      } else {
        fields.push_back(schema.field(projected[next++]));
      }
    }
  }
  if (options.with_row_address && !named) fields.push_back(row_address);
  return arrow::schema(std::move(fields));
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeScanner(
    std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest,
    std::shared_ptr<arrow::Schema> schema, const ScanOptions& options, ScanContext context) {
  if (!context.candidates.empty() &&
      context.candidates.size() != static_cast<size_t>(manifest->fragments_size())) {
    return Error(ErrorKind::kInternal, "a scan of ", manifest->fragments_size(),
                 " fragments was given candidates of ", context.candidates.size());
  }
  ARROW_ASSIGN_OR_RAISE(auto projected, ProjectedColumns(*schema, options));
  ARROW_ASSIGN_OR_RAISE(auto output, ScanOutputSchema(*schema, options));
  std::shared_ptr<const expr::Filter> filter;
  std::vector<int> decoded = projected;
  if (!options.filter.empty()) {
    ARROW_ASSIGN_OR_RAISE(filter, expr::Filter::Parse(options.filter, schema));
    for (const auto& name : filter->referenced_columns()) {
      decoded.push_back(schema->GetFieldIndex(name));
    }
  }
  std::sort(decoded.begin(), decoded.end());
  decoded.erase(std::unique(decoded.begin(), decoded.end()), decoded.end());
  // Reading no column at all (a scan of only _rowaddr) still needs the row count of each batch.
  if (decoded.empty()) decoded.push_back(0);
  return std::make_shared<ScanReader>(std::move(storage), std::move(manifest), std::move(schema),
                                      std::move(output), std::move(decoded), std::move(filter),
                                      options, std::move(context));
}

}  // namespace tessera::dataset
