// The index-aware read of a snapshot: one plan and one executor for scan, count, delete and the
// allow-list of a prefiltered nearest search.
//
// Every entry point parses the filter against the snapshot's schema, plans it once
// (filter_plan.h: which fragments indexes answer, with which rows, exactly or to recheck) and
// executes the same plan:
//  - Read streams the rows passing the filter as record batches, in bounded memory (at most
//    about one batch of decoded rows at a time, kReadBatchRows): fragments in manifest order,
//    offsets ascending, with the projection, limit and `_rowaddr` column of ScanOptions. Index-
//    answered fragments are read by row address, only their candidates; a fragment answered
//    exactly is not rechecked and reads only the output columns (none at all for `_rowaddr`
//    alone). Other fragments are scanned.
//  - Count counts the same rows; a fragment answered exactly costs no data file at all, only
//    its index answer and deletion vector.
//  - Delete deletes them, finding each fragment's rows through the plan (Dataset::Delete with
//    a RowFinder), so a delete whose predicate an index answers reads no data file either.
//  - FindMatchingRows returns them as offsets per fragment.
// Results equal those of the unindexed path (Dataset::Scan / CountRows / Delete) exactly; the
// property tests prove it. Explain lines describe the plan: which index answered which
// fragments, how their answers were combined, and why the rest was scanned.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

// Rows per batch read by row address, and so the most candidate rows decoded at once.
inline constexpr uint64_t kReadBatchRows = 8192;

// The rows of `snapshot` passing options.filter, streamed. Errors of Dataset::Scan (unknown
// columns, filter errors) are returned before the first batch; errors of opening and searching
// index segments (Corrupt for a damaged segment) too, since planning happens first.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> Read(
    std::shared_ptr<const Snapshot> snapshot, const dataset::ScanOptions& options,
    Explain* explain = nullptr);

// Live rows passing `filter` (all live rows when empty, from metadata).
arrow::Result<uint64_t> Count(const Snapshot& snapshot, std::string_view filter,
                              Explain* explain = nullptr);

// Deletes the live rows passing `filter` (non-empty) and returns the new version; the snapshot
// itself when nothing matches. Conflicts and errors as Dataset::Delete.
arrow::Result<std::shared_ptr<dataset::Dataset>> Delete(const Snapshot& snapshot,
                                                        std::string_view filter,
                                                        const dataset::WriteOptions& options = {},
                                                        Explain* explain = nullptr);

// Live rows passing `filter` (bound against snapshot.schema()), as offsets per fragment id;
// every fragment of the snapshot has an entry. Reads only the filter's columns.
using RowsByFragment = std::unordered_map<uint32_t, Roaring>;
arrow::Result<RowsByFragment> FindMatchingRows(const Snapshot& snapshot, const expr::Filter& filter,
                                               Explain* explain = nullptr,
                                               std::string_view explain_prefix = "");

}  // namespace tessera::query
