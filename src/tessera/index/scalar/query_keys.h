// Query keys: how a reader whose values order as BTREE keys (btree_key.h) — the BTREE's pages,
// the ZONEMAP's zone minima and maxima — turns the values of a ScalarQuery into keys of its
// segment's domain.
//
// A null query value matches nothing (a comparison with null is unknown), nor does NaN (equal
// to nothing; every ordering comparison with it is false); -0.0 and 0.0 are one key. A value
// absent or of a type the segment's values cannot be compared with (QueryTypeMatches) is
// InvalidArgument naming the family, index and segment: the caller's bug.
#pragma once

#include <arrow/result.h>
#include <arrow/scalar.h>
#include <arrow/type.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/scalar/btree_key.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

template <typename Key>
struct Bound {
  Key key;
  bool inclusive = true;
};

// The bounds of a kRange query; an absent bound is unbounded.
template <typename Key>
struct KeyRange {
  std::optional<Bound<Key>> lower;
  std::optional<Bound<Key>> upper;
};

// The key of `value` for `segment` of `family`, whose values are stored as `storage`; nullopt
// for a null value.
template <typename Key>
arrow::Result<std::optional<Key>> QueryKeyOf(std::string_view family,
                                             const format::SegmentMeta& segment,
                                             const arrow::DataType& storage,
                                             const arrow::Scalar* value) {
  if (value == nullptr) {
    return InvalidArgument("a query on ", family, " segment ", segment.uuid(), " lacks a value");
  }
  if (!value->is_valid) return std::nullopt;
  if (!QueryTypeMatches(*value->type, storage)) {
    return InvalidArgument(family, " index '", segment.index_name(), "' (segment ", segment.uuid(),
                           ") holds values of type ", storage.ToString(),
                           " and cannot compare them with a query value of type ",
                           value->type->ToString(), "; cast the value to the column's type");
  }
  ARROW_ASSIGN_OR_RAISE(Key key, KeyOfScalar<Key>(*value));
  return key;
}

// The keys of a kEquals or kIn query's values, sorted and each once (IN is `= ANY`); null and
// NaN values are left out, as they equal nothing.
template <typename Key>
arrow::Result<std::vector<Key>> QueryKeysOf(std::string_view family,
                                            const format::SegmentMeta& segment,
                                            const arrow::DataType& storage,
                                            const ScalarQuery& query) {
  std::vector<Key> keys;
  for (const auto& value : query.values) {
    ARROW_ASSIGN_OR_RAISE(auto key, QueryKeyOf<Key>(family, segment, storage, value.get()));
    if (key.has_value() && !IsNanKey(*key)) keys.push_back(*key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// The bounds of a kRange query, lower first; nullopt when either is null or NaN, which no row
// satisfies.
template <typename Key>
arrow::Result<std::optional<KeyRange<Key>>> QueryRangeOf(std::string_view family,
                                                         const format::SegmentMeta& segment,
                                                         const arrow::DataType& storage,
                                                         const ScalarQuery& query) {
  KeyRange<Key> range;
  std::optional<Bound<Key>>* bounds[2] = {&range.lower, &range.upper};
  const std::optional<ScalarBound>* given[2] = {&query.lower, &query.upper};
  for (int side = 0; side < 2; ++side) {
    if (!given[side]->has_value()) continue;
    ARROW_ASSIGN_OR_RAISE(auto key,
                          QueryKeyOf<Key>(family, segment, storage, (*given[side])->value.get()));
    if (!key.has_value() || IsNanKey(*key)) return std::nullopt;
    *bounds[side] = Bound<Key>{*key, (*given[side])->inclusive};
  }
  return range;
}

// Whether no key lies within `range`: its lower bound above its upper one, or both equal and
// either exclusive.
template <typename Key>
bool IsEmptyRange(const KeyRange<Key>& range) {
  if (!range.lower || !range.upper) return false;
  if (range.upper->key < range.lower->key) return true;
  const bool equal = !(range.lower->key < range.upper->key);
  return equal && !(range.lower->inclusive && range.upper->inclusive);
}

}  // namespace tessera::index::scalar
