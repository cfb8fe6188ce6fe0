// ExternalBatches: the rows of an external fragment (a Parquet file the dataset references,
// docs/external.md) as record batches of the dataset's schema, each of exactly rows_per_batch
// rows except the last, like a data file's, so that every reader maps a row offset to a batch
// arithmetically whatever the file's row groups are.
//
// Parquet decodes a column chunk from its start, so the unit of decoding is a row group: a
// batch is sliced from the row group(s) it overlaps, which are decoded once (in pieces of
// rows_per_batch rows), converted to the dataset's types (external_columns.h) and validated,
// then kept for the batches that follow. Registration chooses rows_per_batch to tile the row
// groups where it can (external_files.h), so that every batch is one piece, without a copy.
// The decoded row groups kept are bounded (kKeptBytes, at least the last one decoded): unlike a
// memory-mapped data file, decoded Parquet occupies memory. Two threads asking for one row
// group decode it once. Thread-safe.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <atomic>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "tessera/dataset/external_parquet.h"
#include "tessera/format/manifest.pb.h"

namespace tessera::dataset {

class ExternalBatches {
 public:
  // Decoded row groups kept beyond the one last decoded.
  static constexpr int64_t kKeptBytes = 256 << 20;
  // Pages are read alone while they hold under 1/kPageReadShare of a row group's rows; beyond,
  // the row group is decoded (and kept for the reads that follow).
  static constexpr int64_t kPageReadShare = 4;

  // `schema`: the dataset's columns to read (each must be in the file, with a type
  // external_columns.h accepts). Stale when the file no longer matches its fingerprint.
  static arrow::Result<std::unique_ptr<ExternalBatches>> Open(
      const format::Fragment& fragment, const std::shared_ptr<arrow::Schema>& schema);

  int num_batches() const { return num_batches_; }
  // Vectors read as null because they were bad (the file's ExternalFile.bad_vectors_as_null),
  // over every decode so far.
  uint64_t bad_vectors() const { return bad_vectors_.load(); }
  const ExternalParquetFile& file() const { return *file_; }
  // Batch `index`: rows [index * rows_per_batch, ...) of the file, validated. With `rows`
  // (ascending offsets within the batch), only the row groups holding them are decoded, or only
  // their pages where the file has an offset index (external_pages.h) and they lie in under a
  // kPageReadShare-th of the row group's rows; only those rows may be used (the others may be
  // null).
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadBatch(
      int index, const std::vector<uint32_t>* rows = nullptr) const;

 private:
  // A row group's rows in the dataset's types, in pieces of rows_per_batch rows (the last may
  // be shorter): the pieces the file's reader decodes, so that a batch lying in one piece is a
  // slice of it, never a copy.
  using DecodedGroup = std::vector<std::shared_ptr<arrow::RecordBatch>>;
  using Decoded = arrow::Result<std::shared_ptr<const DecodedGroup>>;
  struct Kept {
    std::shared_future<Decoded> batch;
    bool ready = false;  // decoded (false while a thread decodes it)
    int64_t bytes = 0;
    std::list<int>::iterator recency;
  };

  ExternalBatches() = default;
  // Row group `index` in the dataset's types, decoded once while kept.
  Decoded RowGroup(int index) const;
  Decoded Decode(int index) const;
  // Rows [first, end) of row group `group` (file rows; `batch_start` is the batch's first) with
  // the rows of `rows` (offsets within the batch) read from the pages holding them, others null;
  // null when page reads do not apply (external_pages.h) or the row group is decoded already.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadFromPages(
      int group, int64_t first, int64_t end, int64_t batch_start,
      const std::vector<uint32_t>& rows) const;
  // Column `column` of schema_ decoded from rows [first_row, ...) of row group `group`, validated
  // and converted to the dataset's type (external_columns.h); Corrupt naming the file otherwise.
  arrow::Result<std::shared_ptr<arrow::Array>> ConformDecoded(
      const std::shared_ptr<arrow::Array>& decoded, int column, int group, int64_t first_row) const;
  // Drops the least recently used decoded row groups beyond kKeptBytes; mutex_ held.
  void Evict() const;

  std::shared_ptr<ExternalParquetFile> file_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> fields_;  // positions in file_->schema() of schema_'s fields
  bool bad_vectors_as_null_ = false;
  mutable std::atomic<uint64_t> bad_vectors_{0};
  uint64_t rows_per_batch_ = 0;
  uint64_t num_rows_ = 0;
  int num_batches_ = 0;
  mutable std::mutex mutex_;
  mutable std::map<int, Kept> kept_;
  mutable std::list<int> recency_;  // most recently used first
  mutable int64_t kept_bytes_ = 0;
};

}  // namespace tessera::dataset
