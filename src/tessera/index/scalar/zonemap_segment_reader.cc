#include "tessera/index/scalar/zonemap_segment_reader.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "tessera/index/scalar/query_keys.h"

namespace tessera::index::scalar {

class ZoneMapSegmentReader::Searcher {
 public:
  virtual ~Searcher() = default;
  virtual arrow::Result<std::vector<const Zone*>> Matching(const ScalarQuery& query) const = 0;
};

namespace {

constexpr int kNansColumn = kZoneCommonColumns;
constexpr int kMinColumn = kZoneCommonColumns + 1;
constexpr int kMaxColumn = kZoneCommonColumns + 2;

template <typename Key>
class TypedZoneSearcher final : public ZoneMapSegmentReader::Searcher {
 public:
  TypedZoneSearcher(const ZoneMapSegmentReader& reader, std::vector<bool> has_values,
                    std::vector<Key> mins, std::vector<Key> maxs)
      : reader_(reader),
        has_values_(std::move(has_values)),
        mins_(std::move(mins)),
        maxs_(std::move(maxs)) {}

  arrow::Result<std::vector<const Zone*>> Matching(const ScalarQuery& query) const override {
    const std::vector<Zone>& zones = reader_.zone_file().zones;
    std::vector<const Zone*> matching;
    switch (query.kind) {
      case ScalarQuery::Kind::kIsNull:
        return ZonesWithNulls(zones);
      case ScalarQuery::Kind::kIsNotNull:
        return ZonesWithNonNulls(zones);
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn: {
        ARROW_ASSIGN_OR_RAISE(auto keys, QueryKeysOf<Key>(kZoneMapFamilyName, reader_.meta(),
                                                          *reader_.storage_type(), query));
        if (keys.empty()) return matching;
        for (size_t i = 0; i < zones.size(); ++i) {
          if (!has_values_[i]) continue;
          // The smallest key not below the zone's minimum, if any, must not pass its maximum.
          const auto first = std::lower_bound(keys.begin(), keys.end(), mins_[i]);
          if (first != keys.end() && !(maxs_[i] < *first)) matching.push_back(&zones[i]);
        }
        return matching;
      }
      case ScalarQuery::Kind::kRange:
        return MatchingRange(query);
    }
    return InvalidArgument("unknown scalar query kind ", static_cast<int>(query.kind));
  }

 private:
  arrow::Result<std::vector<const Zone*>> MatchingRange(const ScalarQuery& query) const {
    const std::vector<Zone>& zones = reader_.zone_file().zones;
    std::vector<const Zone*> matching;
    // A comparison with null is unknown and with NaN false: no row qualifies.
    ARROW_ASSIGN_OR_RAISE(auto range, QueryRangeOf<Key>(kZoneMapFamilyName, reader_.meta(),
                                                        *reader_.storage_type(), query));
    if (!range.has_value() || IsEmptyRange(*range)) return matching;
    const auto& lower = range->lower;
    const auto& upper = range->upper;
    for (size_t i = 0; i < zones.size(); ++i) {
      if (!has_values_[i]) continue;
      if (lower && (lower->inclusive ? maxs_[i] < lower->key : !(lower->key < maxs_[i]))) {
        continue;
      }
      if (upper && (upper->inclusive ? upper->key < mins_[i] : !(mins_[i] < upper->key))) {
        continue;
      }
      matching.push_back(&zones[i]);
    }
    return matching;
  }

