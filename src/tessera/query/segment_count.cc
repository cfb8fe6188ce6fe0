#include "tessera/query/segment_count.h"

#include <string>
#include <vector>

#include "tessera/index/scalar_segment.h"
#include "tessera/status.h"

namespace tessera::query {

namespace {

// The count of `leaf` by index `opened`, when its segments satisfy segment_count.h's
// conditions over the fragments of `snapshot` (`live`: their ids); nullopt otherwise.
arrow::Result<std::optional<uint64_t>> CountByIndex(const OpenedIndex& opened,
                                                    const expr::Node& leaf, const Roaring& live,
                                                    std::string* how) {
  Roaring covered;
  std::vector<const index::ScalarSegmentReader*> readers;
  for (const OpenedSegment& segment : opened.segments) {
    const index::ScalarSegmentReader* reader = segment.reader->AsScalar();
    if (reader == nullptr || reader->Assess(leaf).coverage != index::Coverage::kExact) {
      return std::nullopt;
    }
    // A fragment the segment covers left the version (its rows are still counted), or
    // another segment covers it too.
    if (segment.fragments != segment.live_fragments || covered.intersect(segment.fragments)) {
      return std::nullopt;
    }
    covered |= segment.fragments;
    readers.push_back(reader);
  }
  if (covered != live) return std::nullopt;
  uint64_t rows = 0;
  for (size_t i = 0; i < readers.size(); ++i) {
    auto counted = readers[i]->Count(leaf);
    if (!counted.ok()) {
      return WithContext(counted.status(), "counting " + leaf.ToString() + " with segment " +
                                               opened.segments[i].meta->uuid() + " of index '" +
                                               opened.definition->name() + "'");
    }
    if (!counted->has_value()) return std::nullopt;
    rows += **counted;
  }
  *how = opened.definition->family() + " index '" + opened.definition->name() + "' counts '" +
         PredicateText(leaf) + "' from its " + std::to_string(readers.size()) +
         (readers.size() == 1 ? " segment's" : " segments'") + " metadata (" +
         std::to_string(rows) + " rows)";
  return rows;
}

}  // namespace

arrow::Result<std::optional<uint64_t>> CountFromSegments(const Snapshot& snapshot,
                                                         const expr::Filter& filter,
                                                         Explain* explain) {
  const expr::Column* column = index::LeafColumn(filter.root());
  if (column == nullptr) return std::nullopt;
  Roaring live;
  std::vector<uint32_t> ids;
  for (const auto& fragment : snapshot.manifest().fragments()) {
    if (fragment.has_deletion()) return std::nullopt;
    live.add(fragment.id());
    ids.push_back(fragment.id());
  }
  if (ids.empty()) return std::nullopt;
  for (int position : snapshot.IndexesOnField(column->field_index())) {
    ARROW_ASSIGN_OR_RAISE(const OpenedIndex* opened, snapshot.Index(position));
    if (opened->family == nullptr || opened->segments.empty()) continue;
    std::string how;
    ARROW_ASSIGN_OR_RAISE(auto rows, CountByIndex(*opened, filter.root(), live, &how));
    if (!rows) continue;
    if (explain != nullptr) explain->Add(DescribeFragments(ids) + ": " + how);
    return rows;
  }
  return std::nullopt;
}

}  // namespace tessera::query
