// The lexer of the filter language: splits filter text into tokens.
//
// Every token records its 1-based character position (UTF-8 code points, not bytes) so that
// every later error can point at the exact place in the text the user typed. Keywords are not
// distinguished here: they lex as identifiers and the parser matches them case-insensitively,
// which lets DATE / TIMESTAMP stay usable as column names.
//
// The SQL surface (src/tessera/sql/) lexes statements with the same rules plus its dialect
// (LexOptions::sql, MySQL's): `back-quoted` names, "double-quoted" strings, -- and /* */
// comments, and the tokens ; . => of statements.
#pragma once

#include <arrow/result.h>

#include <string>
#include <string_view>
#include <vector>

namespace tessera::expr {

enum class TokenKind {
  kIdentifier,        // name or keyword: [A-Za-z_][A-Za-z0-9_]*
  kQuotedIdentifier,  // "any name"; text holds the unquoted name
  kInteger,           // digits only; text holds the digits
  kFloat,             // 1.5, .5, 1e3, 2.5E-3; text holds the spelling
  kString,            // 'text'; text holds the value with escapes resolved
  kEqual,             // = or ==
  kNotEqual,          // != or <>
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kMinus,
  kPlus,
  kLeftParen,
  kRightParen,
  kLeftBracket,
  kRightBracket,
  kComma,
  kStar,         // *
  kSlash,        // /
  kPercent,      // %
  kConcat,       // ||
  kDoubleColon,  // :: (cast)
  kSemicolon,    // ; (SQL only)
  kDot,          // . between names (SQL only)
  kArrow,        // => (SQL only: named arguments)
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string text;
  int position;  // 1-based character offset of the token's first character
};

// How a token reads in an error message ("'AND'", "end of filter", "string 'abc'").
std::string DescribeToken(const Token& token);

struct LexOptions {
  // The SQL dialect: `name` is a quoted identifier and "text" a string (MySQL's rules, where
  // the filter language has "name"); comments; ; . => tokens; errors point at line and column.
  bool sql = false;
};

// Splits `text` into tokens, ending with a kEnd token. Fails with InvalidArgument on an
// unterminated string, quoted name or comment, an unknown escape, or a character outside the
// language.
arrow::Result<std::vector<Token>> Lex(std::string_view text, const LexOptions& options = {});

}  // namespace tessera::expr