  const ZoneMapSegmentReader& reader_;
  std::vector<bool> has_values_;
  std::vector<Key> mins_;  // binary keys view into the zone file's batches
  std::vector<Key> maxs_;
};

// Reads the family's columns of every zone, checking them against the zone's counts.
template <typename Key>
arrow::Result<std::unique_ptr<ZoneMapSegmentReader::Searcher>> MakeZoneSearcher(
    const ZoneMapSegmentReader& reader) {
  const ZoneFile& file = reader.zone_file();
  const size_t count = file.zones.size();
  std::vector<bool> has_values(count, false);
  std::vector<Key> mins(count);
  std::vector<Key> maxs(count);
  std::vector<bool> has_max(count, false);
  for (size_t b = 0; b < file.batches.size(); ++b) {
    const auto& batch = *file.batches[b];
    const size_t start = file.batch_starts[b];
    if (batch.column(kNansColumn)->null_count() != 0) {
      return file.Corrupted(Concat("holds a null NaN count in batch ", b));
    }
    const uint32_t* nans =
        static_cast<const arrow::UInt32Array&>(*batch.column(kNansColumn)).raw_values();
    ARROW_RETURN_NOT_OK(ForEachKey<Key>(
        *batch.column(kMinColumn),
        [&](int64_t row, const Key& key) {
          has_values[start + static_cast<size_t>(row)] = true;
          mins[start + static_cast<size_t>(row)] = key;
        },
        [](int64_t) {}));
    ARROW_RETURN_NOT_OK(ForEachKey<Key>(
        *batch.column(kMaxColumn),
        [&](int64_t row, const Key& key) {
          has_max[start + static_cast<size_t>(row)] = true;
          maxs[start + static_cast<size_t>(row)] = key;
        },
        [](int64_t) {}));
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      const size_t i = start + static_cast<size_t>(row);
      const Zone& zone = file.zones[i];
      const uint64_t empty = uint64_t{zone.nulls} + nans[row];
      bool consistent =
          empty <= zone.rows && has_values[i] == has_max[i] && has_values[i] == (empty < zone.rows);
      if constexpr (!kIsFloatKey<Key>) consistent = consistent && nans[row] == 0;
      if (consistent && has_values[i]) {
        consistent = !IsNanKey(mins[i]) && !IsNanKey(maxs[i]) && !(maxs[i] < mins[i]);
      }
      if (!consistent) {
        return file.Corrupted(Concat("zone ", i, " (fragment ", zone.fragment, ", rows ",
                                     zone.first, "..", uint64_t{zone.first} + zone.rows,
                                     ") has an inconsistent minimum, maximum or NaN count"));
      }
    }
  }
  return std::make_unique<TypedZoneSearcher<Key>>(reader, std::move(has_values), std::move(mins),
                                                  std::move(maxs));
}

}  // namespace

arrow::FieldVector ZoneMapFields(const std::shared_ptr<arrow::DataType>& storage) {
  return {arrow::field("nans", arrow::uint32(), /*nullable=*/false), arrow::field("min", storage),
          arrow::field("max", storage)};
}

ZoneMapSegmentReader::~ZoneMapSegmentReader() = default;

arrow::Result<std::unique_ptr<ZoneMapSegmentReader>> ZoneMapSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  std::unique_ptr<ZoneMapSegmentReader> reader(new ZoneMapSegmentReader());
  reader->meta_ = segment;
  ARROW_ASSIGN_OR_RAISE(reader->zones_, ReadZoneFile(segment, directory, kZoneMapFamilyName));
  const ZoneFile& file = reader->zones_;
  const auto& schema = *file.schema;
  std::optional<KeyDomain> domain;
  if (schema.num_fields() == kZoneCommonColumns + 3) {
    reader->storage_ = schema.field(kMinColumn)->type();
    // A storage type is a column type ZONEMAP keeps as is (not float16, which it widens).
    auto accepted = ZoneMapStorageType("", reader->storage_);
    auto found = DomainOf(*reader->storage_);
    const arrow::Schema expected(ZoneMapFields(reader->storage_));
    bool matches = found.ok() && accepted.ok() && (*accepted)->Equals(*reader->storage_);
    for (int i = 0; matches && i < expected.num_fields(); ++i) {
      matches = schema.field(kZoneCommonColumns + i)->Equals(*expected.field(i));
    }
    if (matches) domain = *found;
  }
  if (!domain) return file.Corrupted("has an unexpected schema " + schema.ToString());
  ARROW_ASSIGN_OR_RAISE(reader->searcher_, DispatchKeyDomain(*domain, [&](auto key) {
                          return MakeZoneSearcher<decltype(key)>(*reader);
                        }));
  return reader;
}

arrow::Result<std::vector<const Zone*>> ZoneMapSegmentReader::MatchingZones(
    const ScalarQuery& query) const {
  return searcher_->Matching(query);
}

Capability ZoneMapSegmentReader::Assess(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) return {};
  return ZonesCapability(MatchingZones(*query));
}

arrow::Result<RowAddressSet> ZoneMapSegmentReader::Answer(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) {
    return InvalidArgument("ZONEMAP segment ", meta_.uuid(), " of index '", meta_.index_name(),
                           "' cannot answer ", leaf.ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto zones, MatchingZones(*query));
  return ZonesAnswer(zones);
}

}  // namespace tessera::index::scalar
