// ZoneMapSegmentReader: answers ScalarQuery predicates (scalar_query.h) from one ZONEMAP segment
// with the zones (zones.h) that may hold a row where the predicate is TRUE, a superset the
// planner rechecks. Opening reads and validates the whole zone table (a few dozen bytes a zone),
// so Assess and Answer read no file: Assess's cost is the rows of the matching zones.
//
// A zone may match (semantics of the scan, docs/filters.md):
//  - kEquals, kIn: some query value v, neither null nor NaN, has min <= v <= max. NaN equals
//    nothing and -0.0 equals 0.0 (double comparisons), so a NaN value selects no zone and -0.0
//    selects the zones whose range holds 0.0.
//  - kRange: the zone has a value (not null, not NaN) and its [min, max] meets the bounds; a
//    null or NaN bound, or an empty interval, selects no zone.
//  - kIsNull: the zone holds a null; kIsNotNull: the zone holds a row that is not null.
// Values compare as BTREE keys (btree_key.h); strings bytewise (unsigned). Query values must
// have the column's type (timestamps: its unit; float16 values for float16 columns): Assess
// says kNone and Answer InvalidArgument otherwise.
//
// Thread-safe: the reader never changes after Open.
#pragma once

#include <memory>
#include <vector>

#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar/zonemap_values.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kZoneMapFamilyName = "ZONEMAP";

// The family's columns of a zone file: nans (uint32), min and max (the storage type; null for a
// zone with no value that is neither null nor NaN).
arrow::FieldVector ZoneMapFields(const std::shared_ptr<arrow::DataType>& storage);

class ZoneMapSegmentReader final : public ScalarSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<ZoneMapSegmentReader>> Open(
      const format::SegmentMeta& segment, const SegmentDirectory& directory);
  ~ZoneMapSegmentReader() override;

  const format::SegmentMeta& meta() const override { return meta_; }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;

  // The zones that may hold a row where `query` is TRUE, ascending.
  arrow::Result<std::vector<const Zone*>> MatchingZones(const ScalarQuery& query) const;

  const ZoneFile& zone_file() const { return zones_; }
  const std::shared_ptr<arrow::DataType>& storage_type() const { return storage_; }

  class Searcher;  // the typed matching over one key domain (zonemap_segment_reader.cc)

 private:
  ZoneMapSegmentReader() = default;

  format::SegmentMeta meta_;
  ZoneFile zones_;
  std::shared_ptr<arrow::DataType> storage_;
  std::unique_ptr<Searcher> searcher_;
};

}  // namespace tessera::index::scalar
