// Take: the rows at given row addresses of one version, in the order asked.
//
// Work is proportional to the rows asked for, never to fragment size: addresses are grouped by
// fragment and batch, each batch is opened zero-copy from the memory map (metadata only) and
// only the requested rows are copied out.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <arrow/table.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/gather_rows.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class FragmentReader;

// A read that uses at least 1 / kWholeBatchFraction of a batch's rows verifies the batch whole,
// in a few long ranges: that many rows touch most of its blocks anyway. Fewer rows verify only
// their own bytes (take.cc, the scanner's late materialization).
inline constexpr uint64_t kWholeBatchFraction = 16;

arrow::Result<std::shared_ptr<arrow::Table>> TakeRows(const io::Storage& storage,
                                                      const format::Manifest& manifest,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::vector<uint64_t>& row_addresses,
                                                      const std::vector<std::string>& columns);

// The reader of `fragment` decoding `columns` (indices into the schema), which stays valid for
// the call it serves: how a caller that keeps readers open across takes (query::Snapshot)
// supplies them.
using FragmentReaders = std::function<arrow::Result<const FragmentReader*>(
    const format::Fragment& fragment, const std::vector<int>& columns)>;

// The same, the fragments read through `readers` instead of opened for this call.
arrow::Result<std::shared_ptr<arrow::Table>> TakeRows(const io::Storage& storage,
                                                      const format::Manifest& manifest,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::vector<uint64_t>& row_addresses,
                                                      const std::vector<std::string>& columns,
                                                      const FragmentReaders& readers);

// Up to this many rows of one batch are held by a scan and copied with other batches' (CopyRows)
// rather than filtered by an Arrow kernel: a kernel call costs microseconds of dispatch per
// batch and column, a row copy a few nanoseconds a column.
inline constexpr size_t kCopyRowsLimit = 32;

// The rows `rows` names (in any order, repeats allowed) of `batches`, which have `schema`,
// copied into one new batch (dataset/gather_rows.h).
arrow::Result<std::shared_ptr<arrow::RecordBatch>> CopyRows(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const std::vector<RowOfBatches>& rows);

// The rows at `offsets` (ascending; a repeated offset repeats its row; each below the
// fragment's row count) of the fragment `reader` reads, with its columns, copied into one batch
// in one pass per column across the batches they lie in. Deletions are the caller's concern.
// `whole_batches`: verify every batch touched whole (cheaper when the offsets are dense over
// the fragment); otherwise a batch is verified whole only when a sixteenth of its rows is taken,
// else just the rows taken.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> TakeFromFragment(
    const FragmentReader& reader, const std::vector<uint32_t>& offsets, bool whole_batches = false);

}  // namespace tessera::dataset
