// Parquet files as other writers make them, for the tests of external files and file input:
// with or without the Arrow schema stored (pyarrow stores it; Spark does not, so a vector comes
// back as a plain list), in row groups of a chosen size.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>

namespace tessera::testing {

struct ParquetLayout {
  int64_t row_group_rows = 1 << 20;
  // Store the Arrow schema (fixed_size_list stays fixed_size_list, as pyarrow writes it).
  bool store_schema = true;
  // Write column chunks uncompressed (so rewrites of equal values keep the file's size).
  bool uncompressed = false;
  // Write the page index (Spark does, and pyarrow when asked), so that readers can find the
  // page holding a row.
  bool page_index = false;
  // Rows per data page at most (0: the writer's default).
  int64_t max_rows_per_page = 0;
  // Dictionary-encode columns (the writers' default; a chunk then starts with a dictionary page,
  // which a read of a few pages must read too).
  bool dictionary = true;
};

// Writes `table` to `path`; fails the test (ADD_FAILURE) on error.
void WriteParquet(const std::string& path, const arrow::Table& table,
                  const ParquetLayout& layout = {});
void WriteParquet(const std::string& path, const std::shared_ptr<arrow::RecordBatch>& batch,
                  const ParquetLayout& layout = {});

// `batch` with its fixed_size_list column `name` turned into a list<value> column holding the
// same vectors (null rows stay null), as Spark writes embeddings.
std::shared_ptr<arrow::RecordBatch> VectorsAsLists(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                   const std::string& name);

}  // namespace tessera::testing
