#include "tessera/index/scalar/zonemap_values.h"

#include "tessera/status.h"

namespace tessera::index::scalar {

std::string_view ZoneMapSupportedTypes() {
  return "int8, int16, int32, int64, uint8, uint16, uint32, uint64, halffloat, float, double, "
         "string, large_string, date32, timestamp";
}

arrow::Result<std::shared_ptr<arrow::DataType>> ZoneMapStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type) {
  switch (column_type->id()) {
    case arrow::Type::HALF_FLOAT:
      return arrow::float32();  // exact, and Arrow compares float32
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
      return column_type;
    default:
      return Unsupported("a ZONEMAP index cannot be built on column '", column, "' of type ",
                         column_type->ToString(), "; ZONEMAP indexes columns of type ",
                         ZoneMapSupportedTypes());
  }
}

}  // namespace tessera::index::scalar
