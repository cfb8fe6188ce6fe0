#include "tessera/expr/types.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tessera::expr {

namespace {

bool IsListElementSupported(const arrow::DataType& element) {
  const TypeFamily family = FamilyOf(element);
  return family == TypeFamily::kInteger || family == TypeFamily::kString;
}

int BitWidthOf(const arrow::DataType& type) {
  return static_cast<const arrow::FixedWidthType&>(type).bit_width();
}

std::shared_ptr<arrow::DataType> IntegerOf(bool is_signed, int bits) {
  switch (bits) {
    case 8:
      return is_signed ? arrow::int8() : arrow::uint8();
    case 16:
      return is_signed ? arrow::int16() : arrow::uint16();
    case 32:
      return is_signed ? arrow::int32() : arrow::uint32();
    default:
      return is_signed ? arrow::int64() : arrow::uint64();
  }
}

std::shared_ptr<arrow::DataType> CommonInteger(const arrow::DataType& left,
                                               const arrow::DataType& right) {
  const bool left_signed = IsSignedInteger(left);
  const bool right_signed = IsSignedInteger(right);
  const int left_bits = BitWidthOf(left);
  const int right_bits = BitWidthOf(right);
  if (left_signed == right_signed) return IntegerOf(left_signed, std::max(left_bits, right_bits));
  const int signed_bits = left_signed ? left_bits : right_bits;
  const int unsigned_bits = left_signed ? right_bits : left_bits;
  if (signed_bits > unsigned_bits) return IntegerOf(true, signed_bits);
  // Every uint64 and every int64 fit in 20 decimal digits; no integer type holds both.
  if (unsigned_bits == 64) return arrow::decimal128(20, 0);
  return IntegerOf(true, unsigned_bits * 2);
}

// Seconds for date32 (a day is a whole number of seconds), milliseconds for date64.
arrow::TimeUnit::type UnitOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::DATE32:
      return arrow::TimeUnit::SECOND;
    case arrow::Type::DATE64:
      return arrow::TimeUnit::MILLI;
    default:
      return static_cast<const arrow::TimestampType&>(type).unit();
  }
}

}  // namespace

TypeFamily FamilyOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
      return TypeFamily::kInteger;
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
      return TypeFamily::kFloat;
    case arrow::Type::BOOL:
      return TypeFamily::kBoolean;
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return TypeFamily::kString;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return TypeFamily::kBinary;
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
    case arrow::Type::TIMESTAMP:
      return TypeFamily::kTemporal;
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
      return IsListElementSupported(*ListElementType(type)) ? TypeFamily::kList
                                                            : TypeFamily::kOther;
    case arrow::Type::FIXED_SIZE_LIST:
      return TypeFamily::kVector;
    default:
      return TypeFamily::kOther;
  }
}

bool IsSignedInteger(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
      return true;
    default:
      return false;
  }
}

const std::shared_ptr<arrow::DataType>& ListElementType(const arrow::DataType& type) {
  return static_cast<const arrow::BaseListType&>(type).value_type();
}

arrow::Result<std::shared_ptr<arrow::DataType>> ComparisonType(
    const std::shared_ptr<arrow::DataType>& left, const std::shared_ptr<arrow::DataType>& right) {
  const TypeFamily left_family = FamilyOf(*left);
  const TypeFamily right_family = FamilyOf(*right);
  const bool numeric = (left_family == TypeFamily::kInteger || left_family == TypeFamily::kFloat) &&
                       (right_family == TypeFamily::kInteger || right_family == TypeFamily::kFloat);
  if (!numeric && left_family != right_family) {
    return arrow::Status::Invalid("different type families");
  }
  if (left_family == TypeFamily::kList || left_family == TypeFamily::kVector ||
      left_family == TypeFamily::kOther) {
    return arrow::Status::Invalid("not comparable");
  }
  if (left->Equals(*right)) return KernelType(left);
  if (numeric) {
    if (left_family == TypeFamily::kInteger && right_family == TypeFamily::kInteger) {
      return CommonInteger(*left, *right);
    }
    if (left_family == TypeFamily::kFloat && right_family == TypeFamily::kFloat) {
      const bool any_double =
          left->id() == arrow::Type::DOUBLE || right->id() == arrow::Type::DOUBLE;
      return any_double ? arrow::float64() : arrow::float32();
    }
    return arrow::float64();
  }
  switch (left_family) {
    case TypeFamily::kString:
      return arrow::large_utf8();
    case TypeFamily::kBinary:
      return arrow::large_binary();
    case TypeFamily::kTemporal: {
      if (left->id() != arrow::Type::TIMESTAMP && right->id() != arrow::Type::TIMESTAMP) {
        return arrow::date64();  // date32 vs date64
      }
      std::string zone;
      std::optional<bool> zoned;
      for (const auto* type : {left.get(), right.get()}) {
        if (type->id() != arrow::Type::TIMESTAMP) continue;
        const auto& timezone = static_cast<const arrow::TimestampType&>(*type).timezone();
        if (zoned && *zoned != !timezone.empty()) {
          return arrow::Status::Invalid("timestamps with and without time zone");
        }
        zoned = !timezone.empty();
        if (zone.empty()) zone = timezone;
      }
      // TimeUnit values grow with precision: SECOND < MILLI < MICRO < NANO.
      const auto unit = std::max(UnitOf(*left), UnitOf(*right));
      return arrow::timestamp(unit, zone);
    }
    default:
      return KernelType(left);  // booleans
  }
}

std::shared_ptr<arrow::DataType> KernelType(const std::shared_ptr<arrow::DataType>& type) {
  return type->id() == arrow::Type::HALF_FLOAT ? arrow::float32() : type;
}

}  // namespace tessera::expr
