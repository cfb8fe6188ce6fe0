// Counting a filter of one indexed predicate from the index's segments alone: no data file, no
// list of row addresses.
//
// A count of `price < 10` answered the usual way (filter_plan.h) has the index list every
// matching row address, sorts them and builds a bitmap per fragment, then counts it: at 1 %
// of 5M rows that costs more than evaluating the filter, so the planner scanned instead. A
// segment that can count its exact answer (ScalarSegmentReader::Count: BTREE from its pages'
// sizes, BITMAP from its posting counts) answers in microseconds instead. The segments' counts
// add up to the filter's count when:
//  - the filter is a single leaf on one column (no AND / OR / NOT to combine answers);
//  - one index's segments answer it exactly and cover every fragment of the version between
//    them, each fragment once;
//  - every fragment they cover is still in the version, and none has deleted rows (a segment
//    counts the rows it indexed, deleted ones included);
//  - each segment indexed as many rows as its fragments hold (its counts cannot be checked
//    against row addresses the way the planner checks answers; a segment that disagrees with
//    the manifest is left to the planner, which reports it).
// Otherwise the count is planned as usual; explain says which way was taken. A segment whose
// files are damaged fails the count (Corrupt, naming it), even where the planner would have
// scanned for cost reasons: damage is reported, never routed around.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <optional>

#include "tessera/expr/filter.h"
#include "tessera/query/explain.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

// The number of live rows where `filter` is TRUE, from the segments' counts; nullopt when the
// conditions above do not hold. Errors: a segment that cannot be opened or read, or counts more
// rows than it indexed (Corrupt).
arrow::Result<std::optional<uint64_t>> CountFromSegments(const Snapshot& snapshot,
                                                         const expr::Filter& filter,
                                                         Explain* explain);

}  // namespace tessera::query
