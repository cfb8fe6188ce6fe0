#include "tessera/server/result_set.h"

#include <arrow/array.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tessera/server/protocol.h"
#include "tessera/server/wire.h"
#include "tessera/util/value_text.h"

namespace tessera::server {

namespace {

// MySQL's column types (include/field_types.h) and flags.
enum ColumnType : uint8_t {
  kTypeTiny = 1,
  kTypeShort = 2,
  kTypeLong = 3,
  kTypeFloat = 4,
  kTypeDouble = 5,
  kTypeNull = 6,
  kTypeLongLong = 8,
  kTypeDate = 10,
  kTypeDateTime = 12,
  kTypeNewDecimal = 246,
  kTypeBlob = 252,
  kTypeVarString = 253,
};
enum ColumnFlag : uint16_t {
  kFlagNotNull = 1,
  kFlagUnsigned = 32,
  kFlagBinary = 128,
};
// "Not a fixed number of decimals": how MySQL marks FLOAT and DOUBLE columns.
constexpr uint8_t kFloatingDecimals = 31;

struct ColumnShape {
  uint8_t type = kTypeVarString;
  uint16_t flags = 0;
  uint32_t length = 0xFFFFFF;
  uint8_t decimals = 0;
  bool text = true;  // utf8mb4 rather than binary
};

ColumnShape ShapeOf(const arrow::DataType& type) {
  ColumnShape shape;
  auto number = [&](uint8_t mysql_type, uint32_t length, bool is_unsigned) {
    shape.type = mysql_type;
    shape.length = length;
    shape.text = false;
    shape.flags = static_cast<uint16_t>(kFlagBinary | (is_unsigned ? kFlagUnsigned : 0));
  };
  switch (type.id()) {
    case arrow::Type::BOOL:
      number(kTypeTiny, 1, false);
      break;
    case arrow::Type::INT8:
      number(kTypeTiny, 4, false);
      break;
    case arrow::Type::UINT8:
      number(kTypeTiny, 3, true);
      break;
    case arrow::Type::INT16:
      number(kTypeShort, 6, false);
      break;
    case arrow::Type::UINT16:
      number(kTypeShort, 5, true);
      break;
    case arrow::Type::INT32:
      number(kTypeLong, 11, false);
      break;
    case arrow::Type::UINT32:
      number(kTypeLong, 10, true);
      break;
    case arrow::Type::INT64:
      number(kTypeLongLong, 20, false);
      break;
    case arrow::Type::UINT64:
      number(kTypeLongLong, 20, true);
      break;
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
      number(kTypeFloat, 12, false);
      shape.decimals = kFloatingDecimals;
      break;
    case arrow::Type::DOUBLE:
      number(kTypeDouble, 22, false);
      shape.decimals = kFloatingDecimals;
      break;
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256:
      number(kTypeNewDecimal, 66, false);
      shape.decimals = static_cast<uint8_t>(static_cast<const arrow::DecimalType&>(type).scale());
      break;
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
      number(kTypeDate, 10, false);
      break;
    case arrow::Type::TIMESTAMP:
      number(kTypeDateTime, 26, false);
      shape.decimals = 6;
      break;
    case arrow::Type::NA:
      number(kTypeNull, 0, false);
      break;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY:
      shape.type = kTypeBlob;
      shape.text = false;
      shape.flags = kFlagBinary;
      break;
    default:  // strings, and lists / vectors / structs as JSON text
      break;
  }
  return shape;
}

// The MySQL text of one non-null value.
void AppendText(const arrow::Array& array, int64_t row, std::string* out) {
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      out->push_back(static_cast<const arrow::BooleanArray&>(array).Value(row) ? '1' : '0');
      return;
    case arrow::Type::BINARY:
      out->append(static_cast<const arrow::BinaryArray&>(array).GetView(row));
      return;
    case arrow::Type::LARGE_BINARY:
      out->append(static_cast<const arrow::LargeBinaryArray&>(array).GetView(row));
      return;
    case arrow::Type::BINARY_VIEW:
      out->append(static_cast<const arrow::BinaryViewArray&>(array).GetView(row));
      return;
    case arrow::Type::FIXED_SIZE_BINARY:
      out->append(static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row));
      return;
    case arrow::Type::TIMESTAMP: {
      // ISO 8601 ('T', 'Z' when zoned: UTC) to MySQL's DATETIME text.
      std::string iso;
      util::AppendPlainValue(array, row, &iso);
      for (char& c : iso) {
        if (c == 'T') c = ' ';
      }
      if (!iso.empty() && iso.back() == 'Z') iso.pop_back();
      // DATETIME(6): microseconds at most (nanoseconds are cut, as MySQL has none).
      const size_t dot = iso.find('.');
      if (dot != std::string::npos && iso.size() > dot + 7) iso.resize(dot + 7);
      out->append(iso);
      return;
    }
    default:
      util::AppendPlainValue(array, row, out);
  }
}

}  // namespace

