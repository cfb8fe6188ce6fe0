// The reference answer of nearest-neighbour tests: every live row of a dataset passing a filter,
// scored with vector::Distance, in (distance, row address) order — computed by a plain scan,
// with no index involved.
#pragma once

#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"

namespace tessera::testing {

// Rows whose vector is null, has a null element or gives a NaN distance are left out.
std::vector<index::ScoredRow> BruteForceNearest(const dataset::Dataset& data,
                                                const std::string& column,
                                                const std::vector<float>& query,
                                                index::vector::Metric metric,
                                                const std::string& filter = "");

// |found ∩ first k of truth| / min(k, |truth|) by row address.
double RecallAt(size_t k, const std::vector<index::ScoredRow>& found,
                const std::vector<index::ScoredRow>& truth);

}  // namespace tessera::testing
