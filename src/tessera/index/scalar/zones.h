// Zones: the layout shared by the zone-based superset families (ZONEMAP, BLOOMFILTER). A
// segment splits each fragment it covers into zones of `rows_per_zone` consecutive rows (the
// last zone of a fragment may be shorter; zones never span fragments) and keeps, per zone, a
// small summary that says whether the zone may hold a row where a predicate is TRUE. Readers
// answer with the row addresses of every zone that may (Coverage::kSuperset); the planner
// rechecks them.
//
// The zone table is one Arrow IPC file, `zones.arrow`, with its block checksums beside it
// (io/block_checksums.h), in record batches of at most kZonesPerBatch zones:
//
//   fragment  uint32  the zone's fragment id
//   first     uint32  the offset of its first row in the fragment
//   rows      uint32  its row count, in [1, rows_per_zone]
//   nulls     uint32  how many of its rows are null
//   ...               the family's own columns (ZONEMAP: nans, min, max; BLOOMFILTER: the
//                     zone's filter), one value per zone
//
// The schema's metadata holds `rows_per_zone`. Invariants, checked when the file is opened
// (ReadZoneFile; a violation is Corrupt naming the file and the segment): zones ascend by
// (fragment, first); each fragment's zones start at offset 0 and follow each other without gap
// or overlap; every zone but the last of its fragment holds exactly rows_per_zone rows; every
// fragment is one the segment covers; nulls <= rows; the rows add up to the segment's num_rows.
// So the zones cover every row of the segment exactly once: a reader never drops a row.
#pragma once

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/record_batch.h>
#include <arrow/result.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/io/verified_ipc_file.h"

namespace tessera::index::scalar {

class IpcFileWriter;  // btree_layout.h

inline constexpr std::string_view kZonesFile = "zones.arrow";
inline constexpr int64_t kZonesPerBatch = 1024;
// A batch is also cut once the family's values of its zones pass this many bytes (large bloom
// filters), so that neither a build nor a reader holds more than that in one batch.
inline constexpr uint64_t kZoneBatchBytes = uint64_t{64} << 20;
inline constexpr int kZoneCommonColumns = 4;  // fragment, first, rows, nulls
inline constexpr int64_t kMinRowsPerZone = 1;
inline constexpr int64_t kMaxRowsPerZone = int64_t{1} << 20;
// The parameter (and SegmentMeta.details key) both families size zones with.
inline constexpr std::string_view kRowsPerZoneParam = "rows_per_zone";
// SegmentMeta.details keys of zone segments.
inline constexpr std::string_view kZoneDetailNumZones = "num_zones";
inline constexpr std::string_view kZoneDetailNumNulls = "num_nulls";
inline constexpr std::string_view kZoneDetailValueType = "value_type";

struct Zone {
  uint32_t fragment = 0;
  uint32_t first = 0;  // offset of the zone's first row in its fragment
  uint32_t rows = 0;
  uint32_t nulls = 0;
};

// What a segment's zones add up to.
struct ZoneTotals {
  uint64_t zones = 0;
  uint64_t rows = 0;
  uint64_t nulls = 0;
};

// Reads the column of a build's fragments (in ascending fragment id, through
// ForEachColumnBatch) zone by zone: `visit` gets each zone (its null count filled in) and its
// values, as slices of the column's batches in row order, zero-copy.
using ZoneVisitor =
    std::function<arrow::Status(const Zone& zone, const arrow::ArrayVector& pieces)>;
arrow::Status ForEachZone(const BuildInput& input, std::string_view family, int64_t rows_per_zone,
                          const ZoneVisitor& visit);

// Writes a zone file. For each zone, append one value to each family builder, then Append the
// zone; Finish writes the last batch and makes the file durable.
class ZoneFileWriter {
 public:
  // `family_fields` are the family's columns, after the common ones.
  static arrow::Result<std::unique_ptr<ZoneFileWriter>> Open(
      const SegmentDirectory& out, std::string_view family, int64_t rows_per_zone,
      const arrow::FieldVector& family_fields,
      std::vector<std::pair<std::string, std::string>> metadata = {});
  ~ZoneFileWriter();

