// Arrow results as MySQL text result sets: the column count, one ColumnDefinition41 per
// column, then one text row per row (docs/server.md, "Types").
//
// Types map as MySQL clients expect them: integers to TINY/SHORT/LONG/LONGLONG (UNSIGNED for
// unsigned ones), float16/float32 to FLOAT, float64 to DOUBLE, bool to TINY (1/0), strings to
// VAR_STRING (utf8mb4), binary to BLOB (the raw bytes), date to DATE, timestamp to DATETIME
// ('YYYY-MM-DD HH:MM:SS[.ffffff]', UTC), and lists and vectors to VAR_STRING holding JSON text
// ([0.1, 0.2, ...]). NULL is MySQL's NULL.
#pragma once

#include <arrow/table.h>

#include <string>
#include <vector>

namespace tessera::server {

// The column definition packets of `schema`; `table` names the table they come from (may be
// empty).
std::vector<std::string> ColumnDefinitionPayloads(const arrow::Schema& schema,
                                                  const std::string& database,
                                                  const std::string& table);

// Appends the text row payloads of `batch` to `rows`.
void AppendTextRows(const arrow::RecordBatch& batch, std::vector<std::string>* rows);

// Appends the binary protocol's row payloads (COM_STMT_EXECUTE's answer) of `batch`: a 0x00
// header, the NULL bitmap (offset 2), then each value in its column type's binary encoding.
void AppendBinaryRows(const arrow::RecordBatch& batch, std::vector<std::string>* rows);

}  // namespace tessera::server
