#include "tessera/query/knn_join.h"

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include <algorithm>
#include <set>

#include "tessera/dataset/options.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/query/query_vectors.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::query {

namespace {

// Rows [first, first + count) of the left vector column as count × dim row-major floats.
// `row_number`: the left input's number of row `first`, for messages.
arrow::Status AppendLeftVectors(const std::shared_ptr<arrow::Array>& column, int64_t first,
                                int64_t count, int dim, int64_t row_number, const std::string& name,
                                std::vector<float>* flat) {
  return ForEachVector(
      *column->Slice(first, count), name,
      [&](int64_t row) { return Concat("left row ", row_number + row); },
      [&](int64_t row, const float* values, int64_t length) {
        if (length != dim) {
          return InvalidArgument("left row ", row_number + row, " has a vector of ", length,
                                 " values in column '", name,
                                 "'; the right column holds vectors of ", dim);
        }
        flat->insert(flat->end(), values, values + length);
        return arrow::Status::OK();
      });
}

}  // namespace

arrow::Result<KnnJoinResult> KnnJoin(
    arrow::RecordBatchReader& left, std::shared_ptr<const Snapshot> right,
    const KnnJoinOptions& options,
    const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>& emit) {
  if (options.batch_rows < 1) return InvalidArgument("the join's batch rows must be at least 1");
  const auto left_schema = left.schema();
  const int left_vector = left_schema->GetFieldIndex(options.left_column);
  if (left_vector < 0) {
    return InvalidArgument("the left input has no column '", options.left_column,
                           "'; its columns: ", left_schema->ToString());
  }
  if (!IsVectorLike(*left_schema->field(left_vector)->type())) {
    return InvalidArgument("left column '", options.left_column, "' is not a vector column: ",
                           left_schema->field(left_vector)->type()->ToString());
  }
  std::vector<int> carried;
  if (options.left_columns.empty()) {
    for (int i = 0; i < left_schema->num_fields(); ++i) {
      if (i != left_vector) carried.push_back(i);
    }
  } else {
    for (const auto& name : options.left_columns) {
      const int position = left_schema->GetFieldIndex(name);
      if (position < 0) return InvalidArgument("the left input has no column '", name, "'");
      carried.push_back(position);
    }
  }
  NearestOptions search = options.right;
  search.prefilter = !search.filter.empty();
  search.offset = 0;
  search.with_row_address = false;
  std::vector<std::string> right_columns = search.columns;
  if (right_columns.empty()) {
    for (const auto& field : right->schema()->fields()) {
      if (field->name() != search.column) right_columns.push_back(field->name());
    }
  }
  for (const auto& name : right_columns) {
    if (right->schema()->GetFieldIndex(name) < 0) {
      return InvalidArgument("the right dataset ", right->dataset().uri(), " has no column '", name,
                             "'");
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto prepared, PreparedNearest::Make(right, search));
  const int dim = prepared->dim();

  // The output schema.
  std::set<std::string> left_names;
  arrow::FieldVector fields;
  for (int position : carried) {
    fields.push_back(left_schema->field(position));
    left_names.insert(left_schema->field(position)->name());
  }
  for (const auto& name : right_columns) {
    auto field = right->schema()->GetFieldByName(name);
    const bool clashes = left_names.count(name) > 0 || name == kDistanceColumn ||
                         name == kRankColumn || name == dataset::kRowAddressColumn;
    fields.push_back(clashes ? field->WithName("right_" + name) : field);
  }
  fields.push_back(arrow::field(kDistanceColumn, arrow::float32(), false));
  fields.push_back(arrow::field(kRankColumn, arrow::int32(), false));
  fields.push_back(arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false));
  const auto output_schema = arrow::schema(std::move(fields));

  util::BeginPhase("joining", 0, "rows");
  KnnJoinResult result;
  result.schema = output_schema;
  // Searches left rows [first, first + count) of `batch` as one batch and emits their rows.
  const auto join = [&](const std::shared_ptr<arrow::RecordBatch>& batch, int64_t first,
                        int64_t count) -> arrow::Status {
    std::vector<float> queries;
    queries.reserve(static_cast<size_t>(count * dim));
    ARROW_RETURN_NOT_OK(AppendLeftVectors(batch->column(left_vector), first, count, dim,
                                          result.left_rows, options.left_column, &queries));
    ARROW_ASSIGN_OR_RAISE(auto found, prepared->SearchBatch(queries.data(), count));

    // One take of the union of the batch's results.
    std::vector<uint64_t> addresses;
    for (const auto& rows : found) {
      for (const auto& row : rows) addresses.push_back(row.row_address);
    }
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    // No right column carried (the right dataset holds only its vectors): nothing to read.
    std::shared_ptr<arrow::RecordBatch> right_batch;
    if (!right_columns.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto right_rows, right->Take(addresses, right_columns));
      ARROW_ASSIGN_OR_RAISE(right_batch, right_rows->CombineChunksToBatch());
    }

    arrow::Int64Builder left_index;
    arrow::Int64Builder right_index;
    arrow::FloatBuilder distance;
    arrow::Int32Builder rank;
    arrow::UInt64Builder address;
    for (int64_t q = 0; q < count; ++q) {
      const auto& rows = found[static_cast<size_t>(q)];
      for (size_t r = 0; r < rows.size(); ++r) {
        const auto position =
            std::lower_bound(addresses.begin(), addresses.end(), rows[r].row_address) -
            addresses.begin();
        ARROW_RETURN_NOT_OK(left_index.Append(first + q));
        ARROW_RETURN_NOT_OK(right_index.Append(position));
        ARROW_RETURN_NOT_OK(distance.Append(rows[r].distance));
        ARROW_RETURN_NOT_OK(rank.Append(static_cast<int32_t>(r + 1)));
        ARROW_RETURN_NOT_OK(address.Append(rows[r].row_address));
      }
    }
    result.left_rows += count;
    ARROW_RETURN_NOT_OK(util::AdvanceProgress(static_cast<uint64_t>(count)));
    const int64_t output_rows = left_index.length();
    if (output_rows == 0) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto left_indices, left_index.Finish());
    ARROW_ASSIGN_OR_RAISE(auto right_indices, right_index.Finish());
    ARROW_ASSIGN_OR_RAISE(auto left_carried, batch->SelectColumns(carried));
    ARROW_ASSIGN_OR_RAISE(auto left_taken, arrow::compute::Take(left_carried, left_indices));
    std::vector<std::shared_ptr<arrow::Array>> columns = left_taken.record_batch()->columns();
    if (right_batch != nullptr) {
      ARROW_ASSIGN_OR_RAISE(auto right_taken, arrow::compute::Take(right_batch, right_indices));
      for (const auto& column : right_taken.record_batch()->columns()) columns.push_back(column);
    }
    for (arrow::ArrayBuilder* builder :
         std::initializer_list<arrow::ArrayBuilder*>{&distance, &rank, &address}) {
      ARROW_ASSIGN_OR_RAISE(auto column, builder->Finish());
      columns.push_back(std::move(column));
    }
    result.output_rows += output_rows;
    ARROW_RETURN_NOT_OK(
        emit(arrow::RecordBatch::Make(output_schema, output_rows, std::move(columns))));
    return arrow::Status::OK();
  };
  // Left batches are gathered into join batches of batch_rows rows whatever their own size.
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending;
  int64_t pending_rows = 0;
  const auto flush = [&](bool last) -> arrow::Status {
    if (pending_rows == 0) return arrow::Status::OK();
    std::shared_ptr<arrow::RecordBatch> combined = pending[0];
    if (pending.size() > 1) {
      ARROW_ASSIGN_OR_RAISE(combined, arrow::ConcatenateRecordBatches(pending));
    }
    pending.clear();
    int64_t first = 0;
    while (first < combined->num_rows() &&
           (last || combined->num_rows() - first >= options.batch_rows)) {
      const int64_t count = std::min(options.batch_rows, combined->num_rows() - first);
      ARROW_RETURN_NOT_OK(join(combined, first, count));
      first += count;
    }
    pending_rows = combined->num_rows() - first;
    if (pending_rows > 0) pending.push_back(combined->Slice(first));
    return arrow::Status::OK();
  };
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(left.ReadNext(&batch));
    if (batch == nullptr) break;
    if (batch->num_rows() == 0) continue;
    pending.push_back(batch);
    pending_rows += batch->num_rows();
    if (pending_rows >= options.batch_rows) ARROW_RETURN_NOT_OK(flush(/*last=*/false));
  }
  ARROW_RETURN_NOT_OK(flush(/*last=*/true));
  return result;
}

}  // namespace tessera::query
