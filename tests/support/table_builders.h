// Small builders of Arrow data for tests: typed arrays, batches of the canonical test schema
// and readers over them.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::testing {

// id int64, value float64 (nullable), name string (nullable), vector fixed_size_list<float32>[dim]:
// row i has id = first_id + i, value = i * 0.5 (null when i % 7 == 3),
// name = "name<i % 5>" (null when i % 11 == 4), vector = [id, id + 1, ...].
std::shared_ptr<arrow::Schema> SimpleSchema(int dim = 4);
std::shared_ptr<arrow::RecordBatch> SimpleBatch(int64_t first_id, int64_t rows, int dim = 4);
// SimpleBatch with the vector of every row whose id % 9 == 5 null.
std::shared_ptr<arrow::RecordBatch> SimpleBatchWithNullVectors(int64_t first_id, int64_t rows,
                                                               int dim = 4);
std::shared_ptr<arrow::RecordBatchReader> SimpleReader(int64_t first_id, int64_t rows, int dim = 4,
                                                       int64_t batch_rows = 1000);

// The int64 values of column `name` of a table, in row order (nulls as INT64_MIN).
std::vector<int64_t> Int64Column(const arrow::Table& table, const std::string& name);

// A reader over one batch.
std::shared_ptr<arrow::RecordBatchReader> ReaderOf(std::shared_ptr<arrow::RecordBatch> batch);

}  // namespace tessera::testing
