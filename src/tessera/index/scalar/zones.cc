#include "tessera/index/scalar/zones.h"

#include <arrow/util/key_value_metadata.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "tessera/dataset/dataset.h"
#include "tessera/index/column_batches.h"
#include "tessera/index/scalar/btree_layout.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

constexpr const char* kCommonNames[kZoneCommonColumns] = {"fragment", "first", "rows", "nulls"};
constexpr std::string_view kRemedy =
    "rebuild the index (tessera index create --replace) or drop it";

arrow::FieldVector CommonFields() {
  arrow::FieldVector fields;
  for (const char* name : kCommonNames) {
    fields.push_back(arrow::field(name, arrow::uint32(), /*nullable=*/false));
  }
  return fields;
}

std::optional<int64_t> ParseRowsPerZone(const std::string& text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < kMinRowsPerZone ||
      value > kMaxRowsPerZone) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

arrow::Status ForEachZone(const BuildInput& input, std::string_view family, int64_t rows_per_zone,
                          const ZoneVisitor& visit) {
  if (rows_per_zone < kMinRowsPerZone || rows_per_zone > kMaxRowsPerZone) {
    return InvalidArgument("a ", family, " build of index '", input.index_name, "' needs ",
                           kRowsPerZoneParam, " in [", kMinRowsPerZone, ", ", kMaxRowsPerZone,
                           "], got ", rows_per_zone);
  }
  // Zones ascend by fragment id whatever order the caller lists the fragments in.
  BuildInput sorted = input;
  std::sort(sorted.fragments.begin(), sorted.fragments.end(),
            [](const format::Fragment& a, const format::Fragment& b) { return a.id() < b.id(); });
  Zone zone;
  bool open = false;
  arrow::ArrayVector pieces;
  const auto flush = [&]() -> arrow::Status {
    if (!open) return arrow::Status::OK();
    open = false;
    auto status = visit(zone, pieces);
    pieces.clear();
    return status;
  };
  ARROW_RETURN_NOT_OK(ForEachColumnBatch(
      sorted, family,
      [&](uint32_t fragment, uint64_t first, const std::shared_ptr<arrow::Array>& column) {
        // A zone never spans fragments; the previous fragment's rows were all checked.
        if (open && zone.fragment != fragment) ARROW_RETURN_NOT_OK(flush());
        int64_t position = 0;
        while (position < column->length()) {
          if (!open) {
            zone = Zone{fragment, static_cast<uint32_t>(first + static_cast<uint64_t>(position)), 0,
                        0};
            open = true;
          }
          const int64_t take = std::min(column->length() - position,
                                        rows_per_zone - static_cast<int64_t>(zone.rows));
          auto piece = column->Slice(position, take);
          zone.rows += static_cast<uint32_t>(take);
          zone.nulls += static_cast<uint32_t>(piece->null_count());
          pieces.push_back(std::move(piece));
          position += take;
          if (zone.rows == rows_per_zone) ARROW_RETURN_NOT_OK(flush());
        }
        return arrow::Status::OK();
      }));
  return flush();
}

std::shared_ptr<arrow::Schema> ZoneFileSchema(
    int64_t rows_per_zone, const arrow::FieldVector& family_fields,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  arrow::FieldVector fields = CommonFields();
  fields.insert(fields.end(), family_fields.begin(), family_fields.end());
  std::vector<std::string> keys{std::string(kRowsPerZoneParam)};
  std::vector<std::string> values{std::to_string(rows_per_zone)};
  for (const auto& [key, value] : metadata) {
    keys.push_back(key);
    values.push_back(value);
  }
  return arrow::schema(std::move(fields), arrow::key_value_metadata(keys, values));
}

ZoneFileWriter::~ZoneFileWriter() = default;

arrow::Result<std::unique_ptr<ZoneFileWriter>> ZoneFileWriter::Open(
    const SegmentDirectory& out, std::string_view family, int64_t rows_per_zone,
    const arrow::FieldVector& family_fields,
    std::vector<std::pair<std::string, std::string>> metadata) {
  if (rows_per_zone < kMinRowsPerZone || rows_per_zone > kMaxRowsPerZone) {
    return InvalidArgument("a ", family, " zone file needs ", kRowsPerZoneParam, " in [",
                           kMinRowsPerZone, ", ", kMaxRowsPerZone, "], got ", rows_per_zone);
  }
  std::unique_ptr<ZoneFileWriter> writer(new ZoneFileWriter());
  writer->schema_ = ZoneFileSchema(rows_per_zone, family_fields, metadata);
  for (const auto& field : family_fields) {
    ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(field->type()));
    writer->family_builders_.push_back(std::move(builder));
  }
  ARROW_ASSIGN_OR_RAISE(writer->file_, IpcFileWriter::Open(out, kZonesFile, writer->schema_));
  return writer;
}

