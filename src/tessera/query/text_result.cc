#include "tessera/query/text_result.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <utility>

#include "tessera/dataset/options.h"
#include "tessera/query/nearest_explain.h"
#include "tessera/query/text_search.h"

namespace tessera::query {

namespace {

void AddColumn(std::vector<std::string>& columns, const std::string& name) {
  if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
}

}  // namespace

TextResult::TextResult(const Snapshot& snapshot, std::vector<int> projection, bool with_row_address,
                       std::shared_ptr<const expr::Filter> postfilter, std::string highlighted,
                       Highlighter highlighter)
    : snapshot_(snapshot),
      projection_(std::move(projection)),
      with_row_address_(with_row_address),
      postfilter_(std::move(postfilter)),
      highlighted_(std::move(highlighted)),
      highlighter_(std::move(highlighter)) {
  const auto& schema = *snapshot_.dataset().schema();
  arrow::FieldVector fields;
  for (int index : projection_) {
    fields.push_back(schema.field(index));
    take_columns_.push_back(schema.field(index)->name());
  }
  fields.push_back(arrow::field(kScoreColumn, arrow::float32(), /*nullable=*/false));
  if (highlighter_) {
    fields.push_back(arrow::field(kHighlightColumn, arrow::utf8()));
    AddColumn(take_columns_, highlighted_);
  }
  if (with_row_address_) {
    fields.push_back(arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false));
  }
  output_ = arrow::schema(std::move(fields));
  if (postfilter_ != nullptr) {
    for (const auto& name : postfilter_->referenced_columns()) AddColumn(take_columns_, name);
  }
}

arrow::Result<std::shared_ptr<arrow::Table>> TextResult::Materialize(
    const std::vector<ScoredDocument>& rows, Explain* explain) const {
  if (rows.empty()) {
    if (explain != nullptr && postfilter_ != nullptr) {
      explain->Add(DescribePostfilter(*postfilter_, 0, 0));
    }
    return arrow::Table::MakeEmpty(output_);
  }
  std::vector<uint64_t> addresses;
  arrow::FloatBuilder scores;
  ARROW_RETURN_NOT_OK(scores.Reserve(static_cast<int64_t>(rows.size())));
  for (const auto& row : rows) {
    addresses.push_back(row.row_address);
    scores.UnsafeAppend(static_cast<float>(row.score));
  }
  ARROW_ASSIGN_OR_RAISE(auto score_array, scores.Finish());
  arrow::UInt64Builder address_builder;
  ARROW_RETURN_NOT_OK(address_builder.AppendValues(addresses));
  ARROW_ASSIGN_OR_RAISE(auto address_array, address_builder.Finish());

  std::shared_ptr<arrow::RecordBatch> taken;
  if (!take_columns_.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto table, snapshot_.Take(addresses, take_columns_));
    ARROW_ASSIGN_OR_RAISE(taken, table->CombineChunksToBatch());
  }
  const auto& schema = *snapshot_.dataset().schema();
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int index : projection_) {
    columns.push_back(taken->GetColumnByName(schema.field(index)->name()));
  }
  columns.push_back(score_array);
  if (highlighter_) {
    ARROW_ASSIGN_OR_RAISE(auto highlights, highlighter_(*taken->GetColumnByName(highlighted_)));
    columns.push_back(std::move(highlights));
  }
  if (with_row_address_) columns.push_back(address_array);
  auto batch = arrow::RecordBatch::Make(output_, static_cast<int64_t>(rows.size()), columns);
  if (postfilter_ != nullptr) {
    ARROW_ASSIGN_OR_RAISE(auto selected, postfilter_->Select(*taken));
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, selected));
    batch = kept.record_batch();
    if (explain != nullptr) {
      explain->Add(
          DescribePostfilter(*postfilter_, rows.size(), static_cast<size_t>(batch->num_rows())));
    }
  }
  return arrow::Table::FromRecordBatches(output_, {batch});
}

}  // namespace tessera::query
