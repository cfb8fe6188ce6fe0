// Inspection of indexes: logical summaries with coverage, physical segment entries.
#include <algorithm>

#include "tessera/dataset/operation.h"
#include "tessera/index/build_context.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index {

namespace {

IndexSummary Summarize(const dataset::Dataset& dataset, const format::IndexDef& definition) {
  IndexSummary summary;
  summary.name = definition.name();
  summary.column = ColumnOfField(dataset, definition.field_id());
  summary.family = definition.family();
  summary.params = Params(definition.params().begin(), definition.params().end());
  summary.num_segments = definition.segments_size();
  Roaring covered;
  for (const auto& segment : definition.segments()) {
    summary.segments.push_back(segment);
    auto fragments = DecodeFragmentBitmap(segment);
    if (fragments.ok()) covered |= *fragments;
  }
  for (const auto& fragment : dataset.manifest().fragments()) {
    const uint64_t live = fragment.physical_rows() - fragment.deletion().num_deleted();
    if (covered.contains(fragment.id())) {
      summary.indexed_rows += live;
      summary.indexed_fragments += 1;
    } else {
      summary.unindexed_rows += live;
      summary.unindexed_fragments += 1;
    }
  }
  return summary;
}

}  // namespace

std::vector<IndexSummary> ListIndexes(const dataset::Dataset& dataset, bool include_system) {
  std::vector<IndexSummary> summaries;
  for (const auto& definition : dataset.manifest().indexes()) {
    if (!include_system && IsSystemIndexName(definition.name())) continue;
    summaries.push_back(Summarize(dataset, definition));
  }
  // Name order: the manifest's order changes with every commit of an index.
  std::stable_sort(summaries.begin(), summaries.end(),
                   [](const IndexSummary& a, const IndexSummary& b) { return a.name < b.name; });
  return summaries;
}

arrow::Result<IndexSummary> DescribeIndex(const dataset::Dataset& dataset, std::string_view name) {
  const auto found = dataset::FindIndexes(dataset.manifest(), name);
  if (found.empty()) {
    return NotFound("dataset ", dataset.uri(), " (version ", dataset.version(),
                    ") has no index named '", name, "'");
  }
  if (found.size() > 1) {
    return Error(ErrorKind::kAmbiguous, "several indexes are named '", name,
                 "' ignoring case, which tessera cannot tell apart (another tool wrote them); "
                 "open a version from before the second one was added");
  }
  return Summarize(dataset, dataset.manifest().indexes(found[0]));
}

std::vector<std::pair<std::string, format::SegmentMeta>> ListSegments(
    const dataset::Dataset& dataset, bool include_system) {
  std::vector<std::pair<std::string, format::SegmentMeta>> entries;
  for (const auto& definition : dataset.manifest().indexes()) {
    if (!include_system && IsSystemIndexName(definition.name())) continue;
    for (const auto& segment : definition.segments()) {
      entries.emplace_back(definition.name(), segment);
    }
  }
  return entries;
}

}  // namespace tessera::index
