#include "tessera/query/segment_count.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/index/scalar_segment.h"
#include "tessera/status.h"

namespace tessera::query {

namespace {

// The count of `leaf` by index `opened`, when its segments satisfy segment_count.h's
// conditions over the fragments of `snapshot`; nullopt otherwise.
arrow::Result<std::optional<uint64_t>> CountByIndex(
    const Snapshot& snapshot, const std::unordered_map<uint32_t, uint64_t>& physical_rows,
    const OpenedIndex& opened, const expr::Node& leaf, std::string* how) {
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
    // It indexed every row of its fragments: its counts cannot be checked against addresses as
    // the planner checks answers, so a segment that disagrees with the manifest is left to the
    // planner, which reports what is wrong with it.
    uint64_t rows = 0;
    for (uint32_t fragment : segment.fragments) rows += physical_rows.at(fragment);
    if (segment.meta->num_rows() != rows) return std::nullopt;
    covered |= segment.fragments;
    readers.push_back(reader);
  }
  if (covered != snapshot.fragment_ids()) return std::nullopt;
  uint64_t rows = 0;
  for (size_t i = 0; i < readers.size(); ++i) {
    auto counted = readers[i]->Count(leaf);
    if (!counted.ok()) {
      return WithContext(counted.status(), "counting " + PredicateText(leaf) + " with segment " +
                                               opened.segments[i].meta->uuid() + " of index '" +
                                               opened.definition->name() + "'");
    }
    if (!counted->has_value()) return std::nullopt;
    if (**counted > opened.segments[i].meta->num_rows()) {
      return Corrupt("segment ", opened.segments[i].meta->uuid(), " of index '",
                     opened.definition->name(), "' counts ", **counted, " rows for ",
                     PredicateText(leaf), " but indexed ", opened.segments[i].meta->num_rows(),
                     "; rebuild the index (tessera index create --replace) or drop it");
    }
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
  std::vector<uint32_t> ids;
  std::unordered_map<uint32_t, uint64_t> physical_rows;
  for (const auto& fragment : snapshot.manifest().fragments()) {
    if (fragment.has_deletion()) return std::nullopt;
    ids.push_back(fragment.id());
    physical_rows[fragment.id()] = fragment.physical_rows();
  }
  if (ids.empty()) return std::nullopt;
  for (int position : snapshot.IndexesOnField(column->field_index())) {
    // Families that answer no predicate (full-text, vector) are not even opened.
    const index::IndexFamily* family =
        index::FindFamily(snapshot.manifest().indexes(position).family());
    if (family == nullptr || !family->answers_predicates()) continue;
    ARROW_ASSIGN_OR_RAISE(const OpenedIndex* opened, snapshot.Index(position));
    if (opened->family == nullptr || opened->segments.empty()) continue;
    std::string how;
    ARROW_ASSIGN_OR_RAISE(auto rows,
                          CountByIndex(snapshot, physical_rows, *opened, filter.root(), &how));
    if (!rows) continue;
    if (explain != nullptr) explain->Add(DescribeFragments(ids) + ": " + how);
    return rows;
  }
  return std::nullopt;
}

}  // namespace tessera::query
