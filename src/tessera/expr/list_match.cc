#include "tessera/expr/list_match.h"

#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <vector>

namespace tessera::expr {

namespace {

template <typename ListArrayType>
arrow::Result<std::shared_ptr<arrow::BooleanArray>> Match(
    const ListArrayType& lists, ArrayMatch match, const std::shared_ptr<arrow::Array>& values) {
  const int64_t rows = lists.length();
  const int64_t first = rows > 0 ? lists.value_offset(0) : 0;
  const int64_t last = rows > 0 ? lists.value_offset(rows) : 0;
  const int64_t wanted = values->length();

  // For every element of every row (sliced to the rows at hand): the index of the literal it
  // equals, or null.
  std::shared_ptr<arrow::Int32Array> found;
  if (wanted > 0 && last > first) {
    arrow::compute::SetLookupOptions options(values, arrow::compute::SetLookupOptions::SKIP);
    ARROW_ASSIGN_OR_RAISE(auto indices,
                          arrow::compute::CallFunction(
                              "index_in", {lists.values()->Slice(first, last - first)}, &options));
    found = std::static_pointer_cast<arrow::Int32Array>(indices.make_array());
  }

  arrow::BooleanBuilder builder;
  RETURN_NOT_OK(builder.Reserve(rows));
  // stamp[k] == row + 1 when literal k was already seen in this row: counts distinct matches
  // without clearing a set per row.
  std::vector<int64_t> stamp(match == ArrayMatch::kAll ? wanted : 0, 0);
  for (int64_t row = 0; row < rows; ++row) {
    if (lists.IsNull(row)) {
      builder.UnsafeAppendNull();
      continue;
    }
    const int64_t begin = lists.value_offset(row) - first;
    const int64_t end = lists.value_offset(row + 1) - first;
    bool result = match == ArrayMatch::kAll && wanted == 0;
    if (found != nullptr) {
      int64_t distinct = 0;
      for (int64_t element = begin; element < end; ++element) {
        if (found->IsNull(element)) continue;
        if (match == ArrayMatch::kAny) {
          result = true;
          break;
        }
        const int32_t index = found->Value(element);
        if (stamp[index] != row + 1) {
          stamp[index] = row + 1;
          if (++distinct == wanted) {
            result = true;
            break;
          }
        }
      }
    }
    builder.UnsafeAppend(result);
  }
  std::shared_ptr<arrow::BooleanArray> out;
  RETURN_NOT_OK(builder.Finish(&out));
  return out;
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::BooleanArray>> MatchListElements(
    const arrow::Array& lists, ArrayMatch match, const std::shared_ptr<arrow::Array>& values) {
  switch (lists.type_id()) {
    case arrow::Type::LIST:
      return Match(static_cast<const arrow::ListArray&>(lists), match, values);
    case arrow::Type::LARGE_LIST:
      return Match(static_cast<const arrow::LargeListArray&>(lists), match, values);
    default:
      return arrow::Status::Invalid("array_has_any / array_has_all need a list array, got ",
                                    lists.type()->ToString());
  }
}

}  // namespace tessera::expr
