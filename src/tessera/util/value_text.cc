#include "tessera/util/value_text.h"

#include <arrow/array.h>
#include <arrow/extension_type.h>
#include <arrow/scalar.h>
#include <arrow/type_traits.h>
#include <arrow/util/float16.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace tessera::util {
namespace {

// Lists longer than this show only their first kListHead elements in the display rendering.
constexpr int64_t kListShownWhole = 4;
constexpr int64_t kListHead = 3;
// Bytes of a binary value shown in the display rendering.
constexpr int64_t kBinaryHead = 16;

enum class Style { kDisplay, kJson };

template <typename T>
void AppendInteger(T value, std::string* out) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

void AppendNonFinite(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
  } else {
    out->append(value > 0 ? "inf" : "-inf");
  }
}

// Shortest text that reads back as the same float or double.
template <typename T>
void AppendShortest(T value, std::string* out) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

template <typename T>
void AppendFloat(T value, Style style, int depth, std::string* out) {
  if (!std::isfinite(value)) {
    if (style == Style::kJson) {
      out->append("null");
    } else {
      AppendNonFinite(value, out);
    }
    return;
  }
  if (style == Style::kDisplay && depth > 0) {
    // Elements of a vector: three significant digits are enough to recognise it.
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<double>(value),
                                std::chars_format::general, 3);
    out->append(buffer, result.ptr);
    return;
  }
  AppendShortest(value, out);
}

// Shortest text that reads back as the same float16, as numpy prints them: a stored 0.1 is
// "0.1", not its float32 expansion "0.099975586". Five significant digits tell every float16
// apart, so the search ends by then.
void AppendShortestHalf(uint16_t bits, std::string* out) {
  const double value = arrow::util::Float16::FromBits(bits).ToDouble();
  for (int precision = 1; precision <= 5; ++precision) {
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                       std::chars_format::general, precision);
    double candidate = 0;
    std::from_chars(buffer, written.ptr, candidate);
    if (arrow::util::Float16::FromDouble(candidate).bits() == bits) {
      AppendShortest(candidate, out);
      return;
    }
  }
  AppendShortest(value, out);
}

// A float16 in the display or JSON rendering, with the conventions of AppendFloat.
void AppendHalf(uint16_t bits, Style style, int depth, std::string* out) {
  const float value = arrow::util::Float16::FromBits(bits).ToFloat();
  if (!std::isfinite(value) || (style == Style::kDisplay && depth > 0)) {
    return AppendFloat(value, style, depth, out);
  }
  AppendShortestHalf(bits, out);
}

void AppendBase64(std::string_view bytes, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t group = (static_cast<uint8_t>(bytes[i]) << 16) |
                           (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                           static_cast<uint8_t>(bytes[i + 2]);
    out->push_back(kAlphabet[(group >> 18) & 63]);
    out->push_back(kAlphabet[(group >> 12) & 63]);
    out->push_back(kAlphabet[(group >> 6) & 63]);
    out->push_back(kAlphabet[group & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t group = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) group |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out->push_back(kAlphabet[(group >> 18) & 63]);
    out->push_back(kAlphabet[(group >> 12) & 63]);
    out->push_back(rest == 2 ? kAlphabet[(group >> 6) & 63] : '=');
    out->push_back('=');
  }
}

void AppendHex(std::string_view bytes, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out->append("0x");
  const size_t shown = std::min<size_t>(bytes.size(), kBinaryHead);
  for (size_t i = 0; i < shown; ++i) {
    out->push_back(kDigits[static_cast<uint8_t>(bytes[i]) >> 4]);
    out->push_back(kDigits[static_cast<uint8_t>(bytes[i]) & 15]);
  }
  if (shown < bytes.size()) out->append("…");
}

// Control characters escaped so that a displayed row stays on one line.
void AppendDisplayString(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\x%02x", static_cast<unsigned char>(c));
          out->append(buffer);
        } else {
          out->push_back(c);
        }
    }
  }
}

int64_t FloorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}

// Days since the epoch within ±30,000 years: what std::chrono::year_month_day represents.
bool AppendDate(int64_t days, std::string* out) {
  if (days < -10'000'000 || days > 10'000'000) return false;
  const std::chrono::year_month_day date{
      std::chrono::sys_days{std::chrono::days{static_cast<int>(days)}}};
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()));
  out->append(buffer);
  return true;
}

