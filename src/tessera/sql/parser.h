// The statement parser: SQL text → statements (statement.h), by recursive descent over the
// expression language's tokens in its SQL dialect (expr/lexer.h); expressions are parsed by the
// expression parser itself (expr::ParseSqlExpression), so every expression form of filters is
// valid in statements and means the same.
//
// Errors are kParseError (1064) with the line, the column and the offending token; statements
// longer than kMaxStatementBytes, and FROM clauses nested deeper than kMaxQueryDepth, are
// rejected (kTooComplex) before anything deep is attempted, so no input overflows the stack.
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "tessera/sql/statement.h"

namespace tessera::sql {

// The longest script accepted, in bytes (MySQL's max_allowed_packet is of this order).
inline constexpr size_t kMaxStatementBytes = 4 << 20;
// How deeply subqueries and joins may nest in FROM.
inline constexpr int kMaxQueryDepth = 64;

// Every statement of `text`, separated by ';' (a last ';' is optional; empty statements are
// skipped). Positions are character offsets into `text` as a whole.
arrow::Result<std::vector<Statement>> ParseScript(std::string_view text);

}  // namespace tessera::sql
