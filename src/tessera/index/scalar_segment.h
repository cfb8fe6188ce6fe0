// ScalarSegmentReader: a segment of a scalar family (BTREE, ...) answering leaf predicates of a
// filter on its column with row addresses, and saying beforehand how well and at what cost.
//
// The planner (query/filter_plan.h) never names a family. It hands every reader that covers a
// fragment each leaf of the filter's typed AST (expr/ast.h) on the reader's column and asks:
//  - Assess(leaf): can you answer where `leaf` is TRUE — exactly, as a superset that must be
//    rechecked, or not at all — and at what estimated cost? Cheap: no page is read.
//  - Answer(leaf): the row addresses where `leaf` is TRUE (a superset when Assess said so).
// A leaf is any predicate node other than And / Or / Not / Literal whose only column is the
// segment's: Compare(column, literal), InList, Between, IsNull, Like with a literal pattern,
// ArrayHas, a boolean Column, or a boolean Call of the column and literals (contains,
// starts_with, array_contains, ...: expr/functions.h names them). `x != v` reaches readers as `x =
// v` under a NOT, and IS NOT NULL as IS NULL under a NOT: the planner derives FALSE sets from TRUE
// sets (Kleene logic), so readers only answer TRUE.
//
// Answers follow the unindexed scan's semantics (Arrow compute) exactly: an exact answer is
// precisely the rows where the filter evaluator says TRUE for the leaf, NaN and -0.0 included
// (docs/filters.md). Answers ignore deletions (the planner applies them) and contain only rows
// of fragments the segment covers.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <optional>

#include "tessera/expr/ast.h"
#include "tessera/index/index_family.h"

namespace tessera::index {

// How a segment can answer a leaf predicate.
enum class Coverage {
  kNone,      // it cannot: the planner uses another index or scans
  kSuperset,  // a superset of the rows where the leaf is TRUE: the planner rechecks it
  kExact,     // exactly the rows where the leaf is TRUE
};

struct Capability {
  Coverage coverage = Coverage::kNone;
  // Estimated work of Answer(), in rows touched (for choosing among indexes on one column;
  // compared, never promised). For a superset, the rows it returns, which the planner rechecks.
  double cost = 0;
  // The rows answered come in runs of consecutive rows (whole zones: ZONEMAP, BLOOMFILTER), which
  // the executor reads as ranges, several times cheaper a row than scattered addresses: the
  // planner lets such answers cover a larger share of a segment (query/filter_plan.h).
  bool clustered = false;
};

// The column `leaf` reads when it is a single-column leaf as defined above, else null.
const expr::Column* LeafColumn(const expr::Node& leaf);

class ScalarSegmentReader : public SegmentReader {
 public:
  ScalarSegmentReader* AsScalar() override { return this; }
  // Never fails: a leaf the segment does not understand is kNone.
  virtual Capability Assess(const expr::Node& leaf) const = 0;
  // The rows where `leaf` is TRUE; `exact` says whether they are exactly those or a superset.
  // Only called for leaves Assess accepted. May be called from several threads at once.
  virtual arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const = 0;
  // How many rows an exact Answer(leaf) would hold, when the segment knows without listing
  // them (BTREE from its pages' sizes, BITMAP from its keys' posting counts); nullopt when it
  // does not. Deletions are ignored, as in Answer. Only called for leaves Assess answers
  // exactly. Lets a count of one indexed predicate skip the row addresses (query::Count).
  virtual arrow::Result<std::optional<uint64_t>> Count(const expr::Node& leaf) const {
    return std::nullopt;
  }
};

}  // namespace tessera::index
