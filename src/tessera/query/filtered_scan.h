// Filtered scan through scalar indexes (docs/design.md, "Query semantics").
//
// query::Scan returns exactly what Dataset::ScanToTable returns for the same options — the same
// rows in the same order (fragments in manifest order, offsets ascending), the same projection,
// limit and `_rowaddr` column — but reads a fragment that a scalar index (BTREE) answers in
// O(candidates): the planner (filter_plan.h) maps the filter onto index searches, the
// candidates minus deletions are taken by row address with the columns needed for the output
// and the recheck, and the full filter is evaluated on them. Every candidate is rechecked, so
// an index can only make a query cheaper, never change its answer. Fragments no index narrows
// are scanned as Dataset::Scan scans them. An empty or constant filter is a plain scan.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"

namespace tessera::query {

// Errors are those of Dataset::ScanToTable (unknown columns, filter errors), plus those of
// opening and searching index segments (Corrupt for a damaged segment).
arrow::Result<std::shared_ptr<arrow::Table>> Scan(const dataset::Dataset& dataset,
                                                  const dataset::ScanOptions& options,
                                                  Explain* explain = nullptr);

// Live rows passing `filter` (bound against dataset.schema()), as offsets per fragment id;
// every fragment of the snapshot has an entry. Uses indexes like Scan; reads only the filter's
// columns. The allow-list of a prefiltered nearest search.
using RowsByFragment = std::unordered_map<uint32_t, Roaring>;
arrow::Result<RowsByFragment> FindMatchingRows(const dataset::Dataset& dataset,
                                               const expr::Filter& filter,
                                               Explain* explain = nullptr,
                                               std::string_view explain_prefix = "");

}  // namespace tessera::query
