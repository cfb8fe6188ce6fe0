// BTREE keys: how the values of an indexed column are compared and stored.
//
// Every indexable Arrow type maps to one key domain whose C++ key type orders values exactly as
// Arrow compute's comparison kernels do (the kernels the unindexed scan evaluates filters with):
//
//   domain     key type          column types
//   kSigned    int64_t           int8/16/32/64, date32, timestamp (by its integer, any unit/zone)
//   kUnsigned  uint64_t          uint8/16/32/64, bool (false < true)
//   kFloat     double            float16, float32, float64 (widening is exact and keeps order)
//   kBinary    std::string_view  string, large_string, binary, large_binary (bytewise, unsigned)
//
// Float keys are never NaN: the BTREE keeps NaN rows out of its sorted run (see btree_family.h),
// so `<` on the keys is a strict weak order in which -0.0 and 0.0 are equal, as for Arrow's
// `equal` and `less`.
//
// Pages store values in the column's own type (float16 widened to float32, the one type Arrow
// has no comparison kernels for), so segment files stay self-describing and narrow columns stay
// narrow; keys are converted on the way in and out by ForEachKey and KeyAppender.
#pragma once

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/result.h>
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/float16.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "tessera/status.h"

namespace tessera::index::scalar {

enum class KeyDomain { kSigned, kUnsigned, kFloat, kBinary };

// The type pages store values of a column of `column_type` in; Unsupported (naming `column`)
// for types a BTREE cannot index.
arrow::Result<std::shared_ptr<arrow::DataType>> BtreeStorageType(
    const std::string& column, const std::shared_ptr<arrow::DataType>& column_type);

// The domain of a storage (or column) type; Corrupt for a type no BTREE stores.
arrow::Result<KeyDomain> DomainOf(const arrow::DataType& type);

// Whether a query value of type `value_type` may be compared with keys stored as `storage`:
// the same type, except that timestamps need only the same unit, string and binary types mix,
// and float16 values are accepted where float32 is stored.
bool QueryTypeMatches(const arrow::DataType& value_type, const arrow::DataType& storage);

// A human-readable list of the indexable types, for error messages.
std::string_view BtreeSupportedTypes();

template <typename Key>
constexpr bool kIsBinaryKey = std::is_same_v<Key, std::string_view>;
template <typename Key>
constexpr bool kIsFloatKey = std::is_same_v<Key, double>;

// Whether `key` is NaN (only float keys can be).
template <typename Key>
bool IsNanKey(const Key& key) {
  if constexpr (kIsFloatKey<Key>) {
    return std::isnan(key);
  } else {
    return false;
  }
}

// Calls function(Key{}) with the key type of `domain` and returns what it returns: how code
// templated on the key type is entered from a domain known only at run time.
template <typename Function>
auto DispatchKeyDomain(KeyDomain domain, Function&& function) {
  switch (domain) {
    case KeyDomain::kSigned:
      return function(int64_t{});
    case KeyDomain::kUnsigned:
      return function(uint64_t{});
    case KeyDomain::kFloat:
      return function(double{});
    case KeyDomain::kBinary:
      break;
  }
  return function(std::string_view{});
}

namespace detail {

template <typename ArrayType, typename Key, typename OnValue, typename OnNull>
arrow::Status ForEachTyped(const arrow::Array& array, OnValue& on_value, OnNull& on_null) {
  const auto& typed = static_cast<const ArrayType&>(array);
  const bool has_nulls = array.null_count() > 0;
  for (int64_t i = 0; i < typed.length(); ++i) {
    if (has_nulls && typed.IsNull(i)) {
      on_null(i);
    } else if constexpr (kIsBinaryKey<Key>) {
      on_value(i, typed.GetView(i));
    } else if constexpr (std::is_same_v<ArrayType, arrow::HalfFloatArray>) {
      on_value(i, static_cast<double>(arrow::util::Float16::FromBits(typed.Value(i)).ToFloat()));
    } else {
      on_value(i, static_cast<Key>(typed.Value(i)));
    }
  }
  return arrow::Status::OK();
}

}  // namespace detail

// Calls on_value(i, key) for each valid element i of `array` and on_null(i) for each null one.
// `array` is of a column or storage type of Key's domain; Corrupt otherwise.
template <typename Key, typename OnValue, typename OnNull>
arrow::Status ForEachKey(const arrow::Array& array, OnValue&& on_value, OnNull&& on_null) {
  using arrow::Type;
  const Type::type id = array.type_id();
  if constexpr (std::is_same_v<Key, int64_t>) {
    switch (id) {
      case Type::INT8:
        return detail::ForEachTyped<arrow::Int8Array, Key>(array, on_value, on_null);
      case Type::INT16:
        return detail::ForEachTyped<arrow::Int16Array, Key>(array, on_value, on_null);
      case Type::INT32:
        return detail::ForEachTyped<arrow::Int32Array, Key>(array, on_value, on_null);
      case Type::INT64:
        return detail::ForEachTyped<arrow::Int64Array, Key>(array, on_value, on_null);
      case Type::DATE32:
        return detail::ForEachTyped<arrow::Date32Array, Key>(array, on_value, on_null);
      case Type::TIMESTAMP:
        return detail::ForEachTyped<arrow::TimestampArray, Key>(array, on_value, on_null);
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, uint64_t>) {
    switch (id) {
      case Type::UINT8:
        return detail::ForEachTyped<arrow::UInt8Array, Key>(array, on_value, on_null);
      case Type::UINT16:
        return detail::ForEachTyped<arrow::UInt16Array, Key>(array, on_value, on_null);
      case Type::UINT32:
        return detail::ForEachTyped<arrow::UInt32Array, Key>(array, on_value, on_null);
      case Type::UINT64:
        return detail::ForEachTyped<arrow::UInt64Array, Key>(array, on_value, on_null);
      case Type::BOOL:
        return detail::ForEachTyped<arrow::BooleanArray, Key>(array, on_value, on_null);
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, double>) {
    switch (id) {
      case Type::HALF_FLOAT:
        return detail::ForEachTyped<arrow::HalfFloatArray, Key>(array, on_value, on_null);
      case Type::FLOAT:
        return detail::ForEachTyped<arrow::FloatArray, Key>(array, on_value, on_null);
      case Type::DOUBLE:
        return detail::ForEachTyped<arrow::DoubleArray, Key>(array, on_value, on_null);
      default:
        break;
    }
  } else {
    static_assert(kIsBinaryKey<Key>, "unknown BTREE key type");
    switch (id) {
      case Type::STRING:
        return detail::ForEachTyped<arrow::StringArray, Key>(array, on_value, on_null);
      case Type::LARGE_STRING:
        return detail::ForEachTyped<arrow::LargeStringArray, Key>(array, on_value, on_null);
      case Type::BINARY:
        return detail::ForEachTyped<arrow::BinaryArray, Key>(array, on_value, on_null);
      case Type::LARGE_BINARY:
        return detail::ForEachTyped<arrow::LargeBinaryArray, Key>(array, on_value, on_null);
      default:
        break;
    }
  }
  return Corrupt("BTREE values of type ", array.type()->ToString(),
                 " do not belong to the key domain being read");
}

// Appends keys to a builder of a storage type, converting each key to that type (the key came
// from a value of that type, so the conversion is exact).
template <typename Key>
class KeyAppender {
 public:
  // Corrupt when `storage` is not of Key's domain.
  static arrow::Result<KeyAppender> Make(const std::shared_ptr<arrow::DataType>& storage);

  arrow::Status Append(arrow::ArrayBuilder* builder, const Key& key) const {
    return append_(builder, key);
  }

 private:
  using AppendFunction = arrow::Status (*)(arrow::ArrayBuilder*, const Key&);
  explicit KeyAppender(AppendFunction append) : append_(append) {}

  template <typename BuilderType, typename Value>
  static arrow::Status AppendAs(arrow::ArrayBuilder* builder, const Key& key) {
    return static_cast<BuilderType*>(builder)->Append(static_cast<Value>(key));
  }

  AppendFunction append_;
};

template <typename Key>
arrow::Result<KeyAppender<Key>> KeyAppender<Key>::Make(
    const std::shared_ptr<arrow::DataType>& storage) {
  using arrow::Type;
  const Type::type id = storage->id();
  if constexpr (std::is_same_v<Key, int64_t>) {
    switch (id) {
      case Type::INT8:
        return KeyAppender(&AppendAs<arrow::Int8Builder, int8_t>);
      case Type::INT16:
        return KeyAppender(&AppendAs<arrow::Int16Builder, int16_t>);
      case Type::INT32:
        return KeyAppender(&AppendAs<arrow::Int32Builder, int32_t>);
      case Type::INT64:
        return KeyAppender(&AppendAs<arrow::Int64Builder, int64_t>);
      case Type::DATE32:
        return KeyAppender(&AppendAs<arrow::Date32Builder, int32_t>);
      case Type::TIMESTAMP:
        return KeyAppender(&AppendAs<arrow::TimestampBuilder, int64_t>);
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, uint64_t>) {
    switch (id) {
      case Type::UINT8:
        return KeyAppender(&AppendAs<arrow::UInt8Builder, uint8_t>);
      case Type::UINT16:
        return KeyAppender(&AppendAs<arrow::UInt16Builder, uint16_t>);
      case Type::UINT32:
        return KeyAppender(&AppendAs<arrow::UInt32Builder, uint32_t>);
      case Type::UINT64:
        return KeyAppender(&AppendAs<arrow::UInt64Builder, uint64_t>);
      case Type::BOOL:
        return KeyAppender(&AppendAs<arrow::BooleanBuilder, bool>);
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, double>) {
    switch (id) {
      case Type::FLOAT:
        return KeyAppender(&AppendAs<arrow::FloatBuilder, float>);
      case Type::DOUBLE:
        return KeyAppender(&AppendAs<arrow::DoubleBuilder, double>);
      default:
        break;
    }
  } else {
    switch (id) {
      case Type::STRING:
        return KeyAppender(&AppendAs<arrow::StringBuilder, std::string_view>);
      case Type::LARGE_STRING:
        return KeyAppender(&AppendAs<arrow::LargeStringBuilder, std::string_view>);
      case Type::BINARY:
        return KeyAppender(&AppendAs<arrow::BinaryBuilder, std::string_view>);
      case Type::LARGE_BINARY:
        return KeyAppender(&AppendAs<arrow::LargeBinaryBuilder, std::string_view>);
      default:
        break;
    }
  }
  return Corrupt("BTREE values cannot be stored as ", storage->ToString(),
                 " in the key domain being written");
}

// The key of a valid (non-null) query scalar whose type QueryTypeMatches the storage type.
// For binary keys the view points into `value`, which must outlive it.
template <typename Key>
arrow::Result<Key> KeyOfScalar(const arrow::Scalar& value) {
  using arrow::Type;
  const Type::type id = value.type->id();
  if constexpr (std::is_same_v<Key, int64_t>) {
    switch (id) {
      case Type::INT8:
        return static_cast<const arrow::Int8Scalar&>(value).value;
      case Type::INT16:
        return static_cast<const arrow::Int16Scalar&>(value).value;
      case Type::INT32:
        return static_cast<const arrow::Int32Scalar&>(value).value;
      case Type::INT64:
        return static_cast<const arrow::Int64Scalar&>(value).value;
      case Type::DATE32:
        return static_cast<const arrow::Date32Scalar&>(value).value;
      case Type::TIMESTAMP:
        return static_cast<const arrow::TimestampScalar&>(value).value;
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, uint64_t>) {
    switch (id) {
      case Type::UINT8:
        return static_cast<const arrow::UInt8Scalar&>(value).value;
      case Type::UINT16:
        return static_cast<const arrow::UInt16Scalar&>(value).value;
      case Type::UINT32:
        return static_cast<const arrow::UInt32Scalar&>(value).value;
      case Type::UINT64:
        return static_cast<const arrow::UInt64Scalar&>(value).value;
      case Type::BOOL:
        return static_cast<const arrow::BooleanScalar&>(value).value ? 1u : 0u;
      default:
        break;
    }
  } else if constexpr (std::is_same_v<Key, double>) {
    switch (id) {
      case Type::HALF_FLOAT:
        return static_cast<double>(
            arrow::util::Float16::FromBits(static_cast<const arrow::HalfFloatScalar&>(value).value)
                .ToFloat());
      case Type::FLOAT:
        return static_cast<double>(static_cast<const arrow::FloatScalar&>(value).value);
      case Type::DOUBLE:
        return static_cast<const arrow::DoubleScalar&>(value).value;
      default:
        break;
    }
  } else {
    switch (id) {
      case Type::STRING:
      case Type::LARGE_STRING:
      case Type::BINARY:
      case Type::LARGE_BINARY:
        return static_cast<const arrow::BaseBinaryScalar&>(value).view();
      default:
        break;
    }
  }
  return InvalidArgument("a BTREE cannot compare a value of type ", value.type->ToString(),
                         " with its keys");
}

}  // namespace tessera::index::scalar
