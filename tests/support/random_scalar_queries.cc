#include "support/random_scalar_queries.h"

#include <arrow/compute/api.h>
#include <arrow/util/float16.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "support/checked.h"

namespace tessera::testing {

namespace compute = arrow::compute;
using index::ScalarBound;
using index::ScalarQuery;

namespace {

class Generator {
 public:
  explicit Generator(std::mt19937_64& random) : random_(random) {}

  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  int64_t Uniform(int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random_);
  }

  void Append(const std::shared_ptr<arrow::DataType>& type, arrow::ArrayBuilder* builder) {
    switch (type->id()) {
      case arrow::Type::INT8:
        return Check(static_cast<arrow::Int8Builder*>(builder)->Append(
            static_cast<int8_t>(Signed<int8_t>())));
      case arrow::Type::INT16:
        return Check(static_cast<arrow::Int16Builder*>(builder)->Append(
            static_cast<int16_t>(Signed<int16_t>())));
      case arrow::Type::INT32:
        return Check(static_cast<arrow::Int32Builder*>(builder)->Append(
            static_cast<int32_t>(Signed<int32_t>())));
      case arrow::Type::INT64:
        return Check(static_cast<arrow::Int64Builder*>(builder)->Append(Signed<int64_t>()));
      case arrow::Type::UINT8:
        return Check(static_cast<arrow::UInt8Builder*>(builder)->Append(
            static_cast<uint8_t>(Unsigned<uint8_t>())));
      case arrow::Type::UINT16:
        return Check(static_cast<arrow::UInt16Builder*>(builder)->Append(
            static_cast<uint16_t>(Unsigned<uint16_t>())));
      case arrow::Type::UINT32:
        return Check(static_cast<arrow::UInt32Builder*>(builder)->Append(
            static_cast<uint32_t>(Unsigned<uint32_t>())));
      case arrow::Type::UINT64:
        return Check(static_cast<arrow::UInt64Builder*>(builder)->Append(Unsigned<uint64_t>()));
      case arrow::Type::HALF_FLOAT:
        return Check(static_cast<arrow::HalfFloatBuilder*>(builder)->Append(
            arrow::util::Float16::FromDouble(Real()).bits()));
      case arrow::Type::FLOAT:
        return Check(
            static_cast<arrow::FloatBuilder*>(builder)->Append(static_cast<float>(Real())));
      case arrow::Type::DOUBLE:
        return Check(static_cast<arrow::DoubleBuilder*>(builder)->Append(Real()));
      case arrow::Type::BOOL:
        return Check(static_cast<arrow::BooleanBuilder*>(builder)->Append(Chance(0.5)));
      case arrow::Type::STRING:
        return Check(static_cast<arrow::StringBuilder*>(builder)->Append(Text(false)));
      case arrow::Type::LARGE_STRING:
        return Check(static_cast<arrow::LargeStringBuilder*>(builder)->Append(Text(false)));
      case arrow::Type::BINARY:
        return Check(static_cast<arrow::BinaryBuilder*>(builder)->Append(Text(true)));
      case arrow::Type::LARGE_BINARY:
        return Check(static_cast<arrow::LargeBinaryBuilder*>(builder)->Append(Text(true)));
      case arrow::Type::DATE32:
        return Check(static_cast<arrow::Date32Builder*>(builder)->Append(
            static_cast<int32_t>(Signed<int32_t>())));
      case arrow::Type::TIMESTAMP:
        return Check(static_cast<arrow::TimestampBuilder*>(builder)->Append(
            Chance(0.1) ? Signed<int64_t>() : Uniform(-40, 40) * 1000));
      default:
        throw std::runtime_error("no generator for " + type->ToString());
    }
  }

