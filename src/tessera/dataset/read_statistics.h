// Process-wide counters of rows the dataset layer read, for tests and benchmarks that must
// prove an access path is proportional to what it returns (a Take of 1,000 rows reads 1,000
// rows, an incremental index build reads only new rows), which timings cannot prove.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessera::dataset {

struct ReadStatistics {
  // Rows of record batches that a scan decoded (before deletions and filters).
  std::atomic<uint64_t> rows_scanned{0};
  // Rows copied out of data files by Take.
  std::atomic<uint64_t> rows_taken{0};
  // Record batches opened from data files (by scans and takes).
  std::atomic<uint64_t> batches_opened{0};
  // Data files opened (memory-mapped) by scans and takes: zero for a read answered from
  // indexes and metadata alone.
  std::atomic<uint64_t> data_files_opened{0};
  // Columns of record batches verified whole (checksums and structure): each (batch, column)
  // once per FragmentReader, however many reads use it.
  std::atomic<uint64_t> columns_verified{0};
  // Rows of external Parquet files decoded (whole row groups, selected columns).
  std::atomic<uint64_t> external_rows_decoded{0};

  void Reset() {
    external_rows_decoded = 0;
    columns_verified = 0;
    data_files_opened = 0;
    rows_scanned = 0;
    rows_taken = 0;
    batches_opened = 0;
  }
};

ReadStatistics& GlobalReadStatistics();

}  // namespace tessera::dataset
