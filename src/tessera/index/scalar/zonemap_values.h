// ZONEMAP values: how the values of a zone-mapped column are compared, as C++ keys that order
// exactly as the scan's comparisons do.
//
// The BTREE key domains (btree_key.h) cover integers, floats, strings, dates and timestamps;
// ZONEMAP adds decimal128, whose key is arrow::Decimal128 (the unscaled value: every value of one
// column has the column's scale, so unscaled order is value order). Zone minima and maxima are
// stored in the column's own type (float16 widened to float32, exactly), so zone files are
// self-describing.
#pragma once

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/scalar.h>
#include <arrow/util/decimal.h>

#include <memory>
#include <string_view>
#include <type_traits>

#include "tessera/index/scalar/btree_key.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

enum class ZoneMapDomain { kSigned, kUnsigned, kFloat, kBinary, kDecimal };

template <typename Key>
constexpr bool kIsDecimalKey = std::is_same_v<Key, arrow::Decimal128>;

// The type zone minima and maxima of a column of `column_type` are stored as; Unsupported
// (naming `column` and the accepted types) for a type ZONEMAP cannot index.
arrow::Result<std::shared_ptr<arrow::DataType>> ZoneMapStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type);
std::string_view ZoneMapSupportedTypes();

// The domain of a storage type; Corrupt for a type no ZONEMAP stores.
arrow::Result<ZoneMapDomain> ZoneMapDomainOf(const arrow::DataType& storage);

// Whether a query value of `value_type` may be compared with values stored as `storage`
// (BTREE's rule; decimals: the same precision and scale).
bool ZoneMapQueryTypeMatches(const arrow::DataType& value_type, const arrow::DataType& storage);

// Calls on_value(i, key) for each valid element and on_null(i) for each null one.
template <typename Key, typename OnValue, typename OnNull>
arrow::Status ForEachZoneValue(const arrow::Array& array, OnValue&& on_value, OnNull&& on_null) {
  if constexpr (kIsDecimalKey<Key>) {
    if (array.type_id() != arrow::Type::DECIMAL128) {
      return Corrupt("ZONEMAP values of type ", array.type()->ToString(), " are not decimal128");
    }
    const auto& decimals = static_cast<const arrow::Decimal128Array&>(array);
    for (int64_t i = 0; i < decimals.length(); ++i) {
      if (decimals.IsNull(i)) {
        on_null(i);
      } else {
        on_value(i, arrow::Decimal128(decimals.GetValue(i)));
      }
    }
    return arrow::Status::OK();
  } else {
    return ForEachKey<Key>(array, std::forward<OnValue>(on_value), std::forward<OnNull>(on_null));
  }
}

// The key of a valid query scalar of a matching type.
template <typename Key>
arrow::Result<Key> ZoneKeyOfScalar(const arrow::Scalar& value) {
  if constexpr (kIsDecimalKey<Key>) {
    if (value.type->id() != arrow::Type::DECIMAL128) {
      return InvalidArgument("a ZONEMAP cannot compare a value of type ", value.type->ToString(),
                             " with decimal128 values");
    }
    return static_cast<const arrow::Decimal128Scalar&>(value).value;
  } else {
    return KeyOfScalar<Key>(value);
  }
}

// Appends keys to a builder of the storage type.
template <typename Key>
class ZoneValueAppender {
 public:
  static arrow::Result<ZoneValueAppender> Make(const std::shared_ptr<arrow::DataType>& storage) {
    ZoneValueAppender appender;
    if constexpr (kIsDecimalKey<Key>) {
      if (storage->id() != arrow::Type::DECIMAL128) {
        return Corrupt("ZONEMAP decimal values cannot be stored as ", storage->ToString());
      }
    } else {
      ARROW_ASSIGN_OR_RAISE(auto key_appender, KeyAppender<Key>::Make(storage));
      appender.appender_ = std::make_shared<KeyAppender<Key>>(key_appender);
    }
    return appender;
  }

  arrow::Status Append(arrow::ArrayBuilder* builder, const Key& key) const {
    if constexpr (kIsDecimalKey<Key>) {
      return static_cast<arrow::Decimal128Builder*>(builder)->Append(key);
    } else {
      return appender_->Append(builder, key);
    }
  }

 private:
  std::shared_ptr<KeyAppender<Key>> appender_;  // absent for decimals
};

// Calls function(Key{}) with the key type of `domain`.
template <typename Function>
auto DispatchZoneMapDomain(ZoneMapDomain domain, Function&& function) {
  switch (domain) {
    case ZoneMapDomain::kSigned:
      return function(int64_t{});
    case ZoneMapDomain::kUnsigned:
      return function(uint64_t{});
    case ZoneMapDomain::kFloat:
      return function(double{});
    case ZoneMapDomain::kDecimal:
      return function(arrow::Decimal128{});
    case ZoneMapDomain::kBinary:
      break;
  }
  return function(std::string_view{});
}

}  // namespace tessera::index::scalar