arrow::Status ZoneFileWriter::Append(const Zone& zone, uint64_t family_bytes) {
  const uint32_t values[kZoneCommonColumns] = {zone.fragment, zone.first, zone.rows, zone.nulls};
  for (int i = 0; i < kZoneCommonColumns; ++i) ARROW_RETURN_NOT_OK(common_[i].Append(values[i]));
  ++totals_.zones;
  totals_.rows += zone.rows;
  totals_.nulls += zone.nulls;
  batch_bytes_ += family_bytes;
  if (common_[0].length() >= kZonesPerBatch || batch_bytes_ >= kZoneBatchBytes) return Flush();
  return arrow::Status::OK();
}

arrow::Status ZoneFileWriter::Flush() {
  const int64_t zones = common_[0].length();
  if (zones == 0) return arrow::Status::OK();
  batch_bytes_ = 0;
  arrow::ArrayVector columns;
  for (auto& builder : common_) {
    ARROW_ASSIGN_OR_RAISE(auto column, builder.Finish());
    columns.push_back(std::move(column));
  }
  for (auto& builder : family_builders_) {
    if (builder->length() != zones) {
      return Error(ErrorKind::kInternal, "a zone file got ", builder->length(),
                   " family values for ", zones, " zones");
    }
    ARROW_ASSIGN_OR_RAISE(auto column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return file_->Write(*arrow::RecordBatch::Make(schema_, zones, std::move(columns)));
}

arrow::Result<ZoneTotals> ZoneFileWriter::Finish() {
  ARROW_RETURN_NOT_OK(Flush());
  ARROW_RETURN_NOT_OK(file_->Close());
  return totals_;
}

std::string ZoneFile::Metadata(const std::string& key) const {
  const auto& metadata = schema->metadata();
  if (metadata == nullptr) return "";
  const int found = metadata->FindKey(key);
  return found < 0 ? "" : metadata->value(found);
}

arrow::Status ZoneFile::Corrupted(std::string_view what) const {
  return Corrupt(description, " ", what, "; ", kRemedy);
}

arrow::Result<ZoneFile> ReadZoneFile(const format::SegmentMeta& segment,
                                     const SegmentDirectory& directory, std::string_view family) {
  if (segment.family() != family) {
    return InvalidArgument("segment ", segment.uuid(), " of index '", segment.index_name(),
                           "' is a ", segment.family(), " segment, not a ", family, " segment");
  }
  ZoneFile file;
  file.description = Concat("file ", kZonesFile, " of ", family, " segment ", segment.uuid());
  ARROW_ASSIGN_OR_RAISE(
      auto ipc,
      io::VerifiedIpcFile::Open(*directory.storage, directory.path + "/" + std::string(kZonesFile),
                                file.description, std::string(kRemedy)));
  file.schema = ipc->schema();
  bool common = file.schema->num_fields() >= kZoneCommonColumns;
  for (int i = 0; common && i < kZoneCommonColumns; ++i) {
    common = file.schema->field(i)->name() == kCommonNames[i] &&
             file.schema->field(i)->type()->id() == arrow::Type::UINT32;
  }
  if (!common) return file.Corrupted("has an unexpected schema " + file.schema->ToString());
  const auto rows_per_zone = ParseRowsPerZone(file.Metadata(std::string(kRowsPerZoneParam)));
  if (!rows_per_zone) return file.Corrupted("records no valid rows_per_zone");
  file.rows_per_zone = *rows_per_zone;
  auto fragments = DecodeFragmentBitmap(segment);
  if (!fragments.ok()) return fragments.status();

  uint64_t total_rows = 0;
  for (int b = 0; b < ipc->num_batches(); ++b) {
    ARROW_ASSIGN_OR_RAISE(auto batch, ipc->ReadBatch(b));
    const uint32_t* columns[kZoneCommonColumns];
    for (int i = 0; i < kZoneCommonColumns; ++i) {
      if (batch->column(i)->null_count() != 0) {
        return file.Corrupted(Concat("holds a null ", kCommonNames[i], " in batch ", b));
      }
      columns[i] = static_cast<const arrow::UInt32Array&>(*batch->column(i)).raw_values();
    }
    file.batch_starts.push_back(file.zones.size());
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      const Zone zone{columns[0][row], columns[1][row], columns[2][row], columns[3][row]};
      const size_t index = file.zones.size();
      std::string problem;
      const Zone* previous = file.zones.empty() ? nullptr : &file.zones.back();
      if (!fragments->contains(zone.fragment)) {
        problem = "is in a fragment the segment does not cover";
      } else if (zone.rows < 1 || zone.rows > file.rows_per_zone || zone.nulls > zone.rows ||
                 uint64_t{zone.first} + zone.rows > (uint64_t{1} << 32)) {
        problem = "has inconsistent counts (" + std::to_string(zone.rows) + " rows, " +
                  std::to_string(zone.nulls) + " nulls)";
      } else if (previous != nullptr && previous->fragment > zone.fragment) {
        problem = "is out of order";
      } else if (previous != nullptr && previous->fragment == zone.fragment) {
        if (uint64_t{previous->first} + previous->rows != zone.first) {
          problem = "does not follow the previous zone of its fragment";
        } else if (previous->rows != file.rows_per_zone) {
          problem = "follows a zone shorter than rows_per_zone";
        }
      } else if (zone.first != 0) {
        problem = "is the first zone of its fragment but does not start at row 0";
      }
      if (!problem.empty()) {
        return file.Corrupted(Concat("zone ", index, " (fragment ", zone.fragment, ", rows ",
                                     zone.first, "..", uint64_t{zone.first} + zone.rows, ") ",
                                     problem));
      }
      total_rows += zone.rows;
      file.zones.push_back(zone);
    }
    file.batches.push_back(std::move(batch));
  }
  if (total_rows != segment.num_rows()) {
    return file.Corrupted(
        Concat("has zones of ", total_rows, " rows; the segment has ", segment.num_rows()));
  }
  file.batch_starts.push_back(file.zones.size());
  return file;
}

arrow::Status ForEachZoneRow(
    const ZoneFile& file,
    const std::function<arrow::Status(size_t zone, const arrow::RecordBatch& batch, int64_t row)>&
        visit) {
  for (size_t b = 0; b < file.batches.size(); ++b) {
    const size_t start = file.batch_starts[b];
    for (int64_t row = 0; row < file.batches[b]->num_rows(); ++row) {
      ARROW_RETURN_NOT_OK(visit(start + static_cast<size_t>(row), *file.batches[b], row));
    }
  }
  return arrow::Status::OK();
}

arrow::Result<ZoneTotals> MergeZoneFiles(const std::vector<const ZoneFile*>& inputs,
                                         const SegmentDirectory& out, std::string_view family) {
  if (inputs.empty()) return InvalidArgument("a ", family, " merge needs at least one segment");
  const ZoneFile& head = *inputs.front();
  for (const ZoneFile* input : inputs) {
    if (!input->schema->Equals(*head.schema, /*check_metadata=*/false)) {
      return InvalidArgument("cannot merge ", family,
                             " segments of different value types: ", input->description,
                             " has schema ", input->schema->ToString(), ", ", head.description,
                             " has ", head.schema->ToString());
    }
    if (input->rows_per_zone != head.rows_per_zone) {
      return InvalidArgument("cannot merge ", family,
                             " segments of different zone sizes: ", input->description, " has ",
                             kRowsPerZoneParam, " ", input->rows_per_zone, ", ", head.description,
                             " has ", head.rows_per_zone);
    }
  }
  struct Reference {
    const Zone* zone;
    const arrow::RecordBatch* batch;
    int64_t row;
  };
  std::vector<Reference> references;
  for (const ZoneFile* input : inputs) {
    ARROW_RETURN_NOT_OK(
        ForEachZoneRow(*input, [&](size_t zone, const arrow::RecordBatch& batch, int64_t row) {
          references.push_back({&input->zones[zone], &batch, row});
          return arrow::Status::OK();
        }));
  }
  // The inputs cover disjoint fragments, so (fragment, first) orders every zone.
  std::sort(references.begin(), references.end(), [](const Reference& a, const Reference& b) {
    return a.zone->fragment != b.zone->fragment ? a.zone->fragment < b.zone->fragment
                                                : a.zone->first < b.zone->first;
  });

  arrow::FieldVector family_fields(head.schema->fields().begin() + kZoneCommonColumns,
                                   head.schema->fields().end());
  std::vector<std::pair<std::string, std::string>> metadata;
  if (const auto& all = head.schema->metadata(); all != nullptr) {
    for (int64_t i = 0; i < all->size(); ++i) {
      if (all->key(i) != kRowsPerZoneParam) metadata.emplace_back(all->key(i), all->value(i));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto writer, ZoneFileWriter::Open(out, family, head.rows_per_zone,
                                                          family_fields, std::move(metadata)));
  for (const Reference& reference : references) {
    uint64_t bytes = 0;
    for (int c = 0; c < static_cast<int>(family_fields.size()); ++c) {
      const auto& column = *reference.batch->column(kZoneCommonColumns + c);
      const arrow::ArraySpan span(*column.data());
      ARROW_RETURN_NOT_OK(writer->family_builder(c)->AppendArraySlice(span, reference.row, 1));
      if (column.type_id() == arrow::Type::LARGE_BINARY) {
        bytes += static_cast<uint64_t>(
            static_cast<const arrow::LargeBinaryArray&>(column).value_length(reference.row));
      }
    }
    ARROW_RETURN_NOT_OK(writer->Append(*reference.zone, bytes));
  }
  return writer->Finish();
}

std::vector<const Zone*> ZonesWithNulls(const std::vector<Zone>& zones) {
  std::vector<const Zone*> matching;
  for (const Zone& zone : zones) {
    if (zone.nulls > 0) matching.push_back(&zone);
  }
  return matching;
}

std::vector<const Zone*> ZonesWithNonNulls(const std::vector<Zone>& zones) {
  std::vector<const Zone*> matching;
  for (const Zone& zone : zones) {
    if (zone.nulls < zone.rows) matching.push_back(&zone);
  }
  return matching;
}

Capability ZonesCapability(const arrow::Result<std::vector<const Zone*>>& zones) {
  if (!zones.ok()) return {};
  return {Coverage::kSuperset, static_cast<double>(RowsOf(*zones)), /*clustered=*/true};
}

RowAddressSet ZonesAnswer(const std::vector<const Zone*>& zones) {
  RowAddressSet answer;
  answer.exact = false;
  for (const Zone* zone : zones) {
    if (zone->rows == 0) continue;
    const uint64_t first = dataset::MakeRowAddress(zone->fragment, zone->first);
    RowAddressRun* last = answer.runs.empty() ? nullptr : &answer.runs.back();
    if (last != nullptr && last->first + last->count == first &&
        dataset::FragmentOf(last->first) == zone->fragment) {
      last->count += zone->rows;  // the next zone of the same fragment: one run
    } else {
      answer.runs.push_back({first, zone->rows});
    }
  }
  return answer;
}

uint64_t RowsOf(const std::vector<const Zone*>& zones) {
  uint64_t rows = 0;
  for (const Zone* zone : zones) rows += zone->rows;
  return rows;
}

void SetZoneDetails(const ZoneTotals& totals, int64_t rows_per_zone, std::string_view value_type,
                    format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  details[std::string(kRowsPerZoneParam)] = std::to_string(rows_per_zone);
  details[std::string(kZoneDetailNumZones)] = std::to_string(totals.zones);
  details[std::string(kZoneDetailNumNulls)] = std::to_string(totals.nulls);
  details[std::string(kZoneDetailValueType)] = std::string(value_type);
  meta->set_num_rows(totals.rows);
}

arrow::Status CheckRowsPerZone(const ZoneFile& file, int64_t rows_per_zone, std::string_view family,
                               const format::SegmentMeta& segment) {
  if (file.rows_per_zone == rows_per_zone) return arrow::Status::OK();
  return InvalidArgument(family, " segment ", segment.uuid(), " has zones of ", file.rows_per_zone,
                         " rows but index '", segment.index_name(), "' is defined with ",
                         kRowsPerZoneParam, "=", rows_per_zone);
}

std::vector<std::string> ZoneFileNames() {
  auto files = io::FileAndChecksums(kZonesFile);
  return {files.begin(), files.end()};
}

}  // namespace tessera::index::scalar
