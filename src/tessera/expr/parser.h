// The parser of the filter language: filter text → syntax tree (syntax.h), by recursive
// descent with SQL precedence (lowest first: OR, AND, NOT, IS, comparisons, ||, + -, * / %,
// unary signs, ::). It knows nothing of schemas: names and types are the binder's business.
//
//   filter    := or
//   or        := and (OR and)*
//   and       := not (AND not)*
//   not       := NOT not | is
//   is        := predicate (IS [NOT] (NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM predicate))*
//   predicate := concat [cmp concat | [NOT] IN '(' concat (',' concat)* ')'
//                        | [NOT] BETWEEN concat AND concat | [NOT] LIKE concat]
//   concat    := additive ('||' additive)*
//   additive  := multiplicative (('+' | '-') multiplicative)*
//   multiplicative := unary (('*' | '/' | '%') unary)*
//   unary     := ('-' | '+') unary | postfix          (a sign before a number is the literal's)
//   postfix   := primary ('::' type)*
//   primary   := '(' or ')' | CASE [or] (WHEN or THEN or)+ [ELSE or] END
//              | (CAST | TRY_CAST) '(' or AS type ')' | call | column | literal
//   call      := name '(' [argument (',' argument)*] ')'     argument := or | array
//   array     := '[' [concat (',' concat)*] ']'
//   literal   := number | string | TRUE | FALSE | NULL | DATE string | TIMESTAMP string
//
// Nesting (parentheses, NOT, signs, CASE, CAST and calls) is bounded by kMaxFilterDepth.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string_view>
#include <vector>

#include "tessera/expr/lexer.h"
#include "tessera/expr/syntax.h"

namespace tessera::expr {

// How deeply a filter may nest; deeper filters are rejected with InvalidArgument. The parser
// recurses through its precedence levels, about 16 frames per level; 500 levels stay within an
// 8 MiB thread stack with room to spare even in an unoptimized AddressSanitizer build, and the
// binder and the evaluator recurse once per level.
inline constexpr int kMaxFilterDepth = 500;

// Fails with InvalidArgument naming the position and what was expected there.
arrow::Result<std::unique_ptr<SyntaxNode>> ParseSyntax(std::string_view text);

// For the SQL surface: parses one expression of `tokens` (lexed from `text` with
// LexOptions::sql) from tokens[*at], leaving *at at the first token after it. The SQL dialect
// adds `qualifier.column` names, `count(*)` and `f(DISTINCT x)` (syntax.h), and reserves the
// words that end an expression in a statement (FROM, WHERE, GROUP, AS, ...; IsSqlReserved) as
// column names unless quoted. Errors point at line and column of `text`; *at is then the token
// the parser stopped at.
arrow::Result<std::unique_ptr<SyntaxNode>> ParseSqlExpression(std::string_view text,
                                                              const std::vector<Token>& tokens,
                                                              size_t* at);

// Words of statements that cannot be unquoted column names or aliases in SQL.
bool IsSqlReserved(const Token& token);

// Whether `token` is the identifier `keyword` (upper case), in any case.
bool IsKeyword(const Token& token, std::string_view keyword);

}  // namespace tessera::expr
