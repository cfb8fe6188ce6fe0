#include "tessera/index/vector/vector_column.h"

#include <arrow/util/float16.h>

#include "tessera/status.h"

namespace tessera::index::vector {

arrow::Result<int> VectorColumnDimension(const arrow::Field& column, std::string_view family) {
  const auto& type = *column.type();
  if (type.id() == arrow::Type::FIXED_SIZE_LIST) {
    const auto& list = static_cast<const arrow::FixedSizeListType&>(type);
    const auto value = list.value_type()->id();
    if ((value == arrow::Type::FLOAT || value == arrow::Type::HALF_FLOAT) && list.list_size() > 0) {
      return list.list_size();
    }
  }
  return Unsupported(family, " indexes vector columns of type fixed_size_list<float32|float16>; ",
                     "column '", column.name(), "' has type ", type.ToString());
}

arrow::Result<VectorRows> VectorRows::Make(std::shared_ptr<arrow::Array> array) {
  if (array == nullptr || array->type_id() != arrow::Type::FIXED_SIZE_LIST) {
    return InvalidArgument("a vector column must be a fixed_size_list<float32|float16>, got ",
                           array == nullptr ? "nothing" : array->type()->ToString());
  }
  const auto& list = static_cast<const arrow::FixedSizeListArray&>(*array);
  const auto& child = *list.values();
  VectorRows rows;
  rows.length_ = list.length();
  rows.dim_ = list.list_type()->list_size();
  rows.has_element_nulls_ = child.null_count() > 0;
  if (rows.dim_ <= 0) return InvalidArgument("a vector column must have a positive dimension");
  const int64_t first = list.length() == 0 ? 0 : list.value_offset(0);
  if (child.length() < first + rows.length_ * rows.dim_) {
    return InvalidArgument("a vector column's values are shorter than its rows");
  }
  if (child.type_id() == arrow::Type::FLOAT) {
    rows.values_ = static_cast<const arrow::FloatArray&>(child).raw_values() + first;
  } else if (child.type_id() == arrow::Type::HALF_FLOAT) {
    const uint16_t* bits = static_cast<const arrow::HalfFloatArray&>(child).raw_values() + first;
    rows.converted_.resize(static_cast<size_t>(rows.length_ * rows.dim_));
    for (size_t i = 0; i < rows.converted_.size(); ++i) {
      rows.converted_[i] = arrow::util::Float16::FromBits(bits[i]).ToFloat();
    }
    rows.values_ = rows.converted_.data();
  } else {
    return InvalidArgument("a vector column must be a fixed_size_list<float32|float16>, got ",
                           array->type()->ToString());
  }
  rows.array_ = std::move(array);
  return rows;
}

bool VectorRows::IsNull(int64_t row) const {
  if (array_->IsNull(row)) return true;
  if (!has_element_nulls_) return false;
  const auto& list = static_cast<const arrow::FixedSizeListArray&>(*array_);
  const int64_t start = list.value_offset(row);
  for (int i = 0; i < dim_; ++i) {
    if (list.values()->IsNull(start + i)) return true;
  }
  return false;
}

}  // namespace tessera::index::vector
