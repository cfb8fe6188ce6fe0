#include "tessera/index/scalar/bloomfilter_family.h"

#include <arrow/io/memory.h>
#include <parquet/bloom_filter.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <string>

#include "tessera/index/builtin_families.h"
#include "tessera/index/merge_inputs.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/bloomfilter_hash.h"
#include "tessera/index/scalar/bloomfilter_segment_reader.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

std::string_view BloomSupportedTypes() {
  return "int8, int16, int32, int64, uint8, uint16, uint32, uint64, string, large_string, binary, "
         "large_binary, date32, timestamp";
}

// The key domain a column's values hash in; Unsupported for a type BLOOMFILTER cannot index.
arrow::Result<KeyDomain> BloomDomainOf(const arrow::Field& column) {
  const auto domain = DomainOf(*column.type());
  if (domain.ok() && *domain != KeyDomain::kFloat && column.type()->id() != arrow::Type::BOOL) {
    return *domain;
  }
  return Unsupported("a BLOOMFILTER index cannot be built on column '", column.name(), "' of type ",
                     column.type()->ToString(), "; BLOOMFILTER indexes columns of type ",
                     BloomSupportedTypes());
}

struct BloomParams {
  int64_t rows_per_zone = kDefaultBloomRowsPerZone;
  double false_positive_rate = kDefaultFalsePositiveRate;
};

arrow::Result<BloomParams> BloomParamsOf(const Params& params) {
  BloomParams parsed;
  ARROW_ASSIGN_OR_RAISE(parsed.rows_per_zone,
                        IntegerParam(params, kBloomFilterFamilyName, kRowsPerZoneParam,
                                     kDefaultBloomRowsPerZone, kMinRowsPerZone, kMaxRowsPerZone));
  ARROW_ASSIGN_OR_RAISE(
      parsed.false_positive_rate,
      RealParam(params, kBloomFilterFamilyName, kFalsePositiveRateParam, kDefaultFalsePositiveRate,
                kMinFalsePositiveRate, kMaxFalsePositiveRate));
  return parsed;
}

// The shortest text that reads back as `value`: "0.01", "1e-06".
std::string RealText(double value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof(text), value);
  return error == std::errc() ? std::string(text, end) : std::to_string(value);
}

// The bitset of a split-block bloom filter holding `hashes` (distinct), sized for their count at
// `false_positive_rate`. Every hash is looked up again in the bitset as read back, so a filter
// that would drop a value is never written.
arrow::Result<std::string> FilterBitset(const std::vector<uint64_t>& hashes,
                                        double false_positive_rate) {
  try {
    parquet::BlockSplitBloomFilter filter;
    filter.Init(
        parquet::BlockSplitBloomFilter::OptimalNumOfBytes(hashes.size(), false_positive_rate));
    for (uint64_t hash : hashes) filter.InsertHash(hash);
    // The serialized filter is a Thrift header followed by the bitset.
    ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferOutputStream::Create());
    filter.WriteTo(sink.get());
    ARROW_ASSIGN_OR_RAISE(auto buffer, sink->Finish());
    const uint32_t size = filter.GetBitsetSize();
    if (buffer->size() < static_cast<int64_t>(size)) {
      return Error(ErrorKind::kInternal, "a serialized bloom filter holds ", buffer->size(),
                   " bytes, less than its ", size, "-byte bitset");
    }
    std::string bitset(reinterpret_cast<const char*>(buffer->data()) + buffer->size() - size, size);
    parquet::BlockSplitBloomFilter check;
    check.Init(reinterpret_cast<const uint8_t*>(bitset.data()), size);
    for (uint64_t hash : hashes) {
      if (!check.FindHash(hash)) {
        return Error(ErrorKind::kInternal, "a bloom filter bitset read back misses a value");
      }
    }
    return bitset;
  } catch (const std::exception& error) {
    return Error(ErrorKind::kInternal, "building a bloom filter failed: ", error.what());
  }
}

template <typename Key>
arrow::Result<ZoneTotals> BuildTyped(const BuildInput& input, const BloomParams& params,
                                     KeyDomain domain, const SegmentDirectory& out) {
  const auto& field = input.schema->field(input.column_index);
  ARROW_ASSIGN_OR_RAISE(
      auto writer,
      ZoneFileWriter::Open(
          out, kBloomFilterFamilyName, params.rows_per_zone, BloomFilterFields(),
          {{std::string(kBloomValueTypeKey), field->type()->ToString()},
           {std::string(kBloomKeyDomainKey), std::string(KeyDomainName(domain))},
           {std::string(kFalsePositiveRateParam), RealText(params.false_positive_rate)}}));
  auto* filters = static_cast<arrow::LargeBinaryBuilder*>(writer->family_builder(0));
  std::vector<uint64_t> hashes;
  ARROW_RETURN_NOT_OK(ForEachZone(
      input, kBloomFilterFamilyName, params.rows_per_zone,
      [&](const Zone& zone, const arrow::ArrayVector& pieces) -> arrow::Status {
        hashes.clear();
        for (const auto& piece : pieces) {
          ARROW_RETURN_NOT_OK(ForEachKey<Key>(
              *piece, [&](int64_t, const Key& key) { hashes.push_back(HashOfKey(key)); },
              [](int64_t) {}));
        }
        std::sort(hashes.begin(), hashes.end());
        hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
        if (hashes.empty()) {
          ARROW_RETURN_NOT_OK(filters->AppendNull());
          return writer->Append(zone);
        }
        ARROW_ASSIGN_OR_RAISE(std::string bitset, FilterBitset(hashes, params.false_positive_rate));
        ARROW_RETURN_NOT_OK(filters->Append(bitset));
        return writer->Append(zone, bitset.size());
      }));
  return writer->Finish();
}

