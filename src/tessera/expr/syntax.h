// The syntax tree: what the parser makes of filter text before it meets a schema.
//
// It records what was written and where, nothing more: names are not resolved and literals keep
// their written kind (an integer, a float, a string...). The binder turns it into the typed AST
// of ast.h. Integer literals are kept exactly, in 128 bits, so that `u64 = 18446744073709551615`
// and `u8 < -300` can be answered exactly against any column type. An integer literal beyond
// ±(2^64 - 1) is a float (the nearest double): no integer column holds it, so against one it is
// still compared exactly, and against a float column it is rounded like any float literal.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/expr/ast.h"
#include "tessera/expr/temporal.h"

namespace tessera::expr {

struct LiteralValue {
  enum class Kind { kNull, kBoolean, kInteger, kFloat, kString, kDate, kTimestamp };
  Kind kind = Kind::kNull;
  bool boolean = false;
  // kInteger: the value, within ±(2^64 - 1). kDate: days since the epoch. kTimestamp:
  // nanoseconds since the epoch.
  __int128 integer = 0;
  double real = 0;  // kFloat (finite)
  // kString: the value, escapes resolved. kFloat read from an integer literal beyond
  // ±(2^64 - 1): its spelling, sign included, so that messages show what was written.
  std::string string;
};

// "integer literal 5", "string literal 'abc'", "DATE literal '2024-01-01'".
std::string DescribeLiteral(const LiteralValue& literal);

struct SyntaxNode {
  enum class Kind {
    kColumn,      // name
    kLiteral,     // literal
    kCompare,     // children: left, right; op
    kIn,          // children: operand, items...; negated: NOT IN
    kBetween,     // children: operand, lower, upper; negated: NOT BETWEEN
    kIsNull,      // children: operand; negated: IS NOT NULL
    kLike,        // children: operand, pattern[, escape]; name: like / ilike; negated: NOT
    kCall,        // name (lower case, or the operator: + - * / % || and unary "negate"); children:
                  // arguments
    kArray,       // [items...]
    kCast,        // children: operand; name: the type as written (lower case); negated: TRY_CAST
    kCase,        // children: [operand] (when, then)... [else]; has_operand, has_else
    kIsDistinct,  // children: left, right; negated: IS NOT DISTINCT FROM
    kIsTruth,     // children: operand; literal: TRUE, FALSE or NULL (UNKNOWN); negated: IS NOT
    kAnd,         // children: two or more
    kOr,          // children: two or more
    kNot,         // children: operand
  };

  Kind kind;
  int position;  // 1-based character offset of the construct (its operator for binary forms)
  std::string name;
  LiteralValue literal;
  CompareOp op = CompareOp::kEqual;
  bool negated = false;
  bool has_operand = false;  // kCase: CASE operand WHEN value THEN ...
  bool has_else = false;     // kCase
  // SQL statements only (ParseExpression with sql): kColumn `t.c` keeps `t` here; kCall
  // `f(DISTINCT x)` has distinct, and `count(*)` has star and no children.
  std::string qualifier;
  bool distinct = false;
  bool star = false;
  std::vector<std::unique_ptr<SyntaxNode>> children;
};

}  // namespace tessera::expr
