// Prepared statements (docs/server.md, "Prepared statements"): COM_STMT_PREPARE,
// COM_STMT_SEND_LONG_DATA, COM_STMT_EXECUTE, COM_STMT_RESET, COM_STMT_CLOSE.
//
// A prepared statement is its text with `?` placeholders (found outside quotes and comments,
// as client_statements.h reads them). EXECUTE binds each parameter as an SQL literal of its
// value — integers and floats as numbers, strings and blobs as quoted strings (' doubled,
// backslashes escaped, NUL as \0), DATE / DATETIME / TIMESTAMP as DATE '...' / TIMESTAMP
// '...', NULL as NULL — and runs the text as COM_QUERY would, answering with a binary result
// set. Binding literals rather than values keeps one execution path for both protocols; the
// parser never sees a parameter's bytes unquoted.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/server/wire.h"

namespace tessera::server {

struct PreparedStatement {
  std::string text;
  std::vector<size_t> placeholders;           // positions of the `?` in text
  std::vector<uint16_t> types;                // the parameter types the client bound last
  std::map<uint16_t, std::string> long_data;  // SEND_LONG_DATA, until the next EXECUTE
  bool long_data_too_large = false;           // more than max_allowed_packet was sent
};

// A statement of `text`: its placeholders found.
PreparedStatement Prepare(std::string text);

// The text with the parameters of COM_STMT_EXECUTE's payload (after the statement id) bound.
// Malformed parameters: 1210 (wrong arguments) naming the parameter.
arrow::Result<std::string> BindParameters(PreparedStatement& statement, PayloadReader& in);

// COM_STMT_PREPARE_OK: the statement id, its result columns (0: told at EXECUTE) and
// parameters.
std::string PrepareOkPayload(uint32_t id, uint16_t columns, uint16_t parameters);

}  // namespace tessera::server
