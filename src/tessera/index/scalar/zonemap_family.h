// ZONEMAP: a superset scalar index keeping, per zone of `rows_per_zone` consecutive rows of a
// fragment (zones.h), the zone's minimum and maximum (NaN excluded), null count and NaN count.
// A predicate is answered with the rows of every zone whose summary says it may hold a row
// where the predicate is TRUE (Coverage::kSuperset, semantics in zonemap_segment_reader.h); the
// planner rechecks them. It narrows well on data sorted or clustered by the column (time series,
// ids) and costs almost nothing to build and keep: about 20 bytes plus two values per zone.
//
// Parameters: `rows_per_zone` (default 4096, in [1, 1048576]). 4096 keeps a one-zone answer at
// 1/16 of a 65536-row segment, the largest share at which the planner still prefers an index to
// the scan (query/filter_plan.cc), while the zone table stays under 1% of a column's size.
// Column types: signed and unsigned integers, float16 (summarized as float32), float32,
// float64, string, large_string, date32, timestamp; anything else is Unsupported (decimal128
// too: datasets cannot store it, see zonemap_values.h).
//
// Build reads the column of its fragments once, zone by zone, in memory O(one zone's values);
// Merge rewrites the inputs' zone tables into one (zones.h: MergeZoneFiles), reading no table.
#pragma once

#include <memory>

#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

inline constexpr int64_t kDefaultZoneMapRowsPerZone = 4096;

class ZoneMapFamily final : public IndexFamily {
 public:
  std::string_view name() const override;
  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override;
  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override;
  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override;
  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override;
  // zones.arrow and its checksums.
  std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const override;
  // Opens the segment and checks its value type and zone size against the index's definition.
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
};

std::unique_ptr<IndexFamily> MakeZoneMapFamily();

}  // namespace tessera::index::scalar
