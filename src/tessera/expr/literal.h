// Literals meet column types: a written literal (syntax.h) is resolved, exactly, against the
// type of the column it is compared with.
//
// The rule is "compare mathematically, never wrap": `u8 < 300` is true for every uint8, and
// `i64 > 2.5` means `i64 >= 3`. When no value of the column's type equals the literal, the
// resolution names the neighbouring representable values instead, which is all a comparison
// needs. Floating-point columns are the one place where a literal is rounded: `f32 = 0.1`
// compares with 0.1 rounded to float32, like an implicit SQL cast of the literal, because the
// user means the value they stored, not its float64 expansion.
#pragma once

#include <arrow/result.h>
#include <arrow/scalar.h>

#include <memory>
#include <optional>
#include <string_view>

#include "tessera/expr/ast.h"
#include "tessera/expr/syntax.h"

namespace tessera::expr {

struct ResolvedLiteral {
  // The literal as a scalar of the column's type, when the type can hold it.
  std::shared_ptr<arrow::Scalar> exact;
  // Otherwise: the greatest value of the type below the literal, and the least value above it;
  // null where none exists (300 has nothing above it in uint8). Never infinite.
  std::shared_ptr<arrow::Scalar> below;
  std::shared_ptr<arrow::Scalar> above;
};

// Reads the spelling of a float literal (digits, optional fraction, optional exponent; no sign),
// or of an integer literal too large for 64 bits, rounded to the nearest double. A value too
// small for a double underflows to 0 (1e-400 is 0; the caller applies the sign, so -1e-400 is
// -0.0); nullopt when it overflows (beyond about 1.8e308), which the caller reports naming the
// literal.
std::optional<double> ParseFloatSpelling(std::string_view spelling);

// Resolves a non-null literal against `type`. Fails with InvalidArgument (message without a
// position: the binder adds it) when the literal's kind does not fit the type's family, or when
// a string meant as a date does not parse.
arrow::Result<ResolvedLiteral> ResolveLiteral(const LiteralValue& literal,
                                              const std::shared_ptr<arrow::DataType>& type);

// Compares two non-null literals (`1 = 1.0`, `'a' < 'b'`, DATE '2024-01-01' < TIMESTAMP ...).
// Fails with InvalidArgument when their kinds are not comparable.
arrow::Result<bool> CompareLiterals(const LiteralValue& left, CompareOp op,
                                    const LiteralValue& right);

}  // namespace tessera::expr