void SetBloomDetails(const ZoneTotals& totals, int64_t rows_per_zone, const std::string& value_type,
                     const std::string& false_positive_rate, format::SegmentMeta* meta) {
  SetZoneDetails(totals, rows_per_zone, value_type, meta);
  (*meta->mutable_details())[std::string(kFalsePositiveRateParam)] = false_positive_rate;
}

}  // namespace

std::string_view BloomFilterFamily::name() const { return kBloomFilterFamilyName; }

arrow::Result<Params> BloomFilterFamily::Validate(const arrow::Field& column,
                                                  const Params& params) const {
  ARROW_RETURN_NOT_OK(BloomDomainOf(column).status());
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, kBloomFilterFamilyName,
                                          {kRowsPerZoneParam, kFalsePositiveRateParam}));
  ARROW_ASSIGN_OR_RAISE(BloomParams parsed, BloomParamsOf(params));
  return Params{{std::string(kRowsPerZoneParam), std::to_string(parsed.rows_per_zone)},
                {std::string(kFalsePositiveRateParam), RealText(parsed.false_positive_rate)}};
}

arrow::Result<format::SegmentMeta> BloomFilterFamily::Build(const BuildInput& input, const Model*,
                                                            const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "a BLOOMFILTER build"));
  ARROW_ASSIGN_OR_RAISE(Params normalized, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(BloomParams params, BloomParamsOf(normalized));
  ARROW_ASSIGN_OR_RAISE(KeyDomain domain, BloomDomainOf(*field));
  arrow::Result<ZoneTotals> totals;
  switch (domain) {
    case KeyDomain::kSigned:
      totals = BuildTyped<int64_t>(input, params, domain, out);
      break;
    case KeyDomain::kUnsigned:
      totals = BuildTyped<uint64_t>(input, params, domain, out);
      break;
    default:
      totals = BuildTyped<std::string_view>(input, params, domain, out);
      break;
  }
  if (!totals.ok()) {
    return WithBuildContext(totals.status(), kBloomFilterFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetBloomDetails(*totals, params.rows_per_zone, field->type()->ToString(),
                  normalized.at(std::string(kFalsePositiveRateParam)), &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kBloomFilterFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> BloomFilterFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked,
                        CheckMergeInputs(kBloomFilterFamilyName, inputs, dirs, out));
  std::vector<std::unique_ptr<BloomFilterSegmentReader>> readers;
  std::vector<const ZoneFile*> files;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto opened = BloomFilterSegmentReader::Open(inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], kZonesFile);
    if (!readers.empty() && (*opened)->value_type() != readers.front()->value_type()) {
      return MergedTypeMismatch(kBloomFilterFamilyName, inputs[i], (*opened)->value_type(),
                                inputs.front(), readers.front()->value_type());
    }
    readers.push_back(std::move(*opened));
    files.push_back(&readers.back()->zone_file());
  }
  auto totals = MergeZoneFiles(files, out, kBloomFilterFamilyName);
  if (!totals.ok()) {
    return WithMergeContext(totals.status(), kBloomFilterFamilyName, inputs.front());
  }
  format::SegmentMeta meta;
  SetBloomDetails(*totals, files.front()->rows_per_zone, readers.front()->value_type(),
                  files.front()->Metadata(std::string(kFalsePositiveRateParam)), &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, kBloomFilterFamilyName, out, &meta));
  return meta;
}

arrow::Result<std::unique_ptr<SegmentReader>> BloomFilterFamily::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, BloomFilterSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> BloomFilterFamily::RequiredFiles(const format::SegmentMeta&) const {
  return ZoneFileNames();
}

arrow::Status BloomFilterFamily::Verify(const BuildInput& definition,
                                        const format::SegmentMeta& segment,
                                        const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kBloomFilterFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(auto reader, BloomFilterSegmentReader::Open(segment, dir));
  if (reader->value_type() != field->type()->ToString()) {
    return HeldTypeMismatch(kBloomFilterFamilyName, segment, reader->value_type(), *field,
                            "is of type", field->type()->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(BloomParams params, BloomParamsOf(definition.params));
  return CheckRowsPerZone(reader->zone_file(), params.rows_per_zone, kBloomFilterFamilyName,
                          segment);
}

std::unique_ptr<IndexFamily> MakeBloomFilterFamily() {
  return std::make_unique<BloomFilterFamily>();
}

}  // namespace tessera::index::scalar
