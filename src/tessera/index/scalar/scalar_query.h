// ScalarQuery: the value-level predicates an ordered scalar index answers (equality, IN lists,
// ranges, null tests), and the translation of a filter's leaf predicates into them.
//
// A family whose segments order or enumerate values (BTREE; later BITMAP) answers these; it
// translates the leaves the planner hands it (index/scalar_segment.h) with ScalarQueryOf, so the
// rules that map filter syntax onto value predicates live in one place.
#pragma once

#include <arrow/scalar.h>

#include <memory>
#include <optional>
#include <vector>

#include "tessera/expr/ast.h"

namespace tessera::index {

struct ScalarBound {
  std::shared_ptr<arrow::Scalar> value;  // of the column's type
  bool inclusive = true;
};

struct ScalarQuery {
  enum class Kind {
    kEquals,  // value == values[0]
    kIn,      // value in values
    kRange,   // lower <(=) value <(=) upper; either bound may be absent
    kIsNull,
    kIsNotNull,
  };
  Kind kind = Kind::kEquals;
  std::vector<std::shared_ptr<arrow::Scalar>> values;  // kEquals, kIn: of the column's type
  std::optional<ScalarBound> lower;
  std::optional<ScalarBound> upper;
};

// The query whose answer is exactly the rows where `leaf` is TRUE, for the leaves that map onto
// one: `column op literal` (op other than !=), IN (a NULL in the list adds no TRUE row),
// BETWEEN, IS NULL, and a boolean column (= TRUE). Nullopt for anything else (LIKE, !=,
// array_has, column-vs-column). Semantics of the answer (NaN, -0.0): btree_segment_reader.h.
std::optional<ScalarQuery> ScalarQueryOf(const expr::Node& leaf);

}  // namespace tessera::index
