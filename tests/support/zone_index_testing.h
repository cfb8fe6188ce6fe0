// Test support for the zone-based superset families (ZONEMAP, BLOOMFILTER): building and merging
// segments of a family directly and opening and asking their readers (throwing on failure),
// superset checks of zone answers, and
// the planner's reads and counts compared with the unindexed scan. Random data and predicates
// with their reference answers are in support/random_scalar_queries.h.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/checked.h"
#include "support/random_scalar_queries.h"
#include "support/scalar_family_testing.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar/zones.h"

namespace tessera::testing {

// BuildSegment and MergeSegments of scalar_family_testing.h that throw on failure.
BuiltSegment BuildSegmentOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                            const std::vector<format::Fragment>& fragments, index::Params params);
BuiltSegment MergeSegmentsOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                             const std::vector<BuiltSegment>& parts);

// Opens `segment` with `Reader::Open` (ZoneMapSegmentReader, BloomFilterSegmentReader); throws
// on failure.
template <typename Reader>
std::unique_ptr<Reader> OpenZoneReader(const BuiltSegment& segment) {
  return Check(Reader::Open(segment.meta, segment.directory));
}

// The rows of the zones `reader` selects for `query` (MatchingZones), ascending; throws on
// failure.
template <typename Reader>
std::vector<uint64_t> ZoneAnswerOf(const Reader& reader, const index::ScalarQuery& query) {
  return index::scalar::ZonesAnswer(Check(reader.MatchingZones(query))).Addresses();
}

// Reads and counts `filter` through the planner (query::Read, query::Count) and through the
// unindexed scan (Dataset::ScanToTable, CountRows): empty when they agree, else what differs.
// `explain` gets the planner's explain text of the count.
std::string PlannerDisagreement(const std::shared_ptr<dataset::Dataset>& dataset,
                                const std::string& filter, std::string* explain);

// Whether every row of `expected` is in `answer` (both ascending).
bool Includes(const std::vector<uint64_t>& answer, const std::vector<uint64_t>& expected);

}  // namespace tessera::testing
