// ScalarSegmentReader: a segment of a scalar family (BTREE, ...) answering simple predicates
// on its column with row addresses. The planner decomposes filters into ScalarQuery leaves,
// combines the answers with set operations, applies deletions and rechecks where needed.
#pragma once

#include <arrow/result.h>
#include <arrow/scalar.h>

#include <memory>
#include <optional>
#include <vector>

#include "tessera/index/index_family.h"

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

class ScalarSegmentReader : public SegmentReader {
 public:
  ScalarSegmentReader* AsScalar() override { return this; }
  // Row addresses of rows whose (non-null) value satisfies `query` (kIsNull: null rows).
  // Answers equal the unindexed scan's (Arrow compute): kEquals and kRange never match NaN
  // (like `equal`/`less`), -0.0 equals 0.0; kIn follows `is_in`, where a NaN in the list
  // matches NaN rows and 0.0 / -0.0 match only themselves; null query values match nothing.
  virtual arrow::Result<RowAddressSet> Search(const ScalarQuery& query) const = 0;
};

}  // namespace tessera::index
