#include "tessera/dataset/fragment_statistics.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>

#include <cstring>
#include <string>

#include "tessera/expr/evaluator.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

bool Orderable(const arrow::DataType& type) {
  return arrow::is_integer(type.id()) || type.id() == arrow::Type::FLOAT ||
         type.id() == arrow::Type::DOUBLE || type.id() == arrow::Type::STRING ||
         type.id() == arrow::Type::LARGE_STRING || type.id() == arrow::Type::DATE32 ||
         type.id() == arrow::Type::DATE64 || type.id() == arrow::Type::TIMESTAMP;
}

bool IsFloating(const arrow::DataType& type) {
  return type.id() == arrow::Type::FLOAT || type.id() == arrow::Type::DOUBLE;
}

arrow::Result<bool> Less(const std::shared_ptr<arrow::Scalar>& a,
                         const std::shared_ptr<arrow::Scalar>& b) {
  ARROW_ASSIGN_OR_RAISE(auto less, arrow::compute::CallFunction("less", {a, b}));
  const auto& value = static_cast<const arrow::BooleanScalar&>(*less.scalar());
  return value.is_valid && value.value;
}

// The bytes the checksum covers: each column entry's fields in a fixed layout, then the ranges.
std::string ChecksummedBytes(const format::FragmentStatistics& statistics) {
  std::string bytes;
  const auto append = [&](uint64_t value) {
    char raw[8];
    std::memcpy(raw, &value, 8);
    bytes.append(raw, 8);
  };
  for (const auto& column : statistics.columns()) {
    append(column.column());
    append(column.name().size());
    bytes += column.name();
    append(column.null_count());
    append(column.nan_count());
    append(column.has_range() ? 1 : 0);
  }
  bytes += statistics.ranges_ipc();
  return bytes;
}

uint32_t ChecksumOf(const format::FragmentStatistics& statistics) {
  const std::string bytes = ChecksummedBytes(statistics);
  return io::Crc32c(bytes.data(), bytes.size());
}

}  // namespace

StatisticsCollector::StatisticsCollector(std::shared_ptr<arrow::Schema> schema)
    : schema_(std::move(schema)) {
  for (int i = 0; i < schema_->num_fields(); ++i) {
    if (Orderable(*schema_->field(i)->type())) columns_.push_back(Fresh(i));
  }
}

arrow::Status StatisticsCollector::Add(const arrow::RecordBatch& batch) {
  ARROW_RETURN_NOT_OK(expr::EnsureComputeInitialized());  // the kernels below
  for (Column& column : columns_) {
    const std::shared_ptr<arrow::Array>& values = batch.column(column.position);
    column.null_count += static_cast<uint64_t>(values->null_count());
    std::shared_ptr<arrow::Array> ordered = values;
    if (IsFloating(*values->type())) {
      // NaN is neither extreme: filter it out before taking them.
      ARROW_ASSIGN_OR_RAISE(auto nan, arrow::compute::CallFunction("is_nan", {values}));
      const auto mask = std::static_pointer_cast<arrow::BooleanArray>(nan.make_array());
      column.nan_count += static_cast<uint64_t>(mask->true_count());
      if (mask->true_count() > 0) {
        ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::CallFunction("invert", {nan}));
        ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(values, kept));
        ordered = filtered.make_array();
      }
    }
    if (ordered->length() == ordered->null_count()) continue;
    ARROW_ASSIGN_OR_RAISE(auto extremes, arrow::compute::MinMax(ordered));
    const auto& pair = static_cast<const arrow::StructScalar&>(*extremes.scalar());
    const std::shared_ptr<arrow::Scalar>& min = pair.value[0];
    const std::shared_ptr<arrow::Scalar>& max = pair.value[1];
    if (!min->is_valid || !max->is_valid) continue;
    if (column.min == nullptr) {
      column.min = min;
      column.max = max;
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(bool lower, Less(min, column.min));
    if (lower) column.min = min;
    ARROW_ASSIGN_OR_RAISE(bool higher, Less(column.max, max));
    if (higher) column.max = max;
  }
  return arrow::Status::OK();
}

