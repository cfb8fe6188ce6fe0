// Rows with every kind of column a damaged data file can break: nullable integers, floats and
// strings, a free-text column, a list of strings and a vector column. Deterministic per seed.
//   id int64 (first_id, first_id + 1, ...), category utf8 ("c0".."c7", some null),
//   price float64 (0 .. 499.5, some null), text utf8 (three words), tags list<utf8>,
//   vector fixed_size_list<float32>[kMixedDim]
#pragma once

#include <arrow/record_batch.h>

#include <cstdint>
#include <memory>

namespace tessera::testing {

inline constexpr int kMixedDim = 8;

std::shared_ptr<arrow::RecordBatch> MixedRows(int64_t first_id, int64_t rows, uint32_t seed);

}  // namespace tessera::testing
