// The index inspection listings (ListIndexes, ListSegments) as Arrow record batches: the rows
// `tessera index list / entries / describe` print and Python's list_indexes / index_entries
// return, built once here so that every surface shows the same columns.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/index/lifecycle.h"

namespace tessera::index {

// One row per logical index: name, column, type, params ("k=v, ..."), segments, indexed_rows,
// indexed_fragments, unindexed_rows, unindexed_fragments.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> IndexesBatch(
    const std::vector<IndexSummary>& summaries);

// One row per segment: [index, type,] segment (uuid), dataset_version, fragments (list of
// fragment ids), rows, bytes, created (timestamp, UTC)[, details ("dim=8, metric=l2, model=...")].
arrow::Result<std::shared_ptr<arrow::RecordBatch>> SegmentsBatch(
    const std::vector<std::pair<std::string, format::SegmentMeta>>& entries, bool with_index,
    bool with_details);

}  // namespace tessera::index
