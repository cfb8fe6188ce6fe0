// Filter planning: which fragments of a snapshot scalar indexes (BTREE, ...) answer for a
// filter, and with which candidate rows (docs/design.md, "Query semantics").
//
// The planner reads the filter's typed AST and bounds, per fragment, the set of rows on which
// the filter can be TRUE, using the scalar segments that cover the fragment:
//  - leaves on an indexed column map to ScalarQuery searches: `=`, `<`, `<=`, `>`, `>=` with a
//    literal; BETWEEN; IN; IS NULL; a boolean column used as a predicate;
//  - every leaf also has a FALSE bound: its column's non-null rows minus its exact TRUE answer
//    (IS NULL: the non-null rows), because comparisons, BETWEEN and IN without NULL are unknown
//    exactly on null rows. NOT swaps TRUE and FALSE, so NOT, `!=`, NOT IN and NOT BETWEEN are
//    answered with Kleene logic, NaN and null rows included;
//  - AND intersects TRUE bounds and unions FALSE bounds, OR the converse; a subtree with a
//    leaf the index cannot answer (LIKE, array_has, column-vs-column, an unindexed column) is
//    unbounded, which an AND ignores and which makes an OR unbounded.
// Each bound is a superset of the rows where the node has that truth value; subtraction only
// ever removes an answer the reader marked exact. A fragment whose TRUE bound is not unbounded
// is answered from the index: its candidates are the bound minus the fragment's deletions, and
// the executor rechecks the full filter on them, so the result is always exactly what the
// unindexed scan returns. Other fragments are scanned.
//
// Each (segment, predicate) search runs once and serves every fragment the segment covers.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"

namespace tessera::query {

struct FragmentFilterPlan {
  int position = 0;  // in manifest().fragments()
  uint32_t fragment_id = 0;
  // Live offsets that may satisfy the filter (a superset of the rows it keeps, to recheck).
  // Absent when no index narrows this fragment: the executor scans it.
  std::optional<Roaring> candidates;
  // For explain: the indexes and predicates that answered, or why the fragment is scanned.
  std::string description;
  // Whether an index search bounded the candidates (not only constants of the filter).
  bool index_used = false;
};

struct FilterPlan {
  std::vector<FragmentFilterPlan> fragments;  // one per fragment, in manifest order
  std::vector<std::string> notes;             // explain lines not tied to fragments

  bool any_indexed() const;
};

// Plans `filter` (bound against dataset.schema()) over every fragment of `dataset`.
arrow::Result<FilterPlan> PlanFilter(const dataset::Dataset& dataset, const expr::Filter& filter);

// Adds the plan's explain lines, each prefixed with `prefix`: its notes, then one line per group
// of fragments sharing a description, with the candidate count of index-answered groups.
void ExplainFilterPlan(const FilterPlan& plan, std::string_view prefix, Explain* explain);

}  // namespace tessera::query
