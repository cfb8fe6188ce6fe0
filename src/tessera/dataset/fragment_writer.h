// Writes a stream of batches as new fragments: Arrow IPC files under data/.
//
// Every file holds at most max_rows_per_file rows, cut into record batches of exactly
// rows_per_batch rows (the last may be shorter), uncompressed, so that a reader maps a row
// offset to a batch arithmetically and reads a fixed-width value straight from a memory map.
// Each file gets its block checksums (`<file>.crc32c`, io/block_checksums.h) as it is written.
// Files are fsynced before the fragments are returned: a manifest may only reference durable
// data. Fragment ids are left 0; the commit assigns them.
//
// Each input batch advances the current progress phase (util/operation_control.h; the
// caller's phase: options.control, else the thread's current control) by its rows; a
// cancellation request ends the write with Cancelled and its files removed, up to the moment
// the fragments are returned.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>
#include <vector>

#include "tessera/dataset/options.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// Columns of `source` are matched to `schema` by name (CheckWriteSchema must have passed).
arrow::Result<std::vector<format::Fragment>> WriteFragments(
    io::Storage& storage, arrow::RecordBatchReader& source,
    const std::shared_ptr<arrow::Schema>& schema, const WriteOptions& options);

}  // namespace tessera::dataset
