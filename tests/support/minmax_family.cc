#include "support/minmax_family.h"

#include <arrow/api.h>
#include <arrow/compute/cast.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/index/index_family.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"

namespace tessera::testing {

namespace {

using index::Capability;
using index::Coverage;
using index::RowAddressSet;
using index::ScalarBound;
using index::ScalarQuery;

constexpr char kMagic[4] = {'T', 'Z', 'M', 'M'};
constexpr uint32_t kFormat = 1;
constexpr int64_t kMaxPageRows = int64_t{1} << 20;
constexpr std::string_view kPageRowsParam = "page_rows";
constexpr std::string_view kDomainDetail = "domain";
constexpr std::string_view kZonesDetail = "num_zones";

// How values are held: every supported column type widens exactly into one of these.
enum class Domain : uint32_t { kInt64 = 0, kDouble = 1 };

struct Zone {
  uint32_t fragment = 0;
  uint32_t first = 0;  // offset of the zone's first row in its fragment
  uint32_t rows = 0;
  uint32_t nulls = 0;
  uint32_t nans = 0;
  uint32_t has_values = 0;  // 1 when some row is neither null nor NaN: min and max are set
  // The minimum and maximum as int64 or double (per the segment's domain), bit-copied.
  uint64_t min = 0;
  uint64_t max = 0;
};
constexpr size_t kHeaderBytes = 4 + 4 + 4 + 4 + 8;
constexpr size_t kZoneBytes = 6 * 4 + 8 + 8;

template <typename T>
T Bits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
template <typename T>
uint64_t ToBits(T value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

arrow::Result<Domain> DomainOf(const arrow::Field& column) {
  switch (column.type()->id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
      return Domain::kInt64;
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
      return Domain::kDouble;
    default:
      return Unsupported("a MINMAX index cannot be built on column '", column.name(), "' of type ",
                         column.type()->ToString(),
                         "; it supports integers up to 32 bits, int64, float32 and float64");
  }
}

// A literal of the column's type as a value of the segment's domain; nullopt for anything
// else (the leaf is then not answered).
template <typename T>
std::optional<T> ValueOf(const std::shared_ptr<arrow::Scalar>& scalar) {
  if (scalar == nullptr || !scalar->is_valid) return std::nullopt;
  auto cast = [&](auto value) -> std::optional<T> { return static_cast<T>(value); };
  switch (scalar->type->id()) {
    case arrow::Type::INT8:
      return cast(static_cast<const arrow::Int8Scalar&>(*scalar).value);
    case arrow::Type::INT16:
      return cast(static_cast<const arrow::Int16Scalar&>(*scalar).value);
    case arrow::Type::INT32:
      return cast(static_cast<const arrow::Int32Scalar&>(*scalar).value);
    case arrow::Type::INT64:
      return cast(static_cast<const arrow::Int64Scalar&>(*scalar).value);
    case arrow::Type::UINT8:
      return cast(static_cast<const arrow::UInt8Scalar&>(*scalar).value);
    case arrow::Type::UINT16:
      return cast(static_cast<const arrow::UInt16Scalar&>(*scalar).value);
    case arrow::Type::UINT32:
      return cast(static_cast<const arrow::UInt32Scalar&>(*scalar).value);
    case arrow::Type::FLOAT:
      if constexpr (std::is_floating_point_v<T>) {
        return cast(static_cast<const arrow::FloatScalar&>(*scalar).value);
      }
      return std::nullopt;
    case arrow::Type::DOUBLE:
      if constexpr (std::is_floating_point_v<T>) {
        return cast(static_cast<const arrow::DoubleScalar&>(*scalar).value);
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Which zones may hold a row where a value predicate is TRUE, in the domain T.
template <typename T>
class ZoneTest {
 public:
  // Nullopt when the query's values are not of the domain.
  static std::optional<ZoneTest> Of(const ScalarQuery& query) {
    ZoneTest test;
    test.kind_ = query.kind;
    switch (query.kind) {
      case ScalarQuery::Kind::kIsNull:
        return test;
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
        for (const auto& scalar : query.values) {
          auto value = ValueOf<T>(scalar);
          if (!value) return std::nullopt;
          test.values_.push_back(*value);
        }
        return test;
      case ScalarQuery::Kind::kRange:
        if (!Bound(query.lower, &test.lower_) || !Bound(query.upper, &test.upper_)) {
          return std::nullopt;
        }
        return test;
      case ScalarQuery::Kind::kIsNotNull:
        break;
    }
    return std::nullopt;
  }

  bool MayMatch(const Zone& zone) const {
    const T min = Bits<T>(zone.min);
    const T max = Bits<T>(zone.max);
    switch (kind_) {
      case ScalarQuery::Kind::kIsNull:
        return zone.nulls > 0;
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
        for (const T value : values_) {
          if (IsNan(value)) {
            continue;  // `=` NaN, and so IN (NaN), matches nothing
          } else if (zone.has_values && min <= value && value <= max) {
            return true;
          }
        }
        return false;
      case ScalarQuery::Kind::kRange:
        if (!zone.has_values) return false;
        if (lower_ && (IsNan(lower_->first) ||
                       (lower_->second ? max < lower_->first : max <= lower_->first))) {
          return false;
        }
        if (upper_ && (IsNan(upper_->first) ||
                       (upper_->second ? min > upper_->first : min >= upper_->first))) {
          return false;
        }
        return true;
      case ScalarQuery::Kind::kIsNotNull:
        break;
    }
    return true;
  }

 private:
  static bool IsNan(T value) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::isnan(value);
    } else {
      return false;
    }
  }
  static bool Bound(const std::optional<ScalarBound>& bound,
                    std::optional<std::pair<T, bool>>* into) {
    if (!bound) return true;
    auto value = ValueOf<T>(bound->value);
    if (!value) return false;
    *into = std::make_pair(*value, bound->inclusive);
    return true;
  }

  ScalarQuery::Kind kind_ = ScalarQuery::Kind::kIsNull;
  std::vector<T> values_;
  std::optional<std::pair<T, bool>> lower_;  // value, inclusive
  std::optional<std::pair<T, bool>> upper_;
};

std::string Encode(Domain domain, uint32_t page_rows, const std::vector<Zone>& zones) {
  std::string bytes(kHeaderBytes + zones.size() * kZoneBytes, '\0');
  char* out = bytes.data();
  auto put = [&](const void* data, size_t size) {
    std::memcpy(out, data, size);
    out += size;
  };
  const uint32_t domain_code = static_cast<uint32_t>(domain);
  const uint64_t count = zones.size();
  put(kMagic, 4);
  put(&kFormat, 4);
  put(&domain_code, 4);
  put(&page_rows, 4);
  put(&count, 8);
  for (const Zone& zone : zones) {
    for (uint32_t field :
         {zone.fragment, zone.first, zone.rows, zone.nulls, zone.nans, zone.has_values}) {
      put(&field, 4);
    }
    put(&zone.min, 8);
    put(&zone.max, 8);
  }
  const uint32_t crc = io::Crc32c(bytes.data(), bytes.size());
  bytes.append(reinterpret_cast<const char*>(&crc), 4);
  return bytes;
}

struct Decoded {
  Domain domain = Domain::kInt64;
  uint32_t page_rows = 0;
  std::vector<Zone> zones;
};

// Checks everything a reader relies on; the message says what is wrong.
arrow::Result<Decoded> Decode(std::string_view bytes, const Roaring& fragments) {
  if (bytes.size() < kHeaderBytes + 4) return Corrupt("it holds ", bytes.size(), " bytes");
  uint32_t crc;
  std::memcpy(&crc, bytes.data() + bytes.size() - 4, 4);
  if (io::Crc32c(bytes.data(), bytes.size() - 4) != crc) return Corrupt("its checksum is wrong");
  const char* in = bytes.data();
  auto get = [&](void* data, size_t size) {
    std::memcpy(data, in, size);
    in += size;
  };
  char magic[4];
  uint32_t format, domain_code;
  uint64_t count;
  Decoded decoded;
  get(magic, 4);
  get(&format, 4);
  get(&domain_code, 4);
  get(&decoded.page_rows, 4);
  get(&count, 8);
  if (std::memcmp(magic, kMagic, 4) != 0 || format != kFormat) {
    return Corrupt("it is not a MINMAX zone file of format ", kFormat);
  }
  if (domain_code > 1) return Corrupt("its value domain ", domain_code, " is unknown");
  decoded.domain = static_cast<Domain>(domain_code);
  if (decoded.page_rows < 1 || decoded.page_rows > kMaxPageRows) {
    return Corrupt("its page size ", decoded.page_rows, " is out of range");
  }
  if (count > (bytes.size() - kHeaderBytes - 4) / kZoneBytes ||
      bytes.size() != kHeaderBytes + count * kZoneBytes + 4) {
    return Corrupt("it holds ", bytes.size(), " bytes for ", count, " zones");
  }
  decoded.zones.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    Zone& zone = decoded.zones[i];
    for (uint32_t* field :
         {&zone.fragment, &zone.first, &zone.rows, &zone.nulls, &zone.nans, &zone.has_values}) {
      get(field, 4);
    }
    get(&zone.min, 8);
    get(&zone.max, 8);
    const uint64_t end = uint64_t{zone.first} + zone.rows;
    bool ordered = true;
    if (i > 0) {
      const Zone& previous = decoded.zones[i - 1];
      ordered = previous.fragment < zone.fragment ||
                (previous.fragment == zone.fragment &&
                 uint64_t{previous.first} + previous.rows <= zone.first);
    }
    bool sane = zone.rows >= 1 && zone.rows <= decoded.page_rows && end <= (uint64_t{1} << 32) &&
                uint64_t{zone.nulls} + zone.nans <= zone.rows &&
                zone.has_values == (uint64_t{zone.nulls} + zone.nans < zone.rows ? 1u : 0u);
    if (sane && zone.has_values) {
      sane = decoded.domain == Domain::kInt64
                 ? Bits<int64_t>(zone.min) <= Bits<int64_t>(zone.max)
                 : Bits<double>(zone.min) <= Bits<double>(zone.max);  // false for NaN
    }
    if (!ordered || !sane || !fragments.contains(zone.fragment)) {
      return Corrupt("zone ", i, " (fragment ", zone.fragment, ", rows ", zone.first, "..", end,
                     ") is ",
                     !fragments.contains(zone.fragment) ? "in a fragment the segment does not cover"
                     : !ordered                         ? "out of order"
                                                        : "inconsistent");
    }
  }
  return decoded;
}

arrow::Status SegmentError(const arrow::Status& status, const format::SegmentMeta& segment) {
  return index::SegmentFileError(status, segment, kMinMaxFile);
}

class MinMaxReader final : public index::ScalarSegmentReader {
 public:
  MinMaxReader(format::SegmentMeta meta, Decoded decoded)
      : meta_(std::move(meta)), decoded_(std::move(decoded)) {}

  const format::SegmentMeta& meta() const override { return meta_; }
  Domain domain() const { return decoded_.domain; }
  uint32_t page_rows() const { return decoded_.page_rows; }
  const std::vector<Zone>& zones() const { return decoded_.zones; }

  Capability Assess(const expr::Node& leaf) const override {
    auto zones = MatchingZones(leaf);
    if (!zones) return {};
    double rows = 0;
    for (const Zone* zone : *zones) rows += zone->rows;
    return {Coverage::kSuperset, rows};
  }

  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override {
    auto zones = MatchingZones(leaf);
    if (!zones) {
      return InvalidArgument("MINMAX segment ", meta_.uuid(), " of index '", meta_.index_name(),
                             "' cannot answer ", leaf.ToString());
    }
    RowAddressSet answer;
    answer.exact = false;
    for (const Zone* zone : *zones) {
      for (uint32_t offset = 0; offset < zone->rows; ++offset) {
        answer.rows.push_back(dataset::MakeRowAddress(zone->fragment, zone->first + offset));
      }
    }
    return answer;  // zones are ascending and disjoint, so are the addresses
  }

 private:
  std::optional<std::vector<const Zone*>> MatchingZones(const expr::Node& leaf) const {
    const auto query = index::ScalarQueryOf(leaf);
    if (!query) return std::nullopt;
    return decoded_.domain == Domain::kInt64 ? Matching<int64_t>(*query) : Matching<double>(*query);
  }

  template <typename T>
  std::optional<std::vector<const Zone*>> Matching(const ScalarQuery& query) const {
    const auto test = ZoneTest<T>::Of(query);
    if (!test) return std::nullopt;
    std::vector<const Zone*> zones;
    for (const Zone& zone : decoded_.zones) {
      if (test->MayMatch(zone)) zones.push_back(&zone);
    }
    return zones;
  }

  format::SegmentMeta meta_;
  Decoded decoded_;
};

arrow::Result<std::unique_ptr<MinMaxReader>> OpenReader(const format::SegmentMeta& segment,
                                                        const index::SegmentDirectory& dir) {
  if (segment.family() != kMinMaxFamilyName) {
    return InvalidArgument("segment ", segment.uuid(), " of family ", segment.family(),
                           " is not a MINMAX segment");
  }
  ARROW_ASSIGN_OR_RAISE(Roaring fragments, index::DecodeFragmentBitmap(segment));
  auto bytes = dir.storage->ReadFile(dir.path + "/" + std::string(kMinMaxFile));
  if (!bytes.ok()) return SegmentError(bytes.status(), segment);
  auto decoded = Decode(std::string_view(reinterpret_cast<const char*>((*bytes)->data()),
                                         static_cast<size_t>((*bytes)->size())),
                        fragments);
  if (!decoded.ok()) return SegmentError(decoded.status(), segment);
  return std::make_unique<MinMaxReader>(segment, std::move(*decoded));
}

// Appends the zones of one fragment's column (cast to the domain) to `zones`.
template <typename ArrowType>
arrow::Status AddZones(const arrow::Array& column, uint32_t fragment, uint64_t first_offset,
                       uint32_t page_rows, std::vector<Zone>* zones) {
  using T = typename ArrowType::c_type;
  const auto& values = static_cast<const arrow::NumericArray<ArrowType>&>(column);
  for (int64_t i = 0; i < values.length(); ++i) {
    const uint64_t offset = first_offset + static_cast<uint64_t>(i);
    if (zones->empty() || zones->back().fragment != fragment || zones->back().rows == page_rows) {
      Zone zone;
      zone.fragment = fragment;
      zone.first = static_cast<uint32_t>(offset);
      zones->push_back(zone);
    }
    Zone& zone = zones->back();
    ++zone.rows;
    if (values.IsNull(i)) {
      ++zone.nulls;
      continue;
    }
    const T value = values.Value(i);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(value)) {
        ++zone.nans;
        continue;
      }
    }
    if (!zone.has_values) {
      zone.has_values = 1;
      zone.min = zone.max = ToBits(value);
    } else {
      zone.min = ToBits(std::min(Bits<T>(zone.min), value));
      zone.max = ToBits(std::max(Bits<T>(zone.max), value));
    }
  }
  return arrow::Status::OK();
}

void SetDetails(Domain domain, uint32_t page_rows, const std::vector<Zone>& zones,
                format::SegmentMeta* meta) {
  uint64_t rows = 0;
  for (const Zone& zone : zones) rows += zone.rows;
  auto& details = *meta->mutable_details();
  details[std::string(kPageRowsParam)] = std::to_string(page_rows);
  details[std::string(kDomainDetail)] = domain == Domain::kInt64 ? "int64" : "double";
  details[std::string(kZonesDetail)] = std::to_string(zones.size());
  meta->set_num_rows(rows);
}

class MinMaxFamily final : public index::IndexFamily {
 public:
  std::string_view name() const override { return kMinMaxFamilyName; }

