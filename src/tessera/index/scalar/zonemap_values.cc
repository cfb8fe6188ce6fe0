#include "tessera/index/scalar/zonemap_values.h"

#include <arrow/type_traits.h>

#include "tessera/status.h"

namespace tessera::index::scalar {

std::string_view ZoneMapSupportedTypes() {
  return "int8, int16, int32, int64, uint8, uint16, uint32, uint64, halffloat, float, double, "
         "string, large_string, date32, timestamp";
}

arrow::Result<std::shared_ptr<arrow::DataType>> ZoneMapStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type) {
  const arrow::Type::type id = column_type->id();
  if (id == arrow::Type::HALF_FLOAT) return arrow::float32();  // exact, and Arrow compares float32
  if (arrow::is_integer(id) || arrow::is_floating(id) || arrow::is_string(id) ||
      id == arrow::Type::DATE32 || id == arrow::Type::TIMESTAMP) {
    return column_type;
  }
  return Unsupported("a ZONEMAP index cannot be built on column '", column, "' of type ",
                     column_type->ToString(), "; ZONEMAP indexes columns of type ",
                     ZoneMapSupportedTypes());
}

}  // namespace tessera::index::scalar
