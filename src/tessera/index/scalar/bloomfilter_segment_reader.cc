#include "tessera/index/scalar/bloomfilter_segment_reader.h"

#include <arrow/type_traits.h>

#include <exception>
#include <optional>

#include "tessera/index/scalar/bloomfilter_hash.h"

namespace tessera::index::scalar {

namespace {

constexpr int kFilterColumn = kZoneCommonColumns;

std::optional<KeyDomain> KeyDomainNamed(const std::string& name) {
  for (KeyDomain domain : {KeyDomain::kSigned, KeyDomain::kUnsigned, KeyDomain::kBinary}) {
    if (KeyDomainName(domain) == name) return domain;
  }
  return std::nullopt;
}

}  // namespace

arrow::FieldVector BloomFilterFields() {
  return {arrow::field("bloom_filter", arrow::large_binary())};
}

std::string_view KeyDomainName(KeyDomain domain) {
  switch (domain) {
    case KeyDomain::kSigned:
      return "signed";
    case KeyDomain::kUnsigned:
      return "unsigned";
    case KeyDomain::kFloat:
      return "float";
    case KeyDomain::kBinary:
      break;
  }
  return "binary";
}

BloomFilterSegmentReader::~BloomFilterSegmentReader() = default;

arrow::Result<std::unique_ptr<BloomFilterSegmentReader>> BloomFilterSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  std::unique_ptr<BloomFilterSegmentReader> reader(new BloomFilterSegmentReader());
  reader->meta_ = segment;
  ARROW_ASSIGN_OR_RAISE(reader->zones_, ReadZoneFile(segment, directory, kBloomFilterFamilyName));
  const ZoneFile& file = reader->zones_;
  const auto& schema = *file.schema;
  const auto domain = KeyDomainNamed(file.Metadata(std::string(kBloomKeyDomainKey)));
  reader->value_type_ = file.Metadata(std::string(kBloomValueTypeKey));
  if (schema.num_fields() != kZoneCommonColumns + 1 ||
      !schema.field(kFilterColumn)->Equals(*BloomFilterFields()[0]) || !domain ||
      reader->value_type_.empty()) {
    return file.Corrupted("has an unexpected schema " + schema.ToString(/*show_metadata=*/true));
  }
  reader->domain_ = *domain;
  reader->filters_.resize(file.zones.size());
  ARROW_RETURN_NOT_OK(ForEachZoneRow(
      file, [&](size_t index, const arrow::RecordBatch& batch, int64_t row) -> arrow::Status {
        const Zone& zone = file.zones[index];
        const auto& filters =
            static_cast<const arrow::LargeBinaryArray&>(*batch.column(kFilterColumn));
        const bool has_values = zone.nulls < zone.rows;
        const auto where = [&] {
          return Concat("zone ", index, " (fragment ", zone.fragment, ", rows ", zone.first, "..",
                        uint64_t{zone.first} + zone.rows, ")");
        };
        if (filters.IsNull(row)) {
          if (has_values) return file.Corrupted(where() + " holds values but has no bloom filter");
          return arrow::Status::OK();
        }
        const std::string_view bytes = filters.GetView(row);
        const uint64_t size = bytes.size();
        if (!has_values || size < parquet::BlockSplitBloomFilter::kMinimumBloomFilterBytes ||
            size > parquet::BloomFilter::kMaximumBloomFilterBytes || (size & (size - 1)) != 0) {
          return file.Corrupted(Concat(where(), " has a bloom filter of ", size, " bytes",
                                       has_values ? "" : " but no value"));
        }
        auto filter = std::make_unique<parquet::BlockSplitBloomFilter>();
        try {
          filter->Init(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<uint32_t>(size));
        } catch (const std::exception& error) {
          return file.Corrupted(where() +
                                " has a bloom filter that cannot be loaded: " + error.what());
        }
        reader->filters_[index] = std::move(filter);
        return arrow::Status::OK();
      }));
  return reader;
}

arrow::Result<uint64_t> BloomFilterSegmentReader::HashOf(const arrow::Scalar& value) const {
  const bool matches = arrow::is_base_binary_like(value.type->id())
                           ? domain_ == KeyDomain::kBinary
                           : value.type->ToString() == value_type_;
  if (!matches) {
    return InvalidArgument("BLOOMFILTER index '", meta_.index_name(), "' (segment ", meta_.uuid(),
                           ") holds values of type ", value_type_,
                           " and cannot look up a query value of type ", value.type->ToString(),
                           "; cast the value to the column's type");
  }
  return HashOfScalar(domain_, value);
}

arrow::Result<std::vector<const Zone*>> BloomFilterSegmentReader::MatchingZones(
    const ScalarQuery& query) const {
  const std::vector<Zone>& zones = zones_.zones;
  std::vector<const Zone*> matching;
  switch (query.kind) {
    case ScalarQuery::Kind::kIsNull:
      return ZonesWithNulls(zones);
    case ScalarQuery::Kind::kIsNotNull:
      return ZonesWithNonNulls(zones);
    case ScalarQuery::Kind::kEquals:
    case ScalarQuery::Kind::kIn: {
      std::vector<uint64_t> hashes;
      for (const auto& value : query.values) {
        if (value == nullptr) {
          return InvalidArgument("a query on BLOOMFILTER segment ", meta_.uuid(), " lacks a value");
        }
        if (!value->is_valid) continue;  // equal to nothing
        ARROW_ASSIGN_OR_RAISE(uint64_t hash, HashOf(*value));
        hashes.push_back(hash);
      }
      for (size_t i = 0; i < zones.size(); ++i) {
        const auto& filter = filters_[i];
        if (filter == nullptr) continue;
        for (uint64_t hash : hashes) {
          if (filter->FindHash(hash)) {
            matching.push_back(&zones[i]);
            break;
          }
        }
      }
      return matching;
    }
    case ScalarQuery::Kind::kRange:
      break;
  }
  return InvalidArgument("BLOOMFILTER segment ", meta_.uuid(), " of index '", meta_.index_name(),
                         "' answers equality, IN and IS NULL, not ranges");
}

Capability BloomFilterSegmentReader::Assess(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query || query->kind == ScalarQuery::Kind::kRange) return {};
  return ZonesCapability(MatchingZones(*query));
}

arrow::Result<RowAddressSet> BloomFilterSegmentReader::Answer(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query || query->kind == ScalarQuery::Kind::kRange) {
    return InvalidArgument("BLOOMFILTER segment ", meta_.uuid(), " of index '", meta_.index_name(),
                           "' cannot answer ", leaf.ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto zones, MatchingZones(*query));
  return ZonesAnswer(zones);
}

}  // namespace tessera::index::scalar
