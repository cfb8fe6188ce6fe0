#include "tessera/index/scalar/bitmap_segment_reader.h"

#include <algorithm>

#include "tessera/index/scalar/bitmap_family.h"
#include "tessera/index/scalar/posting_segment.h"
#include "tessera/status.h"
#include "tessera/util/radix_sort.h"

namespace tessera::index::scalar {

arrow::Result<std::unique_ptr<BitmapSegmentReader>> BitmapSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  ARROW_ASSIGN_OR_RAISE(auto postings, OpenPostingSegment(kBitmapFamilyName, segment, directory));
  return std::unique_ptr<BitmapSegmentReader>(new BitmapSegmentReader(std::move(postings)));
}

arrow::Result<std::vector<std::pair<int64_t, int64_t>>> BitmapSegmentReader::Spans(
    const ScalarQuery& query) const {
  std::vector<std::pair<int64_t, int64_t>> spans;
  switch (query.kind) {
    case ScalarQuery::Kind::kEquals:
    case ScalarQuery::Kind::kIn: {
      if (query.kind == ScalarQuery::Kind::kEquals && query.values.size() != 1) {
        return InvalidArgument("an equality query on BITMAP segment ", meta().uuid(),
                               " takes one value, got ", query.values.size());
      }
      std::vector<int64_t> positions;
      for (const auto& value : query.values) {
        if (value == nullptr) {
          return InvalidArgument("a query on BITMAP segment ", meta().uuid(), " lacks a value");
        }
        ARROW_ASSIGN_OR_RAISE(auto position, postings_->Find(*value));
        if (position) positions.push_back(*position);
      }
      std::sort(positions.begin(), positions.end());
      positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
      for (int64_t position : positions) spans.emplace_back(position, position + 1);
      return spans;
    }
    case ScalarQuery::Kind::kRange: {
      ARROW_ASSIGN_OR_RAISE(auto range, postings_->Range(query.lower, query.upper));
      if (range.first < range.second) spans.push_back(range);
      return spans;
    }
    case ScalarQuery::Kind::kIsNotNull:
      if (postings_->num_keys() > 0) spans.emplace_back(0, postings_->num_keys());
      return spans;
    case ScalarQuery::Kind::kIsNull:
      break;
  }
  return InvalidArgument("BITMAP segment ", meta().uuid(), " has no key spans for this query");
}

Capability BitmapSegmentReader::Assess(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) return {};
  if (query->kind == ScalarQuery::Kind::kIsNull) {
    return {Coverage::kExact,
            static_cast<double>(PostingDetail(meta(), kDetailNumNulls, meta().num_rows()))};
  }
  // A literal of another type than the column's: decline, so the planner scans.
  auto spans = Spans(*query);
  if (!spans.ok()) return {};
  uint64_t rows = 0;
  for (const auto& [begin, end] : *spans) rows += postings_->CountRange(begin, end);
  return {Coverage::kExact, static_cast<double>(rows)};
}

arrow::Result<RowAddressSet> BitmapSegmentReader::Answer(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) {
    return InvalidArgument("BITMAP segment ", meta().uuid(), " of index '", meta().index_name(),
                           "' cannot answer ", leaf.ToString());
  }
  return Search(*query);
}

arrow::Result<std::optional<uint64_t>> BitmapSegmentReader::Count(const expr::Node& leaf) const {
  const auto query = ScalarQueryOf(leaf);
  if (!query) return std::nullopt;
  if (query->kind == ScalarQuery::Kind::kIsNull) {
    ARROW_ASSIGN_OR_RAISE(auto nulls, postings_->NullRows());
    return nulls.size();
  }
  ARROW_ASSIGN_OR_RAISE(auto spans, Spans(*query));
  uint64_t rows = 0;
  for (const auto& [begin, end] : spans) rows += postings_->CountRange(begin, end);
  return rows;
}

arrow::Result<RowAddressSet> BitmapSegmentReader::Search(const ScalarQuery& query) const {
  RowAddressSet result;
  result.exact = true;
  if (query.kind == ScalarQuery::Kind::kIsNull) {
    ARROW_ASSIGN_OR_RAISE(result.rows, postings_->NullRows());
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(auto spans, Spans(query));
  size_t keys = 0;
  for (const auto& [begin, end] : spans) {
    ARROW_RETURN_NOT_OK(postings_->AppendPostings(begin, end, &result.rows));
    keys += static_cast<size_t>(end - begin);
  }
  // One key's rows ascend; several keys' rows interleave (a row holds one value: no duplicates).
  if (keys > 1) util::RadixSort(&result.rows);
  return result;
}

}  // namespace tessera::index::scalar