  arrow::Result<index::Params> Validate(const arrow::Field& column,
                                        const index::Params& params) const override {
    ARROW_RETURN_NOT_OK(DomainOf(column).status());
    ARROW_RETURN_NOT_OK(index::RejectUnknownParams(params, kMinMaxFamilyName, {kPageRowsParam}));
    ARROW_ASSIGN_OR_RAISE(int64_t page_rows,
                          index::IntegerParam(params, kMinMaxFamilyName, kPageRowsParam,
                                              kMinMaxDefaultPageRows, 1, kMaxPageRows));
    return index::Params{{std::string(kPageRowsParam), std::to_string(page_rows)}};
  }

  arrow::Result<format::SegmentMeta> Build(const index::BuildInput& input, const index::Model*,
                                           const index::SegmentDirectory& out) const override {
    if (input.storage == nullptr || input.schema == nullptr || input.column_index < 0 ||
        input.column_index >= input.schema->num_fields()) {
      return InvalidArgument("a MINMAX build of index '", input.index_name,
                             "' needs a storage, a schema and a column of that schema");
    }
    const auto& field = input.schema->field(input.column_index);
    ARROW_ASSIGN_OR_RAISE(index::Params params, Validate(*field, input.params));
    ARROW_ASSIGN_OR_RAISE(Domain domain, DomainOf(*field));
    const uint32_t page_rows = static_cast<uint32_t>(std::stoll(params.begin()->second));
    const auto target = domain == Domain::kInt64 ? arrow::int64() : arrow::float64();
    std::vector<format::Fragment> fragments = input.fragments;
    std::sort(fragments.begin(), fragments.end(),
              [](const auto& a, const auto& b) { return a.id() < b.id(); });
    std::vector<Zone> zones;
    for (const auto& fragment : fragments) {
      ARROW_ASSIGN_OR_RAISE(auto reader,
                            dataset::FragmentReader::Open(*input.storage, fragment, input.schema,
                                                          {input.column_index}));
      uint64_t offset = 0;
      for (int batch_index = 0; batch_index < reader->num_batches(); ++batch_index) {
        ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(batch_index));
        ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*batch->column(0), target));
        ARROW_RETURN_NOT_OK(
            domain == Domain::kInt64
                ? AddZones<arrow::Int64Type>(*cast, fragment.id(), offset, page_rows, &zones)
                : AddZones<arrow::DoubleType>(*cast, fragment.id(), offset, page_rows, &zones));
        offset += static_cast<uint64_t>(batch->num_rows());
      }
      if (offset != fragment.physical_rows()) {
        return Corrupt("fragment ", fragment.id(), " of dataset ", input.storage->root(), " holds ",
                       offset, " rows; the manifest says ", fragment.physical_rows());
      }
    }
    return Finish(input, domain, page_rows, zones, out);
  }

  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<index::SegmentDirectory>& dirs,
                                           const index::SegmentDirectory& out) const override {
    if (inputs.empty() || inputs.size() != dirs.size()) {
      return InvalidArgument("a MINMAX merge needs one directory per segment; got ", inputs.size(),
                             " segments and ", dirs.size(), " directories");
    }
    std::vector<Zone> zones;
    std::optional<Domain> domain;
    uint32_t page_rows = 0;
    Roaring covered;
    index::BuildInput merged;
    merged.storage = out.storage;
    merged.field_id = inputs.front().field_id();
    merged.index_name = inputs.front().index_name();
    for (size_t i = 0; i < inputs.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto reader, OpenReader(inputs[i], dirs[i]));
      if (domain && *domain != reader->domain()) {
        return InvalidArgument("cannot merge MINMAX segments of different value domains (",
                               inputs.front().uuid(), ", ", inputs[i].uuid(), ")");
      }
      domain = reader->domain();
      page_rows = std::max(page_rows, reader->page_rows());
      ARROW_ASSIGN_OR_RAISE(Roaring fragments, index::DecodeFragmentBitmap(inputs[i]));
      if (!(covered & fragments).isEmpty()) {
        return InvalidArgument("cannot merge MINMAX segments that cover the same fragments (",
                               inputs[i].uuid(), ")");
      }
      covered |= fragments;
      zones.insert(zones.end(), reader->zones().begin(), reader->zones().end());
      merged.dataset_version = std::max(merged.dataset_version, inputs[i].dataset_version());
    }
    std::sort(zones.begin(), zones.end(), [](const Zone& a, const Zone& b) {
      return a.fragment != b.fragment ? a.fragment < b.fragment : a.first < b.first;
    });
    for (uint32_t id : covered) merged.fragments.emplace_back().set_id(id);
    return Finish(merged, *domain, page_rows, zones, out);
  }

  arrow::Result<std::unique_ptr<index::SegmentReader>> Open(
      const format::SegmentMeta& segment, const index::SegmentDirectory& dir) const override {
    ARROW_ASSIGN_OR_RAISE(auto reader, OpenReader(segment, dir));
    return std::unique_ptr<index::SegmentReader>(std::move(reader));
  }

  std::vector<std::string> RequiredFiles(const format::SegmentMeta&) const override {
    return {std::string(kMinMaxFile)};
  }

 private:
  static arrow::Result<format::SegmentMeta> Finish(const index::BuildInput& input, Domain domain,
                                                   uint32_t page_rows,
                                                   const std::vector<Zone>& zones,
                                                   const index::SegmentDirectory& out) {
    ARROW_RETURN_NOT_OK(out.storage->WriteFile(out.path + "/" + std::string(kMinMaxFile),
                                               Encode(domain, page_rows, zones)));
    format::SegmentMeta meta;
    SetDetails(domain, page_rows, zones, &meta);
    ARROW_RETURN_NOT_OK(index::FillCommonMeta(input, kMinMaxFamilyName, out, &meta));
    return meta;
  }
};

}  // namespace

arrow::Status RegisterMinMaxFamily() {
  static const arrow::Status registered = index::RegisterFamily(std::make_unique<MinMaxFamily>());
  return registered;
}

}  // namespace tessera::testing