// ISO 8601; "Z" when the type has a time zone (Arrow then stores UTC instants).
void AppendTimestamp(int64_t value, arrow::TimeUnit::type unit, bool utc, std::string* out) {
  int64_t per_second = 1;
  int digits = 0;
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      break;
    case arrow::TimeUnit::MILLI:
      per_second = 1000;
      digits = 3;
      break;
    case arrow::TimeUnit::MICRO:
      per_second = 1000000;
      digits = 6;
      break;
    case arrow::TimeUnit::NANO:
      per_second = 1000000000;
      digits = 9;
      break;
  }
  const int64_t seconds = FloorDivide(value, per_second);
  const int64_t fraction = value - seconds * per_second;
  const int64_t days = FloorDivide(seconds, 86400);
  const int64_t second_of_day = seconds - days * 86400;
  if (!AppendDate(days, out)) {
    AppendInteger(value, out);
    return;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "T%02d:%02d:%02d", static_cast<int>(second_of_day / 3600),
                static_cast<int>(second_of_day / 60 % 60), static_cast<int>(second_of_day % 60));
  out->append(buffer);
  if (digits > 0) {
    std::snprintf(buffer, sizeof(buffer), ".%0*lld", digits, static_cast<long long>(fraction));
    out->append(buffer);
  }
  if (utc) out->push_back('Z');
}

// The bytes of a string or binary value.
std::string_view BytesOf(const arrow::Array& array, int64_t row) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return static_cast<const arrow::BinaryArray&>(array).GetView(row);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return static_cast<const arrow::LargeBinaryArray&>(array).GetView(row);
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
      return static_cast<const arrow::BinaryViewArray&>(array).GetView(row);
    case arrow::Type::FIXED_SIZE_BINARY:
      return static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row);
    default:
      return {};
  }
}

// Appends one value in the display or JSON rendering, recursing into nested types.
class Appender {
 public:
  Appender(Style style, std::string* out) : style_(style), out_(out) {}

  void Value(const arrow::Array& array, int64_t row, int depth) {
    if (array.IsNull(row)) {
      out_->append(style_ == Style::kJson ? "null" : "NULL");
      return;
    }
    switch (array.type_id()) {
      case arrow::Type::NA:
        out_->append(style_ == Style::kJson ? "null" : "NULL");
        return;
      case arrow::Type::BOOL:
        out_->append(static_cast<const arrow::BooleanArray&>(array).Value(row) ? "true" : "false");
        return;
      case arrow::Type::INT8:
        return Integer<arrow::Int8Array>(array, row);
      case arrow::Type::INT16:
        return Integer<arrow::Int16Array>(array, row);
      case arrow::Type::INT32:
        return Integer<arrow::Int32Array>(array, row);
      case arrow::Type::INT64:
        return Integer<arrow::Int64Array>(array, row);
      case arrow::Type::UINT8:
        return Integer<arrow::UInt8Array>(array, row);
      case arrow::Type::UINT16:
        return Integer<arrow::UInt16Array>(array, row);
      case arrow::Type::UINT32:
        return Integer<arrow::UInt32Array>(array, row);
      case arrow::Type::UINT64:
        return Integer<arrow::UInt64Array>(array, row);
      case arrow::Type::HALF_FLOAT:
        return AppendHalf(static_cast<const arrow::HalfFloatArray&>(array).Value(row), style_,
                          depth, out_);
      case arrow::Type::FLOAT:
        return AppendFloat(static_cast<const arrow::FloatArray&>(array).Value(row), style_, depth,
                           out_);
      case arrow::Type::DOUBLE:
        return AppendFloat(static_cast<const arrow::DoubleArray&>(array).Value(row), style_, depth,
                           out_);
      case arrow::Type::STRING:
      case arrow::Type::LARGE_STRING:
      case arrow::Type::STRING_VIEW:
        return String(BytesOf(array, row));
      case arrow::Type::BINARY:
      case arrow::Type::LARGE_BINARY:
      case arrow::Type::BINARY_VIEW:
      case arrow::Type::FIXED_SIZE_BINARY:
        return Binary(BytesOf(array, row));
      case arrow::Type::DATE32:
        return Date(static_cast<const arrow::Date32Array&>(array).Value(row));
      case arrow::Type::DATE64:
        return Date(
            FloorDivide(static_cast<const arrow::Date64Array&>(array).Value(row), 86400000));
      case arrow::Type::TIMESTAMP: {
        const auto& type = static_cast<const arrow::TimestampType&>(*array.type());
        std::string text;
        AppendTimestamp(static_cast<const arrow::TimestampArray&>(array).Value(row), type.unit(),
                        !type.timezone().empty(), &text);
        return String(text);
      }
      case arrow::Type::LIST: {
        const auto& list = static_cast<const arrow::ListArray&>(array);
        return List(*list.values(), list.value_offset(row), list.value_length(row), depth);
      }
      case arrow::Type::MAP: {
        const auto& list = static_cast<const arrow::MapArray&>(array);
        return List(*list.values(), list.value_offset(row), list.value_length(row), depth);
      }
      case arrow::Type::LARGE_LIST: {
        const auto& list = static_cast<const arrow::LargeListArray&>(array);
        return List(*list.values(), list.value_offset(row), list.value_length(row), depth);
      }
      case arrow::Type::FIXED_SIZE_LIST: {
        const auto& list = static_cast<const arrow::FixedSizeListArray&>(array);
        return List(*list.values(), list.value_offset(row), list.value_length(row), depth);
      }
      case arrow::Type::STRUCT:
        return Struct(static_cast<const arrow::StructArray&>(array), row, depth);
      case arrow::Type::DICTIONARY: {
        const auto& dictionary = static_cast<const arrow::DictionaryArray&>(array);
        return Value(*dictionary.dictionary(), dictionary.GetValueIndex(row), depth);
      }
      case arrow::Type::EXTENSION:
        return Value(*static_cast<const arrow::ExtensionArray&>(array).storage(), row, depth);
      default:
        return Fallback(array, row);
    }
  }

