// The inspection listings as Arrow record batches (inspection_tables.h).
#include "tessera/index/inspection_tables.h"

#include <arrow/builder.h>

#include <map>

#include "tessera/index/segment_meta.h"

namespace tessera::index {

arrow::Result<std::shared_ptr<arrow::RecordBatch>> IndexesBatch(
    const std::vector<index::IndexSummary>& summaries) {
  arrow::StringBuilder name, column, type, params;
  arrow::UInt64Builder segments, indexed_rows, indexed_fragments, unindexed_rows,
      unindexed_fragments;
  for (const auto& summary : summaries) {
    ARROW_RETURN_NOT_OK(name.Append(summary.name));
    ARROW_RETURN_NOT_OK(column.Append(summary.column));
    ARROW_RETURN_NOT_OK(type.Append(summary.family));
    ARROW_RETURN_NOT_OK(params.Append(DescribeParams(summary.params)));
    ARROW_RETURN_NOT_OK(segments.Append(static_cast<uint64_t>(summary.num_segments)));
    ARROW_RETURN_NOT_OK(indexed_rows.Append(summary.indexed_rows));
    ARROW_RETURN_NOT_OK(indexed_fragments.Append(summary.indexed_fragments));
    ARROW_RETURN_NOT_OK(unindexed_rows.Append(summary.unindexed_rows));
    ARROW_RETURN_NOT_OK(unindexed_fragments.Append(summary.unindexed_fragments));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(9);
  ARROW_RETURN_NOT_OK(name.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(column.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(type.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(params.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(segments.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(indexed_rows.Finish(&columns[5]));
  ARROW_RETURN_NOT_OK(indexed_fragments.Finish(&columns[6]));
  ARROW_RETURN_NOT_OK(unindexed_rows.Finish(&columns[7]));
  ARROW_RETURN_NOT_OK(unindexed_fragments.Finish(&columns[8]));
  auto schema = arrow::schema(
      {arrow::field("name", arrow::utf8()), arrow::field("column", arrow::utf8()),
       arrow::field("type", arrow::utf8()), arrow::field("params", arrow::utf8()),
       arrow::field("segments", arrow::uint64()), arrow::field("indexed_rows", arrow::uint64()),
       arrow::field("indexed_fragments", arrow::uint64()),
       arrow::field("unindexed_rows", arrow::uint64()),
       arrow::field("unindexed_fragments", arrow::uint64())});
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(summaries.size()),
                                  std::move(columns));
}

// "dim=8, metric=l2, model=1f2e..., num_partitions=4": a segment's family details.
namespace {

std::string DescribeDetails(const format::SegmentMeta& segment) {
  std::map<std::string, std::string> details(segment.details().begin(), segment.details().end());
  if (!segment.model_fingerprint().empty()) details["model"] = segment.model_fingerprint();
  return DescribeParams(details);
}

}  // namespace

// One row per segment: [index, type,] segment, dataset_version, fragments, rows, bytes,
// created[, details].
arrow::Result<std::shared_ptr<arrow::RecordBatch>> SegmentsBatch(
    const std::vector<std::pair<std::string, format::SegmentMeta>>& entries, bool with_index,
    bool with_details) {
  arrow::StringBuilder index_builder, type_builder, uuid_builder, details_builder;
  arrow::UInt64Builder version_builder, rows_builder, bytes_builder;
  auto fragment_ids = std::make_shared<arrow::UInt32Builder>();
  arrow::ListBuilder fragments_builder(arrow::default_memory_pool(), fragment_ids);
  const auto timestamp = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  arrow::TimestampBuilder created_builder(timestamp, arrow::default_memory_pool());
  for (const auto& [name, segment] : entries) {
    ARROW_RETURN_NOT_OK(index_builder.Append(name));
    ARROW_RETURN_NOT_OK(type_builder.Append(segment.family()));
    ARROW_RETURN_NOT_OK(uuid_builder.Append(segment.uuid()));
    ARROW_RETURN_NOT_OK(version_builder.Append(segment.dataset_version()));
    ARROW_ASSIGN_OR_RAISE(Roaring fragments, DecodeFragmentBitmap(segment));
    ARROW_RETURN_NOT_OK(fragments_builder.Append());
    for (uint32_t id : fragments) ARROW_RETURN_NOT_OK(fragment_ids->Append(id));
    ARROW_RETURN_NOT_OK(rows_builder.Append(segment.num_rows()));
    ARROW_RETURN_NOT_OK(bytes_builder.Append(segment.size_bytes()));
    ARROW_RETURN_NOT_OK(created_builder.Append(segment.created_at_micros()));
    ARROW_RETURN_NOT_OK(details_builder.Append(DescribeDetails(segment)));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  auto add = [&](const std::string& name, arrow::ArrayBuilder& builder) -> arrow::Status {
    std::shared_ptr<arrow::Array> array;
    ARROW_RETURN_NOT_OK(builder.Finish(&array));
    fields.push_back(arrow::field(name, array->type()));
    columns.push_back(std::move(array));
    return arrow::Status::OK();
  };
  if (with_index) {
    ARROW_RETURN_NOT_OK(add("index", index_builder));
    ARROW_RETURN_NOT_OK(add("type", type_builder));
  }
  ARROW_RETURN_NOT_OK(add("segment", uuid_builder));
  ARROW_RETURN_NOT_OK(add("dataset_version", version_builder));
  ARROW_RETURN_NOT_OK(add("fragments", fragments_builder));
  ARROW_RETURN_NOT_OK(add("rows", rows_builder));
  ARROW_RETURN_NOT_OK(add("bytes", bytes_builder));
  ARROW_RETURN_NOT_OK(add("created", created_builder));
  if (with_details) ARROW_RETURN_NOT_OK(add("details", details_builder));
  return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(entries.size()),
                                  std::move(columns));
}

}  // namespace tessera::index
