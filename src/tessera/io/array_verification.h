// Verifying an Arrow record batch read from a VerifiedFile before any kernel sees it.
//
// Two checks, together: the checksums of exactly the bytes a row range uses (validity bits,
// values, offsets, and the variable-length data those offsets point at, through nested lists),
// and the structure of that row range (every buffer long enough for it, offsets non-negative,
// non-decreasing and within the data or child array they index). Offsets are checked before
// they are followed, so a damaged file can neither crash the check nor make it read outside the
// file, even when its checksums were rewritten to match. Verifying rows [start, start + count)
// touches O(bytes of those rows), which keeps a take of a few rows cheap. The caller has run
// Arrow's cheap Validate() on the batch (lengths, buffer counts). UTF-8 is not re-validated:
// string data is validated when written, and its checksum proves it unchanged.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/status.h>

#include "tessera/io/verified_file.h"

namespace tessera::io {

// Corrupt (naming the file) if rows [start, start + count) of `data` (one array, relative to its
// offset) fail either check.
arrow::Status VerifyArrayRows(const VerifiedFile& file, const arrow::ArrayData& data, int64_t start,
                              int64_t count);

// Corrupt (naming the file) if rows [start, start + count) of `batch` fail either check.
arrow::Status VerifyBatchRows(const VerifiedFile& file, const arrow::RecordBatch& batch,
                              int64_t start, int64_t count);

// The whole batch.
inline arrow::Status VerifyBatch(const VerifiedFile& file, const arrow::RecordBatch& batch) {
  return VerifyBatchRows(file, batch, 0, batch.num_rows());
}

}  // namespace tessera::io
