// BLOOMFILTER: a superset scalar index keeping, per zone of `rows_per_zone` consecutive rows of a
// fragment (zones.h), the zone's null count and a Parquet split-block bloom filter over its
// distinct non-null values. `x = v` and `x IN (...)` are answered with the rows of every zone
// whose filter may contain a value (Coverage::kSuperset, semantics in
// bloomfilter_segment_reader.h), IS NULL with the zones holding a null; the planner rechecks.
// It suits high-cardinality columns looked up by value (ids, keys, names) that are not sorted,
// where a ZONEMAP's ranges overlap everywhere.
//
// Parameters: `rows_per_zone` (default 4096, in [1, 1048576]; see zonemap_family.h for the
// choice) and `false_positive_rate` (default 0.01, in [1e-06, 0.5]): each zone's filter is
// sized by parquet::BlockSplitBloomFilter::OptimalNumOfBytes for the zone's distinct values at
// that rate (a power of two from 32 bytes; about 10 bits a distinct value at 0.01).
// Column types: signed and unsigned integers, string, large_string, binary, large_binary,
// date32, timestamp; anything else is Unsupported.
//
// Build reads the column of its fragments once, zone by zone, holding one zone's value hashes
// (8 bytes a row) and the filters of one batch of zones; Merge copies the inputs' filters zone by
// zone into a new zone file (zones.h: MergeZoneFiles), reading no table.
#pragma once

#include <memory>

#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

inline constexpr int64_t kDefaultBloomRowsPerZone = 4096;
inline constexpr std::string_view kFalsePositiveRateParam = "false_positive_rate";
inline constexpr double kDefaultFalsePositiveRate = 0.01;
inline constexpr double kMinFalsePositiveRate = 1e-6;
inline constexpr double kMaxFalsePositiveRate = 0.5;

class BloomFilterFamily final : public IndexFamily {
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

std::unique_ptr<IndexFamily> MakeBloomFilterFamily();

}  // namespace tessera::index::scalar
