#include "tessera/index/scalar/btree_key.h"

#include <arrow/type_traits.h>

namespace tessera::index::scalar {

std::string_view BtreeSupportedTypes() {
  return "int8, int16, int32, int64, uint8, uint16, uint32, uint64, halffloat, float, double, "
         "bool, string, large_string, binary, large_binary, date32, timestamp";
}

arrow::Result<std::shared_ptr<arrow::DataType>> BtreeStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type) {
  if (column_type->id() == arrow::Type::HALF_FLOAT) return arrow::float32();
  if (DomainOf(*column_type).ok()) return column_type;
  return Unsupported("a BTREE index cannot be built on column '", column, "' of type ",
                     column_type->ToString(), "; BTREE indexes columns of type ",
                     BtreeSupportedTypes());
}

arrow::Result<KeyDomain> DomainOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
      return KeyDomain::kSigned;
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::BOOL:
      return KeyDomain::kUnsigned;
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
      return KeyDomain::kFloat;
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return KeyDomain::kBinary;
    default:
      return Corrupt("no BTREE key domain holds values of type ", type.ToString());
  }
}

bool QueryTypeMatches(const arrow::DataType& value_type, const arrow::DataType& storage) {
  if (arrow::is_base_binary_like(value_type.id()) && arrow::is_base_binary_like(storage.id()))
    return true;
  if (value_type.id() == arrow::Type::HALF_FLOAT && storage.id() == arrow::Type::FLOAT) return true;
  if (value_type.id() != storage.id()) return false;
  if (storage.id() == arrow::Type::TIMESTAMP) {
    return static_cast<const arrow::TimestampType&>(value_type).unit() ==
           static_cast<const arrow::TimestampType&>(storage).unit();
  }
  return true;
}

}  // namespace tessera::index::scalar
