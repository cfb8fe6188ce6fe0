// Verifying an Arrow record batch read from a VerifiedFile before any kernel sees it.
//
// Two checks, in this order: the checksums of exactly the bytes a row range uses (validity bits,
// values, offsets, and the variable-length data those offsets point at, through nested lists),
// then Arrow's full structural validation of that row range (offsets monotonic and in bounds,
// lengths, UTF-8). Offsets are bounds-checked before they are followed, so a damaged file can
// neither crash the check nor make it read outside the file. Verifying rows [start, start +
// count) touches O(bytes of those rows), which keeps a take of a few rows cheap.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/status.h>

#include "tessera/io/verified_file.h"

namespace tessera::io {

// Corrupt (naming the file) if rows [start, start + count) of `batch` fail either check.
arrow::Status VerifyBatchRows(const VerifiedFile& file, const arrow::RecordBatch& batch,
                              int64_t start, int64_t count);

// The whole batch.
inline arrow::Status VerifyBatch(const VerifiedFile& file, const arrow::RecordBatch& batch) {
  return VerifyBatchRows(file, batch, 0, batch.num_rows());
}

}  // namespace tessera::io
