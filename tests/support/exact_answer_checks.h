// The check every exact scalar family (BITMAP, LABEL_LIST) makes of its segments: each leaf a
// segment accepts is kExact, answered without error, flagged exact, and equal to the scan's
// TRUE rows over the segment's fragments. Family-specific checks of an answered leaf (costs,
// derived FALSE rows) go in a callback.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/scalar_family_testing.h"
#include "tessera/expr/ast.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::testing {

// Called for every leaf answered (and equal to the scan) with the leaf's text, its bound node,
// what Assess said and the answer.
using AnsweredLeafCheck =
    std::function<void(const std::string& text, const expr::Node& leaf,
                       const index::Capability& capability, const index::RowAddressSet& answer)>;

// Parses each of `leaves` (filters over `v`) against `data`; skips those `reader` assesses as
// kNone (folded by the binder); expects the rest exact and equal to the scan restricted to
// `segment`'s fragments, then runs `also`. Returns how many leaves were answered.
int ExpectExactAnswersEqualScan(const index::ScalarSegmentReader& reader, const ColumnDataset& data,
                                const format::SegmentMeta& segment,
                                const std::vector<std::string>& leaves,
                                const AnsweredLeafCheck& also = nullptr);

}  // namespace tessera::testing
