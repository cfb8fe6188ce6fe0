// Datasets of the canonical test rows (table_builders.h: id, value, name, vector) split into
// fragments and indexed with BTREEs, and the collection of a streamed read, for the tests of the
// read path (tests/query/, tests/dataset/).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/dataset/dataset.h"
#include "tessera/index/params.h"

namespace tessera::testing {

// Write options giving fragments of `fragment_rows` rows and record batches of `batch_rows`.
dataset::WriteOptions FragmentsOf(uint64_t fragment_rows, uint64_t batch_rows = 256);

// A dataset at `uri` holding SimpleBatch rows with ids [0, rows) (vectors of dimension 2), in
// fragments of `fragment_rows` rows.
arrow::Result<std::shared_ptr<dataset::Dataset>> CreateSimpleDataset(const std::string& uri,
                                                                     int64_t rows,
                                                                     uint64_t fragment_rows);
// Appends SimpleBatch rows with ids [first_id, first_id + rows).
arrow::Result<std::shared_ptr<dataset::Dataset>> AppendSimpleRows(const dataset::Dataset& dataset,
                                                                  int64_t first_id, int64_t rows,
                                                                  uint64_t fragment_rows);
// Creates BTREE index `name` on `column`.
arrow::Result<std::shared_ptr<dataset::Dataset>> AddBtree(const dataset::Dataset& dataset,
                                                          const std::string& name,
                                                          const std::string& column,
                                                          index::Params params = {});

// Every batch of `reader`, as one table.
arrow::Result<std::shared_ptr<arrow::Table>> ReadAll(arrow::RecordBatchReader& reader);

}  // namespace tessera::testing
