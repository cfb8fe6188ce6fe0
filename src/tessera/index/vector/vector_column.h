// A vector column (fixed_size_list<float32|float16>[dim]) seen as rows of float32.
//
// Every distance tessera reports is computed on float32 (docs/design.md, "Query semantics").
// float16 elements convert to float32 exactly, so an index segment, which stores float32, and the
// exact scan of a float16 column see bit-identical vectors. A row is null when the list is null or
// when any of its elements is null: such a row has no vector, is never indexed and never returned.
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <string_view>
#include <vector>

namespace tessera::index::vector {

// The dimension of a vector column; Unsupported, naming the column and `family`, for any other
// type.
arrow::Result<int> VectorColumnDimension(const arrow::Field& column, std::string_view family);

class VectorRows {
 public:
  // `array` must be a fixed_size_list<float32|float16> (InvalidArgument otherwise). float32
  // rows are read in place; float16 rows are converted once, here.
  static arrow::Result<VectorRows> Make(std::shared_ptr<arrow::Array> array);

  VectorRows() = default;
  // Move-only: values_ may point into converted_, whose buffer a move keeps but a copy does not.
  VectorRows(VectorRows&&) = default;
  VectorRows& operator=(VectorRows&&) = default;
  VectorRows(const VectorRows&) = delete;
  VectorRows& operator=(const VectorRows&) = delete;

  int64_t size() const { return length_; }
  int dim() const { return dim_; }
  bool IsNull(int64_t row) const;
  // dim() floats; meaningless for a null row.
  const float* Row(int64_t row) const { return values_ + row * dim_; }

 private:
  std::shared_ptr<arrow::Array> array_;  // keeps the float32 values alive
  std::vector<float> converted_;         // float16 columns only
  const float* values_ = nullptr;        // row 0 of the array
  int64_t length_ = 0;
  int dim_ = 0;
  bool has_element_nulls_ = false;
};

}  // namespace tessera::index::vector
