// k-nearest-neighbour join: for every row of a left input (query vectors with other columns), its
// k nearest rows of a right dataset, as rows of (left columns, right columns, _distance, _rank,
// _rowaddr) — docs/external.md, "k-nearest-neighbour joins".
//
// The left input is read in batches of batch_rows rows. Each batch is searched as one
// PreparedNearest batch (in parallel over its queries; refinement reads the union of the batch's
// candidates once), then the union of the batch's results is read from the right dataset with
// one take (for each file, the rows it holds, together), and the output batch is assembled from
// the left batch and those rows. Memory is bounded by a batch: its left rows, k results each
// and the right rows they name. The search's semantics are Nearest's (query/nearest.h); a filter
// on the right rows is applied before the search (prefilter), so every left row gets k rows
// whenever k pass it. `right.use_index = false` is the exact join (every right row scored): the
// ground truth of the approximate one.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/query/nearest.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

inline constexpr const char* kRankColumn = "_rank";

struct KnnJoinOptions {
  // The left input's vector column: fixed_size_list or list of float32 / float16 / float64
  // values (compared as float32), of the right column's dimension.
  std::string left_column;
  // Left columns carried into the output, in this order; empty: every left column but
  // left_column.
  std::vector<std::string> left_columns;
  // The search of the right dataset: column, k, nprobes, refine_factor, metric, filter, columns
  // (the right columns carried; empty: every column but the vector column), use_index. `query`,
  // `offset`, `prefilter` and `with_row_address` are set by the join.
  NearestOptions right;
  // Left rows searched at once.
  int64_t batch_rows = 1024;
};

struct KnnJoinResult {
  int64_t left_rows = 0;
  int64_t output_rows = 0;
  // The output batches' schema, also when no batch was emitted (an empty left input).
  std::shared_ptr<arrow::Schema> schema;
};

// Output columns: the left columns, the right columns (a name the left side also has gets the
// prefix "right_"), `_distance` (float32), `_rank` (int32, 1 for the nearest) and `_rowaddr`
// (uint64, the right row's address); each left row's results in rank order, left rows in input
// order. InvalidArgument naming the left row for a null or wrong-sized left vector; errors of
// Nearest for the right side. `emit` receives each output batch; an "joining" progress phase
// counts left rows (util/operation_control.h).
arrow::Result<KnnJoinResult> KnnJoin(
    arrow::RecordBatchReader& left, std::shared_ptr<const Snapshot> right,
    const KnnJoinOptions& options,
    const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>& emit);

}  // namespace tessera::query
