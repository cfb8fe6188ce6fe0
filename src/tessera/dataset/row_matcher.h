// Finding and counting the rows of fragments that satisfy a filter: the shared core of Delete,
// filtered counts and the row search of indexed reads.
//
// Batches are evaluated in parallel (util::ParallelFor): the batches of all the fragments given
// form one list of work, so two threads share even a single fragment. Results never depend on
// the thread count: each batch's answer is computed alone and the answers are combined by
// offset (a set union, a sum).
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <vector>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/expr/filter.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// One fragment to evaluate: an open reader decoding (at least) the filter's columns, and the
// deletion vector to honour (possibly newer than the reader's own, for a re-planned delete).
// `candidates`, when given, are offsets that include every row the filter keeps (an index's
// answer): batches holding none are not evaluated (dataset/candidate_batches.h).
struct FragmentToMatch {
  const FragmentReader* reader = nullptr;
  const Roaring* deleted = nullptr;
  const Roaring* candidates = nullptr;
};

// Offsets of rows of `fragment` for which `filter` is true, excluding `deleted` offsets.
// Decodes only the columns the filter reads.
arrow::Result<Roaring> FindMatchingRows(const io::Storage& storage,
                                        const format::Fragment& fragment,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        const expr::Filter& filter, const Roaring& deleted);
// The same through an open reader.
arrow::Result<Roaring> FindMatchingRows(const FragmentToMatch& fragment,
                                        const expr::Filter& filter);

// How many live rows of `fragments` pass `filter`; no row set is built.
arrow::Result<uint64_t> CountMatchingRows(const std::vector<FragmentToMatch>& fragments,
                                          const expr::Filter& filter);

// Batch `index` of the fragment evaluated: true for each live row that passes `filter` (no
// nulls). Deleted rows are never evaluated (Filter::Select), so they cannot fail a filter.
arrow::Result<std::shared_ptr<arrow::BooleanArray>> SelectInBatch(const FragmentToMatch& fragment,
                                                                  int index,
                                                                  const expr::Filter& filter);

// Column indices of `schema` that `filter` reads, ascending.
arrow::Result<std::vector<int>> FilterColumns(const arrow::Schema& schema,
                                              const expr::Filter& filter);
// The columns a reader evaluating `filter` decodes: FilterColumns, or column 0 for a constant
// filter, which reads none (the batches' row counts are still needed).
arrow::Result<std::vector<int>> ColumnsToMatch(const arrow::Schema& schema,
                                               const expr::Filter& filter);

}  // namespace tessera::dataset
