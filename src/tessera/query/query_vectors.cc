#include "tessera/query/query_vectors.h"

#include <arrow/compute/cast.h>

#include "tessera/status.h"

namespace tessera::query {

bool IsVectorLike(const arrow::DataType& type) {
  return type.id() == arrow::Type::FIXED_SIZE_LIST || type.id() == arrow::Type::LIST ||
         type.id() == arrow::Type::LARGE_LIST;
}

arrow::Status ForEachVector(
    const arrow::Array& column, const std::string& column_name,
    const std::function<std::string(int64_t)>& row_name,
    const std::function<arrow::Status(int64_t row, const float* values, int64_t length)>& visit) {
  if (!IsVectorLike(*column.type())) {
    return InvalidArgument("column '", column_name, "' is not a vector column: its type is ",
                           column.type()->ToString());
  }
  auto cast = arrow::compute::Cast(column, arrow::list(arrow::float32()));
  if (!cast.ok()) {
    return InvalidArgument("column '", column_name,
                           "' does not hold numbers: ", cast.status().message());
  }
  const auto& lists = static_cast<const arrow::ListArray&>(**cast);
  const auto& values = static_cast<const arrow::FloatArray&>(*lists.values());
  for (int64_t row = 0; row < lists.length(); ++row) {
    if (lists.IsNull(row)) {
      return InvalidArgument(row_name(row), " has no vector in column '", column_name, "'");
    }
    const int64_t begin = lists.value_offset(row);
    const int64_t length = lists.value_length(row);
    if (values.null_count() > 0) {
      for (int64_t i = begin; i < begin + length; ++i) {
        if (values.IsNull(i)) {
          return InvalidArgument(row_name(row), " has a null value in its vector in column '",
                                 column_name, "'");
        }
      }
    }
    ARROW_RETURN_NOT_OK(visit(row, values.raw_values() + begin, length));
  }
  return arrow::Status::OK();
}

}  // namespace tessera::query
