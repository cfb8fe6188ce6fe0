#include "tessera/query/nearest_result.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <utility>

#include "tessera/dataset/options.h"
#include "tessera/query/nearest.h"
#include "tessera/query/nearest_explain.h"

namespace tessera::query {

NearestResult::NearestResult(const Snapshot& snapshot, std::vector<int> projection,
                             bool with_row_address, std::shared_ptr<const expr::Filter> postfilter)
    : snapshot_(snapshot),
      projection_(std::move(projection)),
      with_row_address_(with_row_address),
      postfilter_(std::move(postfilter)) {
  const auto& schema = *snapshot_.schema();
  arrow::FieldVector fields;
  for (int index : projection_) {
    fields.push_back(schema.field(index));
    take_columns_.push_back(schema.field(index)->name());
  }
  fields.push_back(arrow::field(kDistanceColumn, arrow::float32(), /*nullable=*/false));
  if (with_row_address_) {
    fields.push_back(arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false));
  }
  output_ = arrow::schema(std::move(fields));
  if (postfilter_ != nullptr) {
    for (const auto& name : postfilter_->referenced_columns()) {
      if (std::find(take_columns_.begin(), take_columns_.end(), name) == take_columns_.end()) {
        take_columns_.push_back(name);
      }
    }
  }
}

arrow::Result<std::shared_ptr<arrow::Table>> NearestResult::Materialize(
    const std::vector<index::ScoredRow>& rows, Explain* explain) const {
  if (rows.empty()) {
    ExplainPostfilter(0, 0, explain);
    return arrow::Table::MakeEmpty(output_);
  }
  std::vector<uint64_t> addresses;
  arrow::FloatBuilder distances;
  ARROW_RETURN_NOT_OK(distances.Reserve(static_cast<int64_t>(rows.size())));
  for (const auto& row : rows) {
    addresses.push_back(row.row_address);
    distances.UnsafeAppend(row.distance);
  }
  ARROW_ASSIGN_OR_RAISE(auto distance_array, distances.Finish());
  arrow::UInt64Builder address_builder;
  ARROW_RETURN_NOT_OK(address_builder.AppendValues(addresses));
  ARROW_ASSIGN_OR_RAISE(auto address_array, address_builder.Finish());

  ARROW_ASSIGN_OR_RAISE(auto table, snapshot_.Take(addresses, take_columns_));
  ARROW_ASSIGN_OR_RAISE(auto taken, table->CombineChunksToBatch());
  const auto& schema = *snapshot_.schema();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int index : projection_) {
    columns.push_back(taken->GetColumnByName(schema.field(index)->name()));
  }
  columns.push_back(distance_array);
  if (with_row_address_) columns.push_back(address_array);
  auto batch = arrow::RecordBatch::Make(output_, static_cast<int64_t>(rows.size()), columns);
  if (postfilter_ != nullptr) {
    ARROW_ASSIGN_OR_RAISE(auto selected, postfilter_->Select(*taken));
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, selected));
    batch = kept.record_batch();
    ExplainPostfilter(rows.size(), static_cast<size_t>(batch->num_rows()), explain);
  }
  return arrow::Table::FromRecordBatches(output_, {batch});
}

void NearestResult::ExplainPostfilter(size_t searched, size_t kept, Explain* explain) const {
  if (explain != nullptr && postfilter_ != nullptr) {
    explain->Add(DescribePostfilter(*postfilter_, searched, kept));
  }
}

}  // namespace tessera::query