std::vector<std::string> ColumnDefinitionPayloads(const arrow::Schema& schema,
                                                  const std::string& database,
                                                  const std::string& table) {
  std::vector<std::string> payloads;
  for (const auto& field : schema.fields()) {
    const ColumnShape shape = ShapeOf(*field->type());
    PayloadWriter out;
    out.LengthEncodedString("def").LengthEncodedString(database);
    out.LengthEncodedString(table).LengthEncodedString(table);
    out.LengthEncodedString(field->name()).LengthEncodedString(field->name());
    out.LengthEncoded(0x0C);
    out.U16(shape.text ? kUtf8mb4Collation : kBinaryCollation);
    out.U32(shape.length).U8(shape.type);
    out.U16(static_cast<uint16_t>(shape.flags | (field->nullable() ? 0 : kFlagNotNull)));
    out.U8(shape.decimals).U16(0);
    payloads.push_back(out.Take());
  }
  return payloads;
}

void AppendTextRows(const arrow::RecordBatch& batch, std::vector<std::string>* rows) {
  std::string value;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    PayloadWriter out;
    for (int column = 0; column < batch.num_columns(); ++column) {
      const arrow::Array& array = *batch.column(column);
      if (array.IsNull(row)) {
        out.U8(0xFB);
        continue;
      }
      value.clear();
      AppendText(array, row, &value);
      out.LengthEncodedString(value);
    }
    rows->push_back(out.Take());
  }
}

namespace {

// One non-null value in the binary protocol's encoding of its column's MySQL type, from the
// text the text protocol would send (one rendering of each value for both protocols).
void AppendBinaryValue(uint8_t type, const std::string& text, PayloadWriter* out) {
  switch (type) {
    case kTypeTiny:
      out->U8(static_cast<uint8_t>(std::strtoll(text.c_str(), nullptr, 10)));
      return;
    case kTypeShort:
      out->U16(static_cast<uint16_t>(std::strtoll(text.c_str(), nullptr, 10)));
      return;
    case kTypeLong:
      out->U32(static_cast<uint32_t>(std::strtoll(text.c_str(), nullptr, 10)));
      return;
    case kTypeLongLong:
      out->U64(text[0] == '-' ? static_cast<uint64_t>(std::strtoll(text.c_str(), nullptr, 10))
                              : std::strtoull(text.c_str(), nullptr, 10));
      return;
    case kTypeFloat: {
      const float value = std::strtof(text.c_str(), nullptr);
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      out->U32(bits);
      return;
    }
    case kTypeDouble: {
      const double value = std::strtod(text.c_str(), nullptr);
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      out->U64(bits);
      return;
    }
    case kTypeDate:
    case kTypeDateTime: {
      unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
      char fraction[8] = {0};
      const int fields = std::sscanf(text.c_str(), "%u-%u-%u %u:%u:%u.%6[0-9]", &year, &month, &day,
                                     &hour, &minute, &second, fraction);
      uint32_t micros = 0;
      if (fields == 7) {
        std::string digits = fraction;
        digits.resize(6, '0');
        micros = static_cast<uint32_t>(std::strtoul(digits.c_str(), nullptr, 10));
      }
      const bool with_time = type == kTypeDateTime;
      out->U8(!with_time ? 4 : micros != 0 ? 11 : 7);
      out->U16(static_cast<uint16_t>(year)).U8(static_cast<uint8_t>(month));
      out->U8(static_cast<uint8_t>(day));
      if (with_time) {
        out->U8(static_cast<uint8_t>(hour)).U8(static_cast<uint8_t>(minute));
        out->U8(static_cast<uint8_t>(second));
        if (micros != 0) out->U32(micros);
      }
      return;
    }
    default:
      out->LengthEncodedString(text);
  }
}

}  // namespace

void AppendBinaryRows(const arrow::RecordBatch& batch, std::vector<std::string>* rows) {
  std::vector<uint8_t> types;
  for (const auto& field : batch.schema()->fields()) types.push_back(ShapeOf(*field->type()).type);
  const size_t bitmap_bytes = (static_cast<size_t>(batch.num_columns()) + 7 + 2) / 8;
  std::string value;
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    std::string bitmap(bitmap_bytes, '\0');
    PayloadWriter values;
    for (int column = 0; column < batch.num_columns(); ++column) {
      const arrow::Array& array = *batch.column(column);
      if (array.IsNull(row) || types[column] == kTypeNull) {
        const size_t bit = static_cast<size_t>(column) + 2;
        bitmap[bit / 8] = static_cast<char>(bitmap[bit / 8] | (1 << (bit % 8)));
        continue;
      }
      value.clear();
      AppendText(array, row, &value);
      AppendBinaryValue(types[column], value, &values);
    }
    PayloadWriter out;
    out.U8(0x00).Bytes(bitmap).Bytes(values.payload());
    rows->push_back(out.Take());
  }
}

}  // namespace tessera::server
