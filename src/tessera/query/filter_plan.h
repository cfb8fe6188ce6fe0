// Filter planning: which fragments of a snapshot the scalar indexes answer for a filter, with
// which rows, how exactly, and how the indexes' answers were combined.
//
// The planner never names an index family. For every leaf of the filter's typed AST on an
// indexed column (index/scalar_segment.h) it asks each segment covering the fragment whether it
// can answer the leaf (exactly or as a superset) and at what cost, and uses the best: exact
// before superset, then cheapest. A segment of 65,536 rows or more whose estimated cost passes
// a share of its rows is not used for that leaf: scanning is cheaper (explain notes it). The
// share depends on what the rows are found for (PlanPurpose) and on the threads a scan uses
// (util::NumThreads(): a scan runs on all of them, an index answer on one).
// It then bounds, per fragment, the rows where the filter is TRUE with Kleene logic over
// AND / OR / NOT:
//  - a leaf's TRUE rows are, per fragment, what the fragment's statistics prove (no row or
//    every row: exact and free, so asked first), else its index answer; its FALSE rows are
//    derived from TRUE answers:
//    `c IS NULL` is FALSE on every row where it is not TRUE; a leaf that is unknown exactly on
//    the null rows of its column (comparisons with a literal, BETWEEN, IN without NULL, LIKE,
//    array_has, a boolean column) is FALSE on the non-null rows (every row minus
//    `c IS NULL`) where it is not TRUE; IN with a NULL in its list is never FALSE. `x != v` is
//    NOT (x = v), which is the same under Kleene logic, NaN included;
//  - AND intersects TRUE bounds and unions FALSE bounds, OR the converse, NOT swaps them;
//  - a leaf neither statistics nor an index answers is unbounded, which an AND ignores and
//    which unbounds an OR.
// Every bound is a superset of the rows where its node has that truth value, and it is exact
// when built only from exact answers, complements of exact answers and constants. A fragment
// whose TRUE bound is bounded is answered from the index: its rows are the bound minus the
// fragment's deletions, rechecked by the executor against the whole filter unless exact.
// Other fragments are scanned. The result is always exactly what the unindexed scan returns.
//
// Each (segment, leaf) answer is computed once and serves every fragment the segment covers.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

struct FragmentFilterPlan {
  int position = 0;  // in manifest().fragments()
  uint32_t fragment_id = 0;
  // Live offsets that may satisfy the filter (a superset of the rows it keeps unless `exact`).
  // Absent when no index narrows this fragment: the executor scans it.
  std::optional<Roaring> candidates;
  // The candidates are exactly the rows the filter keeps: nothing needs rechecking.
  bool exact = false;
  // For explain: the indexes and predicates that answered and how their sets were combined,
  // or why the fragment is scanned.
  std::string description;
  // Whether an index answer bounded the candidates (not only constants of the filter).
  bool index_used = false;
};

struct FilterPlan {
  std::vector<FragmentFilterPlan> fragments;  // one per fragment, in manifest order
  std::vector<std::string> notes;             // explain lines not tied to fragments

  bool any_indexed() const;
};

// What the planned rows are for, which sets what an index answer may cost before a scan is
// cheaper (measured by bench/read, docs/benchmarks.md "Filtered reads against DuckDB"). The
// shares below are per thread: with T threads a scan is T times faster, an answer is not.
//  - kReadRows: their columns are read (a scan). A scan pays about 10 ns a row per thread for
//    every column, a read by row address about 0.4 µs a scattered candidate and a few ns a
//    candidate in runs: an index is used up to 1/32 of a large segment's rows (1/4 for
//    clustered answers, Capability::clustered);
//  - kFindRows: only the rows are wanted (a count, a delete, a prefilter's allow-list). A scan
//    then evaluates the filter's columns alone, about 1 ns a row per thread, while a BTREE
//    answer costs about 60 ns a matching row and a zone's recheck about 13 ns a row: an index
//    is used up to 1/100 of the rows (1/16 for clustered answers).
enum class PlanPurpose { kReadRows, kFindRows };

// Plans `filter` (bound against snapshot.schema()) over every fragment of the snapshot.
// Errors: a segment that cannot be opened or answers with rows outside the fragments it covers
// (Corrupt, naming it and saying how to rebuild it); deletion vectors that cannot be read.
arrow::Result<FilterPlan> PlanFilter(const Snapshot& snapshot, const expr::Filter& filter,
                                     PlanPurpose purpose = PlanPurpose::kReadRows);

// Adds the plan's explain lines, each prefixed with `prefix`: its notes, then one line per group
// of fragments sharing a description, with the row count of index-answered groups.
void ExplainFilterPlan(const FilterPlan& plan, std::string_view prefix, Explain* explain);

}  // namespace tessera::query