  arrow::ArrayBuilder* family_builder(int index) { return family_builders_[index].get(); }
  // `family_bytes`: about how many bytes the zone's family values take (0 when small).
  arrow::Status Append(const Zone& zone, uint64_t family_bytes = 0);
  arrow::Result<ZoneTotals> Finish();

 private:
  ZoneFileWriter() = default;
  arrow::Status Flush();

  std::unique_ptr<IpcFileWriter> file_;
  std::shared_ptr<arrow::Schema> schema_;
  arrow::UInt32Builder common_[kZoneCommonColumns];
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> family_builders_;
  ZoneTotals totals_;
  uint64_t batch_bytes_ = 0;
};

// The schema of a zone file: the common columns, then `family_fields`, with the metadata.
std::shared_ptr<arrow::Schema> ZoneFileSchema(
    int64_t rows_per_zone, const arrow::FieldVector& family_fields,
    const std::vector<std::pair<std::string, std::string>>& metadata = {});

// A zone file read and validated (the invariants above): the zones and the verified batches
// that hold the family's columns (batch i holds zones [batch_starts[i], batch_starts[i+1])).
struct ZoneFile {
  std::string description;  // "file zones.arrow of ZONEMAP segment <uuid>", for messages
  int64_t rows_per_zone = 0;
  std::shared_ptr<arrow::Schema> schema;
  std::vector<Zone> zones;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::vector<size_t> batch_starts;

  // A schema metadata value of the file; empty when absent.
  std::string Metadata(const std::string& key) const;
  // Corrupt naming the file and the segment, saying `what` is wrong.
  arrow::Status Corrupted(std::string_view what) const;
};

// Opens and validates the zone file of `segment` (a segment of `family`). Corrupt naming the
// file for a damaged or inconsistent file (SegmentFileError keeps storage failures' kinds).
arrow::Result<ZoneFile> ReadZoneFile(const format::SegmentMeta& segment,
                                     const SegmentDirectory& directory, std::string_view family);

// Calls visit(zone index, batch, row in batch) for each zone of `file`, in order: how a family
// reads its own columns.
arrow::Status ForEachZoneRow(
    const ZoneFile& file,
    const std::function<arrow::Status(size_t zone, const arrow::RecordBatch& batch, int64_t row)>&
        visit);

// Rewrites the zones of `inputs` (zone files of segments over disjoint fragments, validated)
// into one zone file in `out`, in fragment order, copying every column. The inputs must have
// one schema (the family's columns, so one value type) and one rows_per_zone: InvalidArgument
// naming the two that differ otherwise.
arrow::Result<ZoneTotals> MergeZoneFiles(const std::vector<const ZoneFile*>& inputs,
                                         const SegmentDirectory& out, std::string_view family);

// The zones holding a null row (what IS NULL may match) and those holding a non-null one (IS
// NOT NULL), in the order of `zones`.
std::vector<const Zone*> ZonesWithNulls(const std::vector<Zone>& zones);
std::vector<const Zone*> ZonesWithNonNulls(const std::vector<Zone>& zones);

// What a zone reader tells the planner of the zones it matched for a leaf: kSuperset at their
// rows; nothing where matching failed (a query value of another type, the caller's bug, which
// Answer reports: the scan answers).
Capability ZonesCapability(const arrow::Result<std::vector<const Zone*>>& zones);
// The answer of the matched zones: every row of theirs, a superset the planner rechecks.
RowAddressSet ZonesAnswer(const std::vector<const Zone*>& zones);

// Their rows.
uint64_t RowsOf(const std::vector<const Zone*>& zones);

// The details every zone segment records (rows_per_zone, num_zones, num_nulls, value_type), and
// num_rows.
void SetZoneDetails(const ZoneTotals& totals, int64_t rows_per_zone, std::string_view value_type,
                    format::SegmentMeta* meta);

// InvalidArgument naming the segment and both sizes when `file` was not built with the
// definition's rows_per_zone (Verify: a segment claiming another definition's parameters).
arrow::Status CheckRowsPerZone(const ZoneFile& file, int64_t rows_per_zone, std::string_view family,
                               const format::SegmentMeta& segment);

// The names of the zone file and its checksums, for RequiredFiles.
std::vector<std::string> ZoneFileNames();

}  // namespace tessera::index::scalar