arrow::Result<format::FragmentStatistics> StatisticsCollector::Finish() {
  format::FragmentStatistics statistics;
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (Column& column : columns_) {
    const auto& field = schema_->field(column.position);
    const auto too_long = [](const arrow::Scalar& value) {
      return static_cast<const arrow::BaseBinaryScalar&>(value).value->size() >
             static_cast<int64_t>(kMaximumStringBytes);
    };
    if (column.min != nullptr && arrow::is_string(field->type()->id()) &&
        (too_long(*column.min) || too_long(*column.max))) {
      column = Fresh(column.position);
      continue;  // not listed: the range is unknown
    }
    format::ColumnStatistics* entry = statistics.add_columns();
    entry->set_column(static_cast<uint32_t>(column.position));
    entry->set_name(field->name());
    entry->set_null_count(column.null_count);
    entry->set_nan_count(column.nan_count);
    entry->set_has_range(column.min != nullptr);
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &builder));
    if (column.min != nullptr) {
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*column.min));
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*column.max));
    } else {
      ARROW_RETURN_NOT_OK(builder->AppendNulls(2));
    }
    ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
    fields.push_back(arrow::field("c" + std::to_string(column.position), field->type()));
    arrays.push_back(std::move(array));
    column = Fresh(column.position);
  }
  if (statistics.columns_size() == 0) return statistics;
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), 2, std::move(arrays));
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferOutputStream::Create());
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeStreamWriter(sink, batch->schema()));
  ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  ARROW_RETURN_NOT_OK(writer->Close());
  ARROW_ASSIGN_OR_RAISE(auto buffer, sink->Finish());
  statistics.set_ranges_ipc(buffer->ToString());
  statistics.set_crc32c(ChecksumOf(statistics));
  return statistics;
}

arrow::Result<std::map<int, ColumnRange>> DecodeStatistics(const format::Fragment& fragment,
                                                           const arrow::Schema& schema) {
  std::map<int, ColumnRange> ranges;
  if (!fragment.has_statistics() || fragment.statistics().columns_size() == 0) return ranges;
  const format::FragmentStatistics& statistics = fragment.statistics();
  if (ChecksumOf(statistics) != statistics.crc32c()) {
    return Corrupt("the statistics of fragment ", fragment.id(), " fail their checksum");
  }
  auto input =
      std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(statistics.ranges_ipc()));
  auto reader = arrow::ipc::RecordBatchStreamReader::Open(input);
  std::shared_ptr<arrow::RecordBatch> batch;
  if (reader.ok()) {
    arrow::Status read = (*reader)->ReadNext(&batch);
    if (!read.ok()) batch = nullptr;
  }
  if (batch == nullptr || batch->num_rows() != 2 ||
      batch->num_columns() != statistics.columns_size() || !batch->ValidateFull().ok()) {
    return Corrupt("the statistics of fragment ", fragment.id(), " cannot be decoded");
  }
  for (int i = 0; i < statistics.columns_size(); ++i) {
    const format::ColumnStatistics& entry = statistics.columns(i);
    const int position = static_cast<int>(entry.column());
    if (position >= schema.num_fields() || schema.field(position)->name() != entry.name() ||
        !schema.field(position)->type()->Equals(*batch->column(i)->type())) {
      continue;  // written with another schema: not this column's
    }
    ColumnRange range;
    range.null_count = entry.null_count();
    range.nan_count = entry.nan_count();
    if (entry.has_range()) {
      ARROW_ASSIGN_OR_RAISE(range.min, batch->column(i)->GetScalar(0));
      ARROW_ASSIGN_OR_RAISE(range.max, batch->column(i)->GetScalar(1));
      if (!range.min->is_valid || !range.max->is_valid) {
        return Corrupt("the statistics of fragment ", fragment.id(), " lack the range of column ",
                       entry.name());
      }
    }
    ranges[position] = std::move(range);
  }
  return ranges;
}

}  // namespace tessera::dataset
