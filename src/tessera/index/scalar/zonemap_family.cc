#include "tessera/index/scalar/zonemap_family.h"

#include <string>

#include "tessera/index/builtin_families.h"
#include "tessera/index/merge_inputs.h"
#include "tessera/index/params.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/scalar/zonemap_segment_reader.h"
#include "tessera/index/scalar/zonemap_values.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

arrow::Result<int64_t> RowsPerZoneOf(const Params& params) {
  return IntegerParam(params, kZoneMapFamilyName, kRowsPerZoneParam, kDefaultZoneMapRowsPerZone,
                      kMinRowsPerZone, kMaxRowsPerZone);
}

// Summarizes each zone of the build's fragments: NaN count, minimum and maximum of the rest.
template <typename Key>
arrow::Result<ZoneTotals> BuildTyped(const BuildInput& input,
                                     const std::shared_ptr<arrow::DataType>& storage,
                                     int64_t rows_per_zone, const SegmentDirectory& out) {
  ARROW_ASSIGN_OR_RAISE(auto writer, ZoneFileWriter::Open(out, kZoneMapFamilyName, rows_per_zone,
                                                          ZoneMapFields(storage)));
  ARROW_ASSIGN_OR_RAISE(auto appender, KeyAppender<Key>::Make(storage));
  auto* nans_builder = static_cast<arrow::UInt32Builder*>(writer->family_builder(0));
  arrow::ArrayBuilder* min_builder = writer->family_builder(1);
  arrow::ArrayBuilder* max_builder = writer->family_builder(2);
  ARROW_RETURN_NOT_OK(
      ForEachZone(input, kZoneMapFamilyName, rows_per_zone,
                  [&](const Zone& zone, const arrow::ArrayVector& pieces) -> arrow::Status {
                    uint32_t nans = 0;
                    bool has_values = false;
                    Key min{};  // binary keys view into `pieces`, which outlive the appends below
                    Key max{};
                    for (const auto& piece : pieces) {
                      ARROW_RETURN_NOT_OK(ForEachKey<Key>(
                          *piece,
                          [&](int64_t, const Key& key) {
                            if (IsNanKey(key)) {
                              ++nans;
                            } else if (!has_values) {
                              has_values = true;
                              min = max = key;
                            } else {
                              if (key < min) min = key;
                              if (max < key) max = key;
                            }
                          },
                          [](int64_t) {}));
                    }
                    ARROW_RETURN_NOT_OK(nans_builder->Append(nans));
                    if (has_values) {
                      ARROW_RETURN_NOT_OK(appender.Append(min_builder, min));
                      ARROW_RETURN_NOT_OK(appender.Append(max_builder, max));
                    } else {
                      ARROW_RETURN_NOT_OK(min_builder->AppendNull());
                      ARROW_RETURN_NOT_OK(max_builder->AppendNull());
                    }
                    return writer->Append(zone);
                  }));
  return writer->Finish();
}

}  // namespace

std::string_view ZoneMapFamily::name() const { return kZoneMapFamilyName; }

arrow::Result<Params> ZoneMapFamily::Validate(const arrow::Field& column,
                                              const Params& params) const {
  ARROW_RETURN_NOT_OK(ZoneMapStorageType(column.name(), column.type()).status());
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, kZoneMapFamilyName, {kRowsPerZoneParam}));
  ARROW_ASSIGN_OR_RAISE(int64_t rows_per_zone, RowsPerZoneOf(params));
  return Params{{std::string(kRowsPerZoneParam), std::to_string(rows_per_zone)}};
}

arrow::Result<format::SegmentMeta> ZoneMapFamily::Build(const BuildInput& input, const Model*,
                                                        const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToBuild(input, "a ZONEMAP build"));
  ARROW_ASSIGN_OR_RAISE(Params params, Validate(*field, input.params));
  ARROW_ASSIGN_OR_RAISE(int64_t rows_per_zone, RowsPerZoneOf(params));
  ARROW_ASSIGN_OR_RAISE(auto storage, ZoneMapStorageType(field->name(), field->type()));
  ARROW_ASSIGN_OR_RAISE(KeyDomain domain, DomainOf(*storage));
  auto totals = DispatchKeyDomain(domain, [&](auto key) {
    return BuildTyped<decltype(key)>(input, storage, rows_per_zone, out);
  });
  if (!totals.ok()) {
    return WithBuildContext(totals.status(), kZoneMapFamilyName, input, *field);
  }
  format::SegmentMeta meta;
  SetZoneDetails(*totals, rows_per_zone, storage->ToString(), &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(input, kZoneMapFamilyName, out, &meta));
  return meta;
}

arrow::Result<format::SegmentMeta> ZoneMapFamily::Merge(
    const std::vector<format::SegmentMeta>& inputs, const std::vector<SegmentDirectory>& dirs,
    const SegmentDirectory& out) const {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked,
                        CheckMergeInputs(kZoneMapFamilyName, inputs, dirs, out));
  std::vector<std::unique_ptr<ZoneMapSegmentReader>> readers;
  std::vector<const ZoneFile*> files;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto opened = ZoneMapSegmentReader::Open(inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], kZonesFile);
    readers.push_back(std::move(*opened));
    files.push_back(&readers.back()->zone_file());
  }
  auto totals = MergeZoneFiles(files, out, kZoneMapFamilyName);
  if (!totals.ok()) {
    return WithMergeContext(totals.status(), kZoneMapFamilyName, inputs.front());
  }
  format::SegmentMeta meta;
  SetZoneDetails(*totals, files.front()->rows_per_zone, readers.front()->storage_type()->ToString(),
                 &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, kZoneMapFamilyName, out, &meta));
  return meta;
}

arrow::Result<std::unique_ptr<SegmentReader>> ZoneMapFamily::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto reader, ZoneMapSegmentReader::Open(segment, dir));
  return std::unique_ptr<SegmentReader>(std::move(reader));
}

std::vector<std::string> ZoneMapFamily::RequiredFiles(const format::SegmentMeta&) const {
  return ZoneFileNames();
}

arrow::Status ZoneMapFamily::Verify(const BuildInput& definition,
                                    const format::SegmentMeta& segment,
                                    const SegmentDirectory& dir) const {
  ARROW_ASSIGN_OR_RAISE(auto field, ColumnToVerify(definition, kZoneMapFamilyName, segment));
  ARROW_ASSIGN_OR_RAISE(auto reader, ZoneMapSegmentReader::Open(segment, dir));
  ARROW_ASSIGN_OR_RAISE(auto expected, ZoneMapStorageType(field->name(), field->type()));
  if (!reader->storage_type()->Equals(*expected)) {
    return HeldTypeMismatch(kZoneMapFamilyName, segment, reader->storage_type()->ToString(), *field,
                            "is indexed as", expected->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(int64_t rows_per_zone, RowsPerZoneOf(definition.params));
  return CheckRowsPerZone(reader->zone_file(), rows_per_zone, kZoneMapFamilyName, segment);
}

std::unique_ptr<IndexFamily> MakeZoneMapFamily() { return std::make_unique<ZoneMapFamily>(); }

}  // namespace tessera::index::scalar