 private:
  template <typename ArrayType>
  void Integer(const arrow::Array& array, int64_t row) {
    AppendInteger(static_cast<const ArrayType&>(array).Value(row), out_);
  }

  void String(std::string_view text) {
    if (style_ == Style::kJson) {
      AppendJsonString(text, out_);
    } else {
      AppendDisplayString(text, out_);
    }
  }

  void Binary(std::string_view bytes) {
    if (style_ == Style::kJson) {
      out_->push_back('"');
      AppendBase64(bytes, out_);
      out_->push_back('"');
    } else {
      AppendHex(bytes, out_);
    }
  }

  void Date(int64_t days) {
    std::string text;
    if (!AppendDate(days, &text)) AppendInteger(days, &text);
    String(text);
  }

  void List(const arrow::Array& values, int64_t offset, int64_t length, int depth) {
    const bool abbreviate = style_ == Style::kDisplay && length > kListShownWhole;
    const int64_t shown = abbreviate ? kListHead : length;
    const char* separator = style_ == Style::kJson ? "," : ", ";
    out_->push_back('[');
    for (int64_t i = 0; i < shown; ++i) {
      if (i > 0) out_->append(separator);
      Value(values, offset + i, depth + 1);
    }
    if (abbreviate) {
      out_->append(", … (");
      AppendInteger(length, out_);
      out_->push_back(')');
    }
    out_->push_back(']');
  }

  void Struct(const arrow::StructArray& array, int64_t row, int depth) {
    const auto& type = *array.struct_type();
    out_->push_back('{');
    for (int i = 0; i < type.num_fields(); ++i) {
      if (style_ == Style::kJson) {
        if (i > 0) out_->push_back(',');
        AppendJsonString(type.field(i)->name(), out_);
        out_->push_back(':');
      } else {
        if (i > 0) out_->append(", ");
        AppendDisplayString(type.field(i)->name(), out_);
        out_->append(": ");
      }
      Value(*array.field(i), row, depth + 1);
    }
    out_->push_back('}');
  }

  // Types without a dedicated rendering (decimal, time, duration, interval, union, ...).
  void Fallback(const arrow::Array& array, int64_t row) {
    auto scalar = array.GetScalar(row);
    const std::string text =
        scalar.ok() ? (*scalar)->ToString() : "<" + array.type()->ToString() + ">";
    const bool is_number = arrow::is_decimal(array.type_id());
    if (is_number) {
      out_->append(text);
    } else {
      String(text);
    }
  }

  Style style_;
  std::string* out_;
};

// Decodes the UTF-8 code point at text[*position] and advances past it; invalid bytes decode
// as themselves, one at a time.
uint32_t NextCodePoint(std::string_view text, size_t* position) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(*position);
  size_t length = lead < 0x80           ? 1
                  : (lead >> 5) == 0x6  ? 2
                  : (lead >> 4) == 0xE  ? 3
                  : (lead >> 3) == 0x1E ? 4
                                        : 1;
  if (*position + length > text.size()) length = 1;
  uint32_t point = length == 1 ? lead : lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(*position + i) & 0xC0) != 0x80) {
      length = 1;
      point = lead;
      break;
    }
    point = (point << 6) | (byte(*position + i) & 0x3F);
  }
  *position += length;
  return point;
}

