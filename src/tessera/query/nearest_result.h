// NearestResult: the table a nearest-neighbour search returns for the rows it found — the
// projected columns, `_distance` (float32, not null), then `_rowaddr` (uint64) when asked for —
// with the postfilter applied when the filter runs after the search.
//
// Invariants: rows keep the order they are given in (the search's (distance, row address)
// order); a postfilter only drops rows, so it may leave fewer than k, even none; the output
// schema is the same whether rows are found or not. Immutable: Materialize runs on many threads.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <memory>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/filter.h"
#include "tessera/index/index_family.h"
#include "tessera/query/explain.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

class NearestResult {
 public:
  // `projection`: indexes into the snapshot's schema; `postfilter`: null when none. `snapshot`
  // must outlive this. Rows are read through the snapshot's open fragments, so that the many
  // Materialize calls of a batch (one per query) open each fragment once, not once per query.
  NearestResult(const Snapshot& snapshot, std::vector<int> projection, bool with_row_address,
                std::shared_ptr<const expr::Filter> postfilter);

  // The table of `rows`, read by row address; explain gets the postfilter's line.
  arrow::Result<std::shared_ptr<arrow::Table>> Materialize(
      const std::vector<index::ScoredRow>& rows, Explain* explain) const;

 private:
  void ExplainPostfilter(size_t searched, size_t kept, Explain* explain) const;

  const Snapshot& snapshot_;
  std::vector<int> projection_;
  bool with_row_address_;
  std::shared_ptr<const expr::Filter> postfilter_;
  std::shared_ptr<arrow::Schema> output_;
  std::vector<std::string> take_columns_;  // the projection, then the postfilter's columns
};

}  // namespace tessera::query
