// Filtered scan of a dataset version into one table, and the matching rows of a filter: the
// index-aware read of filtered_read.h for callers holding a dataset::Dataset rather than a
// Snapshot. Each call makes a snapshot of `dataset` for its duration; segments are still shared
// through the process-wide SegmentCache, but deletion vectors are loaded per call. Long-lived
// callers should keep a Snapshot and call Read / FindMatchingRows themselves.
//
// query::Scan returns exactly what Dataset::ScanToTable returns for the same options — the same
// rows in the same order (fragments in manifest order, offsets ascending), the same projection,
// limit and `_rowaddr` column.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <memory>
#include <string_view>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/filtered_read.h"

namespace tessera::query {

// Errors are those of Dataset::ScanToTable (unknown columns, filter errors), plus those of
// opening and searching index segments (Corrupt for a damaged segment).
arrow::Result<std::shared_ptr<arrow::Table>> Scan(const dataset::Dataset& dataset,
                                                  const dataset::ScanOptions& options,
                                                  Explain* explain = nullptr);

// FindMatchingRows of filtered_read.h on a snapshot of `dataset`.
arrow::Result<RowsByFragment> FindMatchingRows(const dataset::Dataset& dataset,
                                               const expr::Filter& filter,
                                               Explain* explain = nullptr,
                                               std::string_view explain_prefix = "");

}  // namespace tessera::query
