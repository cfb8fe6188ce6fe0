// TextResult: the table a full-text search returns for the rows it found — the projected
// columns, `_score` (float32, not null), `_highlight` (utf8) when asked for, then `_rowaddr`
// (uint64) when asked for — with the postfilter applied when the filter runs after the search.
//
// Invariants: rows keep the order they are given in (score descending, row address ascending);
// a postfilter only drops rows; the output schema is the same whether rows are found or not.
// Rows are read by row address (Dataset::Take), only the output's and the postfilter's columns.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/snapshot.h"
#include "tessera/query/text_top_k.h"

namespace tessera::query {

// Makes the `_highlight` column from the values of the highlighted column of the result rows.
using Highlighter =
    std::function<arrow::Result<std::shared_ptr<arrow::Array>>(const arrow::Array& values)>;

class TextResult {
 public:
  // `projection`: indexes into dataset.schema(); `postfilter`: null when none; `highlighted`:
  // the column whose values `highlighter` gets (ignored without one). `snapshot` (whose Take
  // reads the rows) must outlive this.
  TextResult(const Snapshot& snapshot, std::vector<int> projection, bool with_row_address,
             std::shared_ptr<const expr::Filter> postfilter, std::string highlighted,
             Highlighter highlighter);

  arrow::Result<std::shared_ptr<arrow::Table>> Materialize(const std::vector<ScoredDocument>& rows,
                                                           Explain* explain) const;

 private:
  const Snapshot& snapshot_;
  std::vector<int> projection_;
  bool with_row_address_;
  std::shared_ptr<const expr::Filter> postfilter_;
  std::string highlighted_;
  Highlighter highlighter_;
  std::shared_ptr<arrow::Schema> output_;
  std::vector<std::string> take_columns_;  // the projection, then the other columns needed
};

}  // namespace tessera::query
