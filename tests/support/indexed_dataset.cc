#include "support/indexed_dataset.h"

#include <vector>

#include "support/table_builders.h"
#include "tessera/index/lifecycle.h"

namespace tessera::testing {

namespace {
constexpr int kDimension = 2;
}  // namespace

dataset::WriteOptions FragmentsOf(uint64_t fragment_rows, uint64_t batch_rows) {
  dataset::WriteOptions options;
  options.max_rows_per_file = fragment_rows;
  options.rows_per_batch = batch_rows;
  return options;
}

arrow::Result<std::shared_ptr<dataset::Dataset>> CreateSimpleDataset(const std::string& uri,
                                                                     int64_t rows,
                                                                     uint64_t fragment_rows) {
  return dataset::Dataset::Create(uri, SimpleReader(0, rows, kDimension),
                                  FragmentsOf(fragment_rows));
}

arrow::Result<std::shared_ptr<dataset::Dataset>> AppendSimpleRows(const dataset::Dataset& dataset,
                                                                  int64_t first_id, int64_t rows,
                                                                  uint64_t fragment_rows) {
  return dataset.Append(SimpleReader(first_id, rows, kDimension), FragmentsOf(fragment_rows));
}

arrow::Result<std::shared_ptr<dataset::Dataset>> AddBtree(const dataset::Dataset& dataset,
                                                          const std::string& name,
                                                          const std::string& column,
                                                          index::Params params) {
  index::IndexSpec spec{name, column, "BTREE", std::move(params)};
  return index::CreateIndex(dataset, spec);
}

arrow::Result<std::shared_ptr<arrow::Table>> ReadAll(arrow::RecordBatchReader& reader) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (batch == nullptr) break;
    batches.push_back(std::move(batch));
  }
  return arrow::Table::FromRecordBatches(reader.schema(), batches);
}

}  // namespace tessera::testing
