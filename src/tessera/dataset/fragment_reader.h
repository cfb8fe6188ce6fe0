// FragmentReader: random access to the rows of one fragment of one version.
//
// The data file is memory-mapped and its record batches are decoded lazily and zero-copy, so
// opening a batch costs its metadata only and reading a row touches the pages of that row.
// Every byte is verified against the file's block checksums before it is returned, and every
// batch is structurally validated (io/verified_ipc_file.h). A decoded batch is kept for later
// reads of the same reader (its arrays point into the map: metadata only), so a reader a
// snapshot holds open decodes each batch once however many takes touch it. Likewise each
// column of each batch is verified whole at most once: the file never changes and its decoded
// arrays are kept, so a verified column stays verified, and a long-lived reader's later scans
// check nothing again (like a buffer pool verifying a page when it loads it). Thread-safe.
// The fragment's deletion vector is loaded once and exposed for callers to subtract.
//
// An external fragment (a Parquet file the dataset references, docs/external.md) is read
// through ExternalBatches instead: its batches are decoded from the file, converted and
// validated as a whole when read, so every Verify* call passes at once, and they are not kept
// here (ExternalBatches keeps a bounded number of decoded row groups).
#pragma once

#include <arrow/ipc/reader.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <memory>
#include <mutex>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"
#include "tessera/io/verified_blocks.h"
#include "tessera/io/verified_ipc_file.h"

namespace tessera::dataset {

class ExternalBatches;

class FragmentReader {
 public:
  // `columns`: indices into `schema` of the columns to decode (all when empty). `deletions`:
  // the fragment's deletion vector when the caller has it loaded (dataset/deletion_vectors.h);
  // null loads it.
  static arrow::Result<std::unique_ptr<FragmentReader>> Open(
      const io::Storage& storage, const format::Fragment& fragment,
      const std::shared_ptr<arrow::Schema>& schema, const std::vector<int>& columns,
      std::shared_ptr<const Roaring> deletions = nullptr);
  ~FragmentReader();

  uint32_t fragment_id() const { return fragment_id_; }
  uint64_t physical_rows() const { return physical_rows_; }
  int num_batches() const { return num_batches_; }
  uint64_t rows_per_batch() const { return rows_per_batch_; }
  // The schema of the batches returned: the selected columns, in the order given.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  const Roaring& deletions() const { return *deletions_; }

  // Batch `index` (its first row has offset index * rows_per_batch()), verified: Corrupt,
  // naming the data file, if its bytes fail their checksums or its arrays are malformed.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadBatch(int index) const;
  // Batch `index` of which only `rows` (ascending offsets within the batch) are verified and
  // may be used: a take reads a few rows of a batch and checks only their bytes.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadRowsOfBatch(
      int index, const std::vector<uint32_t>& rows) const;
  // Batch `index` with its structure checked (lengths, buffer sizes) but not its values: for
  // readers that verify each value they use through file() (io::VerifiedFile::VerifyRange).
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadBatchUnverified(int index) const;
  // True for an external fragment: its batches come verified, and it has no file().
  bool external() const { return external_ != nullptr; }
  // The data file's checksummed bytes; not for an external fragment.
  const io::VerifiedFile& file() const { return file_->file(); }

  // Verifies columns `positions` (of schema()) of `batch`, which ReadBatchUnverified(index)
  // returned, whole; a column verified whole before is skipped.
  arrow::Status VerifyColumns(int index, const arrow::RecordBatch& batch,
                              const std::vector<int>& positions) const;
  // Verifies rows [start, start + count) of those columns, skipping the columns verified whole.
  arrow::Status VerifyColumnRows(int index, const arrow::RecordBatch& batch,
                                 const std::vector<int>& positions, int64_t start,
                                 int64_t count) const;

 private:
  FragmentReader() = default;
  // Decodes and checks batch `index` (ReadBatchUnverified keeps what it returns).
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> DecodeBatch(int index) const;
  // The flag of column `position` of batch `index` in verified_columns_.
  uint64_t VerifiedFlag(int index, int position) const {
    return static_cast<uint64_t>(index) * all_columns_.size() + static_cast<uint64_t>(position);
  }

  uint32_t fragment_id_ = 0;
  uint64_t physical_rows_ = 0;
  uint64_t rows_per_batch_ = 0;
  int num_batches_ = 0;
  std::string path_;
  std::shared_ptr<arrow::Schema> schema_;
  std::unique_ptr<io::VerifiedIpcFile> file_;  // native data file
  std::unique_ptr<ExternalBatches> external_;  // or external Parquet file
  std::shared_ptr<const Roaring> deletions_;
  mutable std::mutex decoded_mutex_;
  mutable std::vector<std::shared_ptr<arrow::RecordBatch>> decoded_;  // by batch; null: not yet
  std::vector<int> all_columns_;                                      // 0 .. columns - 1
  // Flag batch * columns + column: that column of that batch was verified whole.
  std::unique_ptr<io::BlockFlags> verified_columns_;
};

}  // namespace tessera::dataset