 private:
  template <typename Limits>
  int64_t Signed() {
    if (Chance(0.05)) return std::numeric_limits<Limits>::min();
    if (Chance(0.05)) return std::numeric_limits<Limits>::max();
    return Uniform(-40, 40);
  }
  template <typename Limits>
  uint64_t Unsigned() {
    if (Chance(0.05)) return std::numeric_limits<Limits>::max();
    return static_cast<uint64_t>(Uniform(0, 80));
  }
  double Real() {
    if (Chance(0.06)) return std::nan("");
    if (Chance(0.04)) return -0.0;
    if (Chance(0.04)) return 0.0;
    if (Chance(0.02)) return std::numeric_limits<double>::infinity();
    if (Chance(0.02)) return -std::numeric_limits<double>::infinity();
    return static_cast<double>(Uniform(-40, 40)) / 4;
  }
  std::string Text(bool binary) {
    static const char* kUtf8Pieces[] = {"a", "b", "ab", "\xc3\xa9", "z", "A", " "};
    static const char* kBinaryPieces[] = {"a", "\x7f", "\x80", "\xff", "b"};
    std::string text;
    const int64_t length = Uniform(0, 3);
    for (int64_t i = 0; i < length; ++i) {
      text += binary ? std::string(kBinaryPieces[Uniform(0, 4)]) : kUtf8Pieces[Uniform(0, 6)];
    }
    if (binary && Chance(0.1)) text.push_back('\0');
    return text;
  }

  std::mt19937_64& random_;
};

// Arrow has no comparison kernels for float16: the scan widens it to float32 (btree_key.h).
std::shared_ptr<arrow::DataType> KernelType(const std::shared_ptr<arrow::DataType>& type) {
  return type->id() == arrow::Type::HALF_FLOAT ? arrow::float32() : type;
}

std::shared_ptr<arrow::Scalar> KernelScalar(const std::shared_ptr<arrow::Scalar>& value) {
  if (value->type->id() != arrow::Type::HALF_FLOAT) return value;
  if (!value->is_valid) return arrow::MakeNullScalar(arrow::float32());
  const auto bits = static_cast<const arrow::HalfFloatScalar&>(*value).value;
  return std::make_shared<arrow::FloatScalar>(arrow::util::Float16::FromBits(bits).ToFloat());
}

}  // namespace

std::shared_ptr<arrow::Array> RandomValues(const std::shared_ptr<arrow::DataType>& type,
                                           int64_t rows, double null_fraction,
                                           std::mt19937_64& random) {
  Generator generator(random);
  auto builder = Check(arrow::MakeBuilder(type));
  for (int64_t i = 0; i < rows; ++i) {
    if (generator.Chance(null_fraction)) {
      Check(builder->AppendNull());
    } else {
      generator.Append(type, builder.get());
    }
  }
  return Check(builder->Finish());
}

std::shared_ptr<arrow::Array> SortedValues(const std::shared_ptr<arrow::Array>& values) {
  const auto column = Check(compute::Cast(*values, KernelType(values->type())));
  const auto order = Check(compute::SortIndices(*column));
  return Check(compute::Take(*values, *order));
}

ScalarQuery RandomQuery(const std::shared_ptr<arrow::Array>& column,
                        const std::shared_ptr<arrow::Array>& others, std::mt19937_64& random,
                        bool ranges) {
  Generator generator(random);
  const auto value = [&]() -> std::shared_ptr<arrow::Scalar> {
    if (generator.Chance(0.03)) return arrow::MakeNullScalar(column->type());
    const auto& source = generator.Chance(0.7) ? column : others;
    return Check(source->GetScalar(generator.Uniform(0, source->length() - 1)));
  };
  ScalarQuery query;
  const int64_t pick = generator.Uniform(0, 99);
  if (pick < (ranges ? 25 : 45)) {
    query.kind = ScalarQuery::Kind::kEquals;
    query.values.push_back(value());
  } else if (pick < (ranges ? 45 : 85)) {
    query.kind = ScalarQuery::Kind::kIn;
    const int64_t count = generator.Uniform(0, 5);
    for (int64_t i = 0; i < count; ++i) query.values.push_back(value());
  } else if (pick < 85) {
    query.kind = ScalarQuery::Kind::kRange;
    const int64_t sides = generator.Uniform(0, 2);  // lower, upper, both
    if (sides != 1) query.lower = ScalarBound{value(), generator.Chance(0.5)};
    if (sides != 0) query.upper = ScalarBound{value(), generator.Chance(0.5)};
  } else if (pick < 92) {
    query.kind = ScalarQuery::Kind::kIsNull;
  } else {
    query.kind = ScalarQuery::Kind::kIsNotNull;
  }
  return query;
}

