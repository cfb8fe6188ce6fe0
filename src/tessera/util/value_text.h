// Text of one cell of an Arrow array, in the three renderings the CLI prints (the server sends
// the plain one in MySQL text rows).
//
// - Display (table format): for people. Nulls read NULL; lists longer than four elements show
//   their first three and their length ("[0.12, -0.5, 0.33, … (128)]"); control characters are
//   escaped so a row stays on one line; a cell is cut to a bounded width with "…".
// - Plain (csv format): lossless. Scalars as plain text (strings raw, floats in shortest
//   round-trip form, timestamps ISO 8601, binary base64); nested values as JSON.
// - JSON (json format): a JSON value. Floats of every width (float16 too) are numbers; those
//   JSON cannot hold (NaN, ±inf) become null; timestamps and dates are ISO 8601 strings; binary
//   is base64.
// Floats are written in the shortest form that reads back as the same value of their own type
// (a float16 0.1 is 0.1); display and csv write NaN, inf and -inf.
#pragma once

#include <arrow/array.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::util {

// Widest display cell, in terminal columns.
inline constexpr size_t kMaxDisplayWidth = 60;

void AppendDisplayValue(const arrow::Array& array, int64_t row, std::string* out);

// Precondition: the value is not null (a CSV null is an empty field).
void AppendPlainValue(const arrow::Array& array, int64_t row, std::string* out);

void AppendJsonValue(const arrow::Array& array, int64_t row, std::string* out);

// `text` as a quoted JSON string.
void AppendJsonString(std::string_view text, std::string* out);

// Terminal columns `text` (UTF-8) takes: wide East Asian characters count 2.
size_t DisplayWidth(std::string_view text);

// True for integer, floating-point and decimal types: shown right-aligned.
bool IsNumeric(const arrow::DataType& type);

}  // namespace tessera::util
