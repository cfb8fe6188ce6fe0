// PreparedNearest: nearest-neighbour search prepared once for one dataset version, then run for
// many query vectors — one at a time or as a batch.
//
// Make() does everything that does not depend on the query vector: it resolves the column,
// metric and projection, opens the segments of the vector indexes on the column (models and
// partition files, memory-mapped), assigns every fragment to a segment or to an exact scan,
// loads deletion vectors and evaluates a prefilter to its allow-list. Search() then only probes,
// scores, refines and merges. Semantics are those of Nearest() (nearest.h), which is Make()
// followed by one Search() and Materialize().
//
// Batch search (SearchBatch) answers each query exactly as Search() would (the same rows, order
// and distance bits). Each segment answers the whole batch (VectorSegmentReader::SearchBatch:
// IVF segments probe the batch at once and read each probed partition once per block of
// queries, in parallel over blocks); refinement reads each candidate row's raw vector once per
// batch (the union of all queries' candidates, grouped by fragment), not once per query. Which
// error a failing batch reports may differ from the first a loop of Search() calls would.
//
// Immutable after Make(): Search, SearchBatch and Materialize may run on many threads at once.
// The dataset must outlive the PreparedNearest.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/query/explain.h"
#include "tessera/query/nearest.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

// The column of a batch's results that numbers the query (0-based, in batch order).
inline constexpr const char* kQueryNumberColumn = "query";

// Per-call settings; a field left at its default (-1) takes the value of NearestOptions.
struct NearestKnobs {
  int64_t k = -1;
  int nprobes = -1;
  int refine_factor = -1;
  int ef = -1;
};

class PreparedNearest {
 public:
  // `options.query` is ignored. Errors as Nearest() reports them.
  static arrow::Result<std::unique_ptr<PreparedNearest>> Make(const dataset::Dataset& dataset,
                                                              const NearestOptions& options,
                                                              Explain* explain = nullptr);
  // The same on a snapshot, which the PreparedNearest keeps: its segments and deletion vectors
  // are those the snapshot opened, shared with every other query on it.
  static arrow::Result<std::unique_ptr<PreparedNearest>> Make(
      std::shared_ptr<const Snapshot> snapshot, const NearestOptions& options,
      Explain* explain = nullptr);
  ~PreparedNearest();

  int dim() const;
  index::vector::Metric metric() const;

  // The rows [offset, offset + k) of the order for `query` (dim() floats), before any
  // postfilter: (row address, distance) pairs in (distance, row address) order.
  arrow::Result<std::vector<index::ScoredRow>> Search(const float* query,
                                                      const NearestKnobs& knobs = {},
                                                      Explain* explain = nullptr) const;
  // `count` queries, row-major count × dim() floats; result i answers query i.
  arrow::Result<std::vector<std::vector<index::ScoredRow>>> SearchBatch(
      const float* queries, int64_t count, const NearestKnobs& knobs = {}) const;

  // The result table of Nearest() for `rows` found by Search (projected columns, `_distance`,
  // `_rowaddr` when asked for), with the postfilter applied when there is one.
  arrow::Result<std::shared_ptr<arrow::Table>> Materialize(
      const std::vector<index::ScoredRow>& rows, Explain* explain = nullptr) const;
  // The results of a batch (SearchBatch's answer) as one table: each query's Materialize, in
  // query order, with kQueryNumberColumn (int64, not null) first when `numbered` (how the
  // queries' rows are told apart: `tessera search --queries`, Python's search of a 2-D array).
  // `explains`: null, or one Explain per query.
  arrow::Result<std::shared_ptr<arrow::Table>> MaterializeBatch(
      const std::vector<std::vector<index::ScoredRow>>& found, bool numbered,
      std::vector<Explain>* explains = nullptr) const;

 private:
  class Impl;
  explicit PreparedNearest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::query
