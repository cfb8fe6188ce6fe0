// BloomFilterSegmentReader: answers equality and IN predicates (and IS NULL) from one
// BLOOMFILTER segment with the zones (zones.h) that may hold a row where the predicate is TRUE,
// a superset the planner rechecks.
//
// Each zone holding a non-null value has a Parquet split-block bloom filter
// (parquet::BlockSplitBloomFilter, XXH64 hashes) over its distinct non-null values; a zone of
// nulls only has none. A zone may match:
//  - kEquals, kIn: the filter of the zone may contain some non-null query value (false
//    positives at about the segment's false_positive_rate; never a false negative);
//  - kIsNull: the zone holds a null; kIsNotNull: the zone holds a row that is not null.
// Ranges are not answered (kNone). Values hash by key (btree_key.h): signed integers, dates and
// timestamps as their int64, unsigned integers as their uint64 bits, strings and binaries as
// their bytes, so values equal under the scan's `=` hash equally. Query values must be of the
// column's type (strings and binaries mix): Assess says kNone and Answer InvalidArgument
// otherwise.
//
// Opening reads every filter into memory (the zone file's size), so Assess and Answer read no
// file. Thread-safe: the reader never changes after Open.
#pragma once

#include <parquet/bloom_filter.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kBloomFilterFamilyName = "BLOOMFILTER";
// Zone file schema metadata: the column's type and how its values hash.
inline constexpr std::string_view kBloomValueTypeKey = "value_type";
inline constexpr std::string_view kBloomKeyDomainKey = "key_domain";

// The family's column of a zone file: the zone's filter bitset (null for a zone without a
// non-null value).
arrow::FieldVector BloomFilterFields();
// "signed", "unsigned", "binary".
std::string_view KeyDomainName(KeyDomain domain);

class BloomFilterSegmentReader final : public ScalarSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<BloomFilterSegmentReader>> Open(
      const format::SegmentMeta& segment, const SegmentDirectory& directory);
  ~BloomFilterSegmentReader() override;

  const format::SegmentMeta& meta() const override { return meta_; }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;

  // The zones that may hold a row where `query` (any kind but kRange) is TRUE, ascending.
  arrow::Result<std::vector<const Zone*>> MatchingZones(const ScalarQuery& query) const;

  const ZoneFile& zone_file() const { return zones_; }
  // The indexed column's type, as its ToString().
  const std::string& value_type() const { return value_type_; }

 private:
  BloomFilterSegmentReader() = default;
  // The hash of a non-null query value; InvalidArgument for a value of another type.
  arrow::Result<uint64_t> HashOf(const arrow::Scalar& value) const;

  format::SegmentMeta meta_;
  ZoneFile zones_;
  std::string value_type_;
  KeyDomain domain_ = KeyDomain::kSigned;
  std::vector<std::unique_ptr<parquet::BlockSplitBloomFilter>> filters_;  // null: no value
};

}  // namespace tessera::index::scalar
