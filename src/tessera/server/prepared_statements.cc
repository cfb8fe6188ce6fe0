#include "tessera/server/prepared_statements.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "tessera/server/client_statements.h"
#include "tessera/sql/errors.h"

namespace tessera::server {

namespace {

// MySQL's binary protocol types (the low byte of a parameter's type).
enum BinaryType : uint8_t {
  kDecimal = 0,
  kTiny = 1,
  kShort = 2,
  kLong = 3,
  kFloat = 4,
  kDouble = 5,
  kNull = 6,
  kTimestamp = 7,
  kLongLong = 8,
  kInt24 = 9,
  kDate = 10,
  kTime = 11,
  kDateTime = 12,
  kYear = 13,
  kVarChar = 15,
  kBit = 16,
  kJson = 245,
  kNewDecimal = 246,
  kEnum = 247,
  kSet = 248,
  kTinyBlob = 249,
  kMediumBlob = 250,
  kLongBlob = 251,
  kBlob = 252,
  kVarString = 253,
  kString = 254,
  kGeometry = 255,
};
constexpr uint16_t kUnsignedFlag = 0x8000;

arrow::Status BadParameter(size_t index, std::string_view what) {
  return sql::SqlError(sql::SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                       "Incorrect arguments to mysqld_stmt_execute: parameter ", index + 1, " ",
                       what);
}

std::string QuotedString(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\0') {
      out += "\\0";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// [-]digits[.digits][e[+-]digits]: a DECIMAL parameter's text, nothing else.
bool IsNumberText(std::string_view text) {
  size_t at = !text.empty() && text[0] == '-' ? 1 : 0;
  auto digits = [&] {
    const size_t from = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    return at > from;
  };
  if (!digits()) return false;
  if (at < text.size() && text[at] == '.' && (++at, !digits())) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (!digits()) return false;
  }
  return at == text.size();
}

// A negative number in parentheses, so that `-?` never becomes `--5` (a comment).
std::string NumberLiteral(std::string text) {
  return !text.empty() && text[0] == '-' ? "(" + text + ")" : text;
}

template <typename T>
std::optional<T> LittleEndian(PayloadReader& in) {
  auto bytes = in.Bytes(sizeof(T));
  if (!bytes) return std::nullopt;
  T value;
  std::memcpy(&value, bytes->data(), sizeof(T));
  return value;
}

// One parameter's value as an SQL literal.
arrow::Result<std::string> Literal(uint16_t type, size_t index, PayloadReader& in) {
  const bool is_unsigned = (type & kUnsignedFlag) != 0;
  auto integer = [&](auto signed_value, auto unsigned_value) -> arrow::Result<std::string> {
    if (!signed_value) return BadParameter(index, "is shorter than its type");
    return is_unsigned ? std::to_string(unsigned_value(*signed_value))
                       : NumberLiteral(std::to_string(*signed_value));
  };
  switch (static_cast<uint8_t>(type & 0xFF)) {
    case kNull:
      return std::string("NULL");
    case kTiny:
      return integer(LittleEndian<int8_t>(in), [](int8_t v) { return static_cast<uint8_t>(v); });
    case kShort:
    case kYear:
      return integer(LittleEndian<int16_t>(in), [](int16_t v) { return static_cast<uint16_t>(v); });
    case kLong:
    case kInt24:
      return integer(LittleEndian<int32_t>(in), [](int32_t v) { return static_cast<uint32_t>(v); });
    case kLongLong:
      return integer(LittleEndian<int64_t>(in), [](int64_t v) { return static_cast<uint64_t>(v); });
    case kFloat:
    case kDouble: {
      double value = 0;
      if ((type & 0xFF) == kFloat) {
        auto f = LittleEndian<float>(in);
        if (!f) return BadParameter(index, "is shorter than its type");
        value = *f;
      } else {
        auto d = LittleEndian<double>(in);
        if (!d) return BadParameter(index, "is shorter than its type");
        value = *d;
      }
      if (value != value || value - value != 0) return BadParameter(index, "is not finite");
      char text[40];
      std::snprintf(text, sizeof(text), "%.17g", value);
      std::string literal = text;
      // A double literal, so that 2.0 stays a float rather than becoming an integer.
      if (literal.find_first_of(".eE") == std::string::npos) literal += ".0";
      return NumberLiteral(literal);
    }
    case kDate:
    case kDateTime:
    case kTimestamp: {
      auto length = in.U8();
      if (!length) return BadParameter(index, "is shorter than its type");
      auto bytes = in.Bytes(*length);
      if (!bytes || (*length != 0 && *length != 4 && *length != 7 && *length != 11)) {
        return BadParameter(index, "is not a binary DATE / DATETIME");
      }
      PayloadReader fields(*bytes);
      const unsigned year = fields.U16().value_or(0), month = fields.U8().value_or(0),
                     day = fields.U8().value_or(0), hour = fields.U8().value_or(0),
                     minute = fields.U8().value_or(0), second = fields.U8().value_or(0);
      const uint32_t micros = fields.U32().value_or(0);
      char text[64];
      if ((type & 0xFF) == kDate) {
        std::snprintf(text, sizeof(text), "DATE '%04u-%02u-%02u'", year, month, day);
      } else {
        std::snprintf(text, sizeof(text), "TIMESTAMP '%04u-%02u-%02u %02u:%02u:%02u.%06u'", year,
                      month, day, hour, minute, second, micros);
      }
      return std::string(text);
    }
    case kTime: {
      auto length = in.U8();
      if (!length) return BadParameter(index, "is shorter than its type");
      auto bytes = in.Bytes(*length);
      if (!bytes || (*length != 0 && *length != 8 && *length != 12)) {
        return BadParameter(index, "is not a binary TIME");
      }
      PayloadReader fields(*bytes);
      const bool negative = fields.U8().value_or(0) != 0;
      const uint32_t days = fields.U32().value_or(0);
      const unsigned hour = fields.U8().value_or(0), minute = fields.U8().value_or(0),
                     second = fields.U8().value_or(0);
      char text[48];
      std::snprintf(text, sizeof(text), "'%s%02" PRIu64 ":%02u:%02u'", negative ? "-" : "",
                    static_cast<uint64_t>(days) * 24 + hour, minute, second);
      return std::string(text);
    }
    case kDecimal:
    case kNewDecimal: {
      auto value = in.LengthEncodedString();
      if (!value) return BadParameter(index, "is shorter than its length");
      if (!IsNumberText(*value)) return BadParameter(index, "is not a decimal number");
      return NumberLiteral(std::string(*value));
    }
    case kVarChar:
    case kBit:
    case kJson:
    case kEnum:
    case kSet:
    case kTinyBlob:
    case kMediumBlob:
    case kLongBlob:
    case kBlob:
    case kVarString:
    case kString:
    case kGeometry: {
      auto value = in.LengthEncodedString();
      if (!value) return BadParameter(index, "is shorter than its length");
      return QuotedString(*value);
    }
    default:
      return BadParameter(index, "has type " + std::to_string(type & 0xFF) +
                                     ", which the binary protocol does not define");
  }
}

}  // namespace

PreparedStatement Prepare(std::string text) {
  PreparedStatement statement;
  statement.placeholders = UnquotedPositions(text, '?');
  statement.text = std::move(text);
  return statement;
}

arrow::Result<std::string> BindParameters(PreparedStatement& statement, PayloadReader& in) {
  const size_t count = statement.placeholders.size();
  if (statement.long_data_too_large) {
    statement.long_data.clear();
    statement.long_data_too_large = false;
    return BadParameter(0, "has more long data (COM_STMT_SEND_LONG_DATA) than max_allowed_packet");
  }
  if (!in.U8() || !in.U32()) return BadParameter(0, "the packet ends before the parameters");
  std::string text;
  if (count > 0) {
    auto nulls = in.Bytes((count + 7) / 8);
    auto bound = in.U8();
    if (!nulls || !bound) return BadParameter(0, "the packet ends before the parameters");
    if (*bound == 1) {
      statement.types.assign(count, 0);
      for (size_t i = 0; i < count; ++i) {
        auto type = in.U16();
        if (!type) return BadParameter(i, "has no type");
        statement.types[i] = *type;
      }
    } else if (statement.types.size() != count) {
      return BadParameter(0, "has no type: the first EXECUTE must bind the types");
    }
    size_t from = 0;
    for (size_t i = 0; i < count; ++i) {
      text.append(statement.text, from, statement.placeholders[i] - from);
      from = statement.placeholders[i] + 1;
      const bool is_null = ((static_cast<uint8_t>((*nulls)[i / 8]) >> (i % 8)) & 1) != 0;
      auto long_data = statement.long_data.find(static_cast<uint16_t>(i));
      if (is_null) {
        text += "NULL";
      } else if (long_data != statement.long_data.end()) {
        text += QuotedString(long_data->second);
      } else {
        ARROW_ASSIGN_OR_RAISE(auto literal, Literal(statement.types[i], i, in));
        text += literal;
      }
    }
    text.append(statement.text, from, std::string::npos);
  } else {
    text = statement.text;
  }
  statement.long_data.clear();
  return text;
}

std::string PrepareOkPayload(uint32_t id, uint16_t columns, uint16_t parameters) {
  PayloadWriter out;
  out.U8(0x00).U32(id).U16(columns).U16(parameters).U8(0).U16(0);
  return out.Take();
}

}  // namespace tessera::server