std::string Describe(const ScalarQuery& query) {
  auto text = [](const std::shared_ptr<arrow::Scalar>& value) {
    return value == nullptr ? std::string("<none>") : value->ToString();
  };
  switch (query.kind) {
    case ScalarQuery::Kind::kEquals:
      return "= " + text(query.values[0]);
    case ScalarQuery::Kind::kIn: {
      std::string list;
      for (const auto& value : query.values) list += text(value) + ", ";
      return "IN (" + list + ")";
    }
    case ScalarQuery::Kind::kRange:
      return std::string(query.lower ? (query.lower->inclusive ? "[" : "(") : "(-") +
             (query.lower ? text(query.lower->value) : "") + ", " +
             (query.upper ? text(query.upper->value) : "") +
             (query.upper ? (query.upper->inclusive ? "]" : ")") : "-)");
    case ScalarQuery::Kind::kIsNull:
      return "IS NULL";
    case ScalarQuery::Kind::kIsNotNull:
      return "IS NOT NULL";
  }
  return "?";
}

std::vector<uint64_t> ReferenceRows(const ColumnDataset& table, const ScalarQuery& query) {
  const auto column = Check(compute::Cast(*table.column, KernelType(table.column->type())));
  arrow::Datum truth;
  switch (query.kind) {
    case ScalarQuery::Kind::kEquals:
      truth = Check(compute::CallFunction("equal", {column, KernelScalar(query.values[0])}));
      break;
    case ScalarQuery::Kind::kIn: {
      // `= ANY`: an OR of equalities (a null value adds no TRUE row).
      truth = Check(arrow::MakeArrayFromScalar(arrow::BooleanScalar(false), column->length()));
      for (const auto& value : query.values) {
        if (!value->is_valid) continue;
        auto equal = Check(compute::CallFunction("equal", {column, KernelScalar(value)}));
        truth = Check(compute::CallFunction("or_kleene", {truth, equal}));
      }
      break;
    }
    case ScalarQuery::Kind::kRange: {
      truth = Check(compute::CallFunction("is_valid", {column}));
      if (query.lower) {
        auto lower =
            Check(compute::CallFunction(query.lower->inclusive ? "greater_equal" : "greater",
                                        {column, KernelScalar(query.lower->value)}));
        truth = Check(compute::CallFunction("and_kleene", {truth, lower}));
      }
      if (query.upper) {
        auto upper = Check(compute::CallFunction(query.upper->inclusive ? "less_equal" : "less",
                                                 {column, KernelScalar(query.upper->value)}));
        truth = Check(compute::CallFunction("and_kleene", {truth, upper}));
      }
      break;
    }
    case ScalarQuery::Kind::kIsNull:
      truth = Check(compute::CallFunction("is_null", {column}));
      break;
    case ScalarQuery::Kind::kIsNotNull:
      truth = Check(compute::CallFunction("is_valid", {column}));
      break;
  }
  const auto selected = std::static_pointer_cast<arrow::BooleanArray>(truth.make_array());
  std::vector<uint64_t> rows;
  for (int64_t i = 0; i < selected->length(); ++i) {
    if (selected->IsValid(i) && selected->Value(i)) rows.push_back(table.addresses->Value(i));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace tessera::testing
