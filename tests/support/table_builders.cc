#include "support/table_builders.h"

#include <arrow/util/bit_util.h>

#include <stdexcept>

#include "support/checked.h"

namespace tessera::testing {

std::shared_ptr<arrow::Schema> SimpleSchema(int dim) {
  return arrow::schema({arrow::field("id", arrow::int64()), arrow::field("value", arrow::float64()),
                        arrow::field("name", arrow::utf8()),
                        arrow::field("vector", arrow::fixed_size_list(arrow::float32(), dim))});
}

std::shared_ptr<arrow::RecordBatch> SimpleBatch(int64_t first_id, int64_t rows, int dim) {
  arrow::Int64Builder ids;
  arrow::DoubleBuilder values;
  arrow::StringBuilder names;
  auto floats = std::make_shared<arrow::FloatBuilder>();
  arrow::FixedSizeListBuilder vectors(arrow::default_memory_pool(), floats, dim);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t id = first_id + i;
    Check(ids.Append(id));
    Check(id % 7 == 3 ? values.AppendNull() : values.Append(static_cast<double>(id) * 0.5));
    Check(id % 11 == 4 ? names.AppendNull() : names.Append("name" + std::to_string(id % 5)));
    Check(vectors.Append());
    for (int d = 0; d < dim; ++d) Check(floats->Append(static_cast<float>(id + d)));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(4);
  Check(ids.Finish(&columns[0]));
  Check(values.Finish(&columns[1]));
  Check(names.Finish(&columns[2]));
  Check(vectors.Finish(&columns[3]));
  return arrow::RecordBatch::Make(SimpleSchema(dim), rows, columns);
}

std::shared_ptr<arrow::RecordBatch> SimpleBatchWithNullVectors(int64_t first_id, int64_t rows,
                                                               int dim) {
  auto batch = SimpleBatch(first_id, rows, dim);
  const int position = batch->schema()->GetFieldIndex("vector");
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*batch->column(position));
  auto validity = arrow::AllocateEmptyBitmap(rows).ValueOrDie();
  int64_t nulls = 0;
  for (int64_t row = 0; row < rows; ++row) {
    if ((first_id + row) % 9 == 5) {
      ++nulls;
    } else {
      arrow::bit_util::SetBit(validity->mutable_data(), row);
    }
  }
  auto with_nulls = std::make_shared<arrow::FixedSizeListArray>(
      vectors.type(), rows, vectors.values(), std::move(validity), nulls);
  return batch->SetColumn(position, batch->schema()->field(position), with_nulls).ValueOrDie();
}

std::shared_ptr<arrow::RecordBatchReader> SimpleReader(int64_t first_id, int64_t rows, int dim,
                                                       int64_t batch_rows) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int64_t start = 0; start < rows; start += batch_rows) {
    batches.push_back(SimpleBatch(first_id + start, std::min(batch_rows, rows - start), dim));
  }
  return *arrow::RecordBatchReader::Make(batches, SimpleSchema(dim));
}

std::vector<int64_t> Int64Column(const arrow::Table& table, const std::string& name) {
  std::vector<int64_t> values;
  auto column = table.GetColumnByName(name);
  if (column == nullptr) throw std::runtime_error("no column " + name);
  for (const auto& chunk : column->chunks()) {
    const auto& array = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < array.length(); ++i) {
      values.push_back(array.IsNull(i) ? INT64_MIN : array.Value(i));
    }
  }
  return values;
}

std::shared_ptr<arrow::RecordBatchReader> ReaderOf(std::shared_ptr<arrow::RecordBatch> batch) {
  auto schema = batch->schema();
  return *arrow::RecordBatchReader::Make({std::move(batch)}, schema);
}

}  // namespace tessera::testing
