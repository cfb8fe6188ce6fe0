// The parser of the filter language: filter text → syntax tree (syntax.h), by recursive
// descent with SQL precedence (OR < AND < NOT < predicates). It knows nothing of schemas: names
// and types are the binder's business.
//
//   filter    := or
//   or        := and (OR and)*
//   and       := not (AND not)*
//   not       := NOT not | primary
//   primary   := '(' or ')' | call | operand [suffix]
//   suffix    := cmp operand | [NOT] IN '(' operand (',' operand)* ')'
//              | [NOT] BETWEEN operand AND operand | IS [NOT] NULL | [NOT] LIKE operand
//   call      := name '(' [argument (',' argument)*] ')'     argument := operand | array
//   array     := '[' [operand (',' operand)*] ']'
//   operand   := column | literal
//   literal   := ['-'|'+'] number | string | TRUE | FALSE | NULL
//              | DATE string | TIMESTAMP string
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string_view>

#include "tessera/expr/syntax.h"

namespace tessera::expr {

// Fails with InvalidArgument naming the position and what was expected there.
arrow::Result<std::unique_ptr<SyntaxNode>> ParseSyntax(std::string_view text);

}  // namespace tessera::expr