// Columns a code point takes in a terminal: 2 for East Asian wide and fullwidth characters
// and most emoji, 0 for combining marks, 1 otherwise (a small wcwidth).
size_t CodePointWidth(uint32_t point) {
  if ((point >= 0x0300 && point <= 0x036F) || (point >= 0x200B && point <= 0x200F)) return 0;
  if ((point >= 0x1100 && point <= 0x115F) || (point >= 0x2E80 && point <= 0x303E) ||
      (point >= 0x3041 && point <= 0x33FF) || (point >= 0x3400 && point <= 0x4DBF) ||
      (point >= 0x4E00 && point <= 0x9FFF) || (point >= 0xA000 && point <= 0xA4CF) ||
      (point >= 0xAC00 && point <= 0xD7A3) || (point >= 0xF900 && point <= 0xFAFF) ||
      (point >= 0xFE30 && point <= 0xFE4F) || (point >= 0xFF00 && point <= 0xFF60) ||
      (point >= 0xFFE0 && point <= 0xFFE6) || (point >= 0x1F300 && point <= 0x1F64F) ||
      (point >= 0x1F900 && point <= 0x1F9FF) || (point >= 0x20000 && point <= 0x3FFFD)) {
    return 2;
  }
  return 1;
}

// Cuts `text`, wider than `width`, to at most `width` columns ending with "…".
void Truncate(std::string* text, size_t width) {
  size_t used = 0;
  size_t position = 0;
  while (position < text->size()) {
    size_t next = position;
    const size_t point_width = CodePointWidth(NextCodePoint(*text, &next));
    if (used + point_width > width - 1) break;
    used += point_width;
    position = next;
  }
  text->resize(position);
  text->append("…");
}

}  // namespace

void AppendDisplayValue(const arrow::Array& array, int64_t row, std::string* out) {
  std::string text;
  Appender(Style::kDisplay, &text).Value(array, row, 0);
  if (DisplayWidth(text) > kMaxDisplayWidth) Truncate(&text, kMaxDisplayWidth);
  out->append(text);
}

void AppendPlainValue(const arrow::Array& array, int64_t row, std::string* out) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW:
      out->append(BytesOf(array, row));
      return;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY: {
      std::string json;
      Appender(Style::kJson, &json).Value(array, row, 0);
      out->append(json, 1, json.size() - 2);  // base64 without the quotes
      return;
    }
    case arrow::Type::HALF_FLOAT: {
      const uint16_t bits = static_cast<const arrow::HalfFloatArray&>(array).Value(row);
      const float value = arrow::util::Float16::FromBits(bits).ToFloat();
      if (std::isfinite(value)) {
        AppendShortestHalf(bits, out);
      } else {
        AppendNonFinite(value, out);
      }
      return;
    }
    case arrow::Type::FLOAT: {
      const float value = static_cast<const arrow::FloatArray&>(array).Value(row);
      if (std::isfinite(value)) {
        AppendShortest(value, out);
      } else {
        AppendNonFinite(value, out);
      }
      return;
    }
    case arrow::Type::DOUBLE: {
      const double value = static_cast<const arrow::DoubleArray&>(array).Value(row);
      if (std::isfinite(value)) {
        AppendShortest(value, out);
      } else {
        AppendNonFinite(value, out);
      }
      return;
    }
    case arrow::Type::DICTIONARY: {
      const auto& dictionary = static_cast<const arrow::DictionaryArray&>(array);
      AppendPlainValue(*dictionary.dictionary(), dictionary.GetValueIndex(row), out);
      return;
    }
    default:
      break;
  }
  std::string json;
  Appender(Style::kJson, &json).Value(array, row, 0);
  // A JSON string (timestamp, date, ...) is shown without its quotes; anything else as JSON.
  if (json.size() >= 2 && json.front() == '"' && arrow::is_primitive(array.type_id())) {
    out->append(json, 1, json.size() - 2);
  } else {
    out->append(json);
  }
}

void AppendJsonValue(const arrow::Array& array, int64_t row, std::string* out) {
  Appender(Style::kJson, out).Value(array, row, 0);
}

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (char c : text) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned char>(c));
          out->append(buffer);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  size_t position = 0;
  while (position < text.size()) width += CodePointWidth(NextCodePoint(text, &position));
  return width;
}

bool IsNumeric(const arrow::DataType& type) {
  const arrow::Type::type id =
      type.id() == arrow::Type::DICTIONARY
          ? static_cast<const arrow::DictionaryType&>(type).value_type()->id()
          : type.id();
  return arrow::is_integer(id) || arrow::is_floating(id) || arrow::is_decimal(id);
}

}  // namespace tessera::util
