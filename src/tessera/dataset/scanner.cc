#include "tessera/dataset/scanner.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <set>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/deletion_vectors.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
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

// Batches are processed in windows: up to window() batches (of one or more fragments) are read,
// filtered and projected in parallel (util::ParallelFor), then returned in order. A window is
// one batch with one thread or a limit (the limit is met without reading ahead).
class ScanReader : public arrow::RecordBatchReader {
 public:
  ScanReader(std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest,
             std::shared_ptr<arrow::Schema> dataset_schema, std::shared_ptr<arrow::Schema> output,
             std::vector<int> decoded, std::shared_ptr<const expr::Filter> filter,
             ScanOptions options, const DeletionVectors* deletions)
      : storage_(std::move(storage)),
        manifest_(std::move(manifest)),
        dataset_schema_(std::move(dataset_schema)),
        output_schema_(std::move(output)),
        decoded_(std::move(decoded)),
        filter_(std::move(filter)),
        options_(std::move(options)),
        deletions_(deletions),
        window_(options_.limit || util::NumThreads() == 1
                    ? 1
                    : kBatchesPerThread * util::NumThreads()) {}

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

  struct Work {
    std::shared_ptr<const FragmentReader> reader;
    int batch = 0;
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
          if (window.empty()) return opened.status();
          open_error = opened.status();
          break;
        }
        reader_ = std::move(*opened);
        ++next_fragment_;
        next_batch_ = 0;
        continue;
      }
      window.push_back({reader_, next_batch_++});
    }
    if (window.empty()) return false;
    // Each batch keeps its own result, so errors surface in batch order, after the batches
    // before them, as a serial scan returns them.
    using Batch = std::shared_ptr<arrow::RecordBatch>;
    ARROW_ASSIGN_OR_RAISE(
        ready_, util::ParallelResults<Batch>(static_cast<int64_t>(window.size()),
                                             [&](int64_t i) -> arrow::Result<Batch> {
                                               return Process(window[static_cast<size_t>(i)]);
                                             }));
    if (!open_error.ok()) ready_.emplace_back(std::move(open_error));
    next_ready_ = 0;
    return true;
  }

  arrow::Result<std::shared_ptr<const FragmentReader>> OpenFragment(
      const format::Fragment& fragment) const {
    std::shared_ptr<const Roaring> deleted;
    if (deletions_ != nullptr) {
      ARROW_ASSIGN_OR_RAISE(deleted, deletions_->Get(fragment));
    }
    ARROW_ASSIGN_OR_RAISE(
        std::shared_ptr<const FragmentReader> reader,
        FragmentReader::Open(*storage_, fragment, dataset_schema_, decoded_, std::move(deleted)));
    return reader;
  }

  // One batch, its deleted rows and the rows the filter rejects removed, projected.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Process(const Work& work) const {
    const FragmentReader& reader = *work.reader;
    ARROW_ASSIGN_OR_RAISE(auto batch, reader.ReadBatch(work.batch));
    const uint64_t first = static_cast<uint64_t>(work.batch) * reader.rows_per_batch();
    GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
    ARROW_ASSIGN_OR_RAISE(auto mask, LiveRows(reader.deletions(), first, batch->num_rows()));
    if (filter_ != nullptr) {
      // Deleted rows are not evaluated at all (Filter::Select), so they cannot fail a filter.
      ARROW_ASSIGN_OR_RAISE(mask, filter_->Select(*batch, mask.get()));
    }
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& field : output_schema_->fields()) {
      if (field->name() == kRowAddressColumn) {
        ARROW_ASSIGN_OR_RAISE(auto addresses,
                              RowAddresses(reader.fragment_id(), first, batch->num_rows()));
        columns.push_back(std::move(addresses));
      } else {
        columns.push_back(batch->GetColumnByName(field->name()));
      }
    }
    auto projected = arrow::RecordBatch::Make(output_schema_, batch->num_rows(), columns);
    if (mask != nullptr) {
      ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(projected, mask));
      projected = filtered.record_batch();
    }
    return projected;
  }

  std::shared_ptr<io::Storage> storage_;
  std::shared_ptr<const format::Manifest> manifest_;
  std::shared_ptr<arrow::Schema> dataset_schema_;
  std::shared_ptr<arrow::Schema> output_schema_;
  std::vector<int> decoded_;
  std::shared_ptr<const expr::Filter> filter_;
  ScanOptions options_;
  const DeletionVectors* deletions_;
  const int window_;
  std::shared_ptr<const FragmentReader> reader_;
  int next_fragment_ = 0;
  int next_batch_ = 0;
  std::vector<arrow::Result<std::shared_ptr<arrow::RecordBatch>>> ready_;
  size_t next_ready_ = 0;
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
    std::shared_ptr<arrow::Schema> schema, const ScanOptions& options,
    const DeletionVectors* deletions) {
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
                                      options, deletions);
}

}  // namespace tessera::dataset
