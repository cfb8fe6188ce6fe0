#include "tessera/dataset/external_columns.h"

#include <arrow/buffer.h>

#include <cstring>
#include <string>
#include <vector>

#include "tessera/status.h"

namespace tessera::dataset {

namespace {

const arrow::DataType* ListValueType(const arrow::DataType& type) {
  if (type.id() == arrow::Type::LIST || type.id() == arrow::Type::LARGE_LIST) {
    return static_cast<const arrow::BaseListType&>(type).value_type().get();
  }
  return nullptr;
}

template <typename ListArrayType>
arrow::Result<std::shared_ptr<arrow::Array>> ListAsVectors(
    const ListArrayType& list, const std::shared_ptr<arrow::DataType>& dataset_type,
    const std::string& path, const std::string& name, int64_t first_row, bool bad_as_null,
    int64_t* bad_rows) {
  const auto& vector_type = static_cast<const arrow::FixedSizeListType&>(*dataset_type);
  const int64_t dimension = vector_type.list_size();
  const arrow::Array& values = *list.values();
  const int64_t rows = list.length();
  // The defect of a present row, or empty when it is a vector of `dimension` values.
  const auto defect = [&](int64_t row) -> std::string {
    const int64_t length = list.value_length(row);
    if (length != dimension) return Concat("holds ", length, length == 1 ? " value" : " values");
    if (values.null_count() != 0) {
      const int64_t offset = list.value_offset(row);
      for (int64_t i = offset; i < offset + dimension; ++i) {
        if (values.IsNull(i)) return Concat("holds a null at position ", i - offset);
      }
    }
    return {};
  };
  // Rows read as null: the list's null rows and, with bad_as_null, its bad ones.
  std::vector<bool> null_rows;
  int64_t nulls = list.null_count();
  bool contiguous = nulls == 0;
  const int64_t base = rows == 0 ? 0 : list.value_offset(0);
  for (int64_t row = 0; row < rows; ++row) {
    if (list.IsNull(row)) continue;
    if (std::string bad = defect(row); !bad.empty()) {
      if (!bad_as_null) {
        return InvalidArgument("external file ", path, ": row ", first_row + row, " of column '",
                               name, "' ", bad, "; the dataset reads the column as vectors of ",
                               dimension,
                               " values. Fix the file (or register it again after fixing, or "
                               "with --bad-vectors null to read such rows as null vectors)");
      }
      if (null_rows.empty()) null_rows.assign(static_cast<size_t>(rows), false);
      null_rows[static_cast<size_t>(row)] = true;
      ++nulls;
      if (bad_rows != nullptr) ++*bad_rows;
      contiguous = false;
      continue;
    }
    contiguous = contiguous && list.value_offset(row) == base + row * dimension;
  }
  if (contiguous) {
    // Every row present and laid end to end: the list's values are the vectors' values.
    return std::make_shared<arrow::FixedSizeListArray>(dataset_type, rows,
                                                       values.Slice(base, rows * dimension));
  }
  const auto is_null = [&](int64_t row) {
    return list.IsNull(row) || (!null_rows.empty() && null_rows[static_cast<size_t>(row)]);
  };
  // Null rows (whose lists may be empty) or gaps: copy each vector into place, nulls zeroed.
  const int width = vector_type.value_type()->byte_width();
  const int64_t row_bytes = dimension * width;
  ARROW_ASSIGN_OR_RAISE(auto buffer, arrow::AllocateBuffer(rows * row_bytes));
  std::memset(buffer->mutable_data(), 0, static_cast<size_t>(buffer->size()));
  const uint8_t* source =
      values.length() == 0 ? nullptr : values.data()->buffers[1]->data() + values.offset() * width;
  for (int64_t row = 0; row < rows; ++row) {
    if (is_null(row)) continue;
    std::memcpy(buffer->mutable_data() + row * row_bytes, source + list.value_offset(row) * width,
                static_cast<size_t>(row_bytes));
  }
  auto flat = arrow::MakeArray(arrow::ArrayData::Make(vector_type.value_type(), rows * dimension,
                                                      {nullptr, std::move(buffer)}, 0));
  std::shared_ptr<arrow::Buffer> validity;
  if (nulls != 0) {
    ARROW_ASSIGN_OR_RAISE(validity, arrow::AllocateEmptyBitmap(rows));
    for (int64_t row = 0; row < rows; ++row) {
      if (!is_null(row)) arrow::bit_util::SetBit(validity->mutable_data(), row);
    }
  }
  return std::make_shared<arrow::FixedSizeListArray>(dataset_type, rows, std::move(flat),
                                                     std::move(validity), nulls);
}

}  // namespace

bool ExternalTypeAccepted(const arrow::DataType& file_type, const arrow::DataType& dataset_type) {
  if (file_type.Equals(dataset_type)) return true;
  if (dataset_type.id() != arrow::Type::FIXED_SIZE_LIST) return false;
  const arrow::DataType* values = ListValueType(file_type);
  return values != nullptr &&
         values->Equals(*static_cast<const arrow::FixedSizeListType&>(dataset_type).value_type());
}

std::shared_ptr<arrow::Schema> ConformExternalSchema(const arrow::Schema& file_schema,
                                                     const arrow::Schema& dataset_schema) {
  arrow::FieldVector fields;
  for (const auto& field : file_schema.fields()) {
    auto dataset_field = dataset_schema.GetFieldByName(field->name());
    if (dataset_field != nullptr && !field->type()->Equals(*dataset_field->type()) &&
        ExternalTypeAccepted(*field->type(), *dataset_field->type())) {
      fields.push_back(field->WithType(dataset_field->type()));
    } else {
      fields.push_back(field);
    }
  }
  return arrow::schema(std::move(fields));
}

arrow::Result<std::shared_ptr<arrow::Array>> ConformExternalColumn(
    const std::shared_ptr<arrow::Array>& column,
    const std::shared_ptr<arrow::DataType>& dataset_type, const std::string& path,
    const std::string& name, int64_t first_row, bool bad_as_null, int64_t* bad_rows) {
  if (column->type()->Equals(*dataset_type)) return column;
  if (!ExternalTypeAccepted(*column->type(), *dataset_type)) {
    return InvalidArgument("external file ", path, ": column '", name, "' holds ",
                           column->type()->ToString(), " where the dataset has ",
                           dataset_type->ToString());
  }
  if (column->type_id() == arrow::Type::LIST) {
    return ListAsVectors(static_cast<const arrow::ListArray&>(*column), dataset_type, path, name,
                         first_row, bad_as_null, bad_rows);
  }
  return ListAsVectors(static_cast<const arrow::LargeListArray&>(*column), dataset_type, path, name,
                       first_row, bad_as_null, bad_rows);
}

}  // namespace tessera::dataset
