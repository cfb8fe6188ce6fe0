#include "tessera/query/nearest_sources.h"

#include <unordered_map>
#include <utility>

#include "tessera/index/index_family.h"
#include "tessera/query/nearest_explain.h"

namespace tessera::query {

using index::vector::Metric;
using index::vector::MetricName;

arrow::Result<std::vector<ColumnVectorIndex>> OpenVectorIndexes(const Snapshot& snapshot,
                                                                int column_index,
                                                                std::vector<std::string>* notes) {
  std::vector<ColumnVectorIndex> indexes;
  for (int position : snapshot.IndexesOnField(column_index)) {
    ARROW_ASSIGN_OR_RAISE(const OpenedIndex* opened, snapshot.Index(position));
    const format::IndexDef& definition = *opened->definition;
    if (opened->family == nullptr) {
      notes->push_back("index '" + definition.name() + "' not used: unknown index family '" +
                       definition.family() + "'");
      continue;
    }
    ColumnVectorIndex found;
    found.definition = &definition;
    bool is_vector = true;
    for (const OpenedSegment& segment : opened->segments) {
      if (segment.reader->AsVector() == nullptr) {
        is_vector = false;
        break;
      }
      found.segments.push_back({segment.reader, segment.live_fragments});
    }
    if (!is_vector) continue;
    const std::optional<Metric> metric = opened->family->MetricOf(definition);
    if (metric) {
      found.metric = *metric;
    } else if (!found.segments.empty()) {
      // A definition whose parameters name no metric (not written by Validate): its segments
      // know theirs.
      found.metric = found.segments.front().reader->AsVector()->metric();
    } else {
      continue;  // not a vector index, or nothing to go by
    }
    indexes.push_back(std::move(found));
  }
  return indexes;
}

void NearestSources::MoveToExactTail(size_t segment, const ExactReason& reason) {
  for (size_t position : segments[segment].fragments) {
    segment_of[position] = -1;
    exact_reasons[position] = reason;
  }
  segments[segment].fragments.clear();
}

std::vector<size_t> NearestSources::ExactTail() const {
  std::vector<size_t> positions;
  for (size_t position = 0; position < segment_of.size(); ++position) {
    if (segment_of[position] < 0) positions.push_back(position);
  }
  return positions;
}

NearestSources AssignSources(const format::Manifest& manifest,
                             std::vector<ColumnVectorIndex> indexes, int dim,
                             std::optional<Metric> asked, std::vector<std::string> notes) {
  NearestSources sources;
  sources.notes = std::move(notes);
  if (asked) {
    sources.metric = *asked;
    sources.metric_choice = MetricChoice::kAsked;
  } else if (!indexes.empty()) {
    sources.metric = indexes.front().metric;
    sources.metric_choice = MetricChoice::kIndex;
    sources.metric_index = indexes.front().definition->name();
  }
  const Metric metric = sources.metric;

  std::unordered_map<uint32_t, int> assignment;  // fragment id → segment
  Roaring other_metric_covered;
  for (auto& vector_index : indexes) {
    if (vector_index.segments.empty()) continue;  // its metric may still have been the default
    const std::string& name = vector_index.definition->name();
    if (vector_index.metric != metric) {
      sources.notes.push_back("index '" + name + "' not used: metric " +
                              std::string(MetricName(vector_index.metric)) +
                              " differs from query metric " + std::string(MetricName(metric)));
      for (const auto& segment : vector_index.segments) {
        other_metric_covered |= segment.live_fragments;
      }
      continue;
    }
    for (auto& segment : vector_index.segments) {
      const index::VectorSegmentReader* reader = segment.reader->AsVector();
      const std::string uuid = segment.reader->meta().uuid();
      if (reader->metric() != metric || reader->dim() != dim) {
        sources.notes.push_back("segment " + ShortUuid(uuid) + " of index '" + name +
                                "' not used: it holds " + std::to_string(reader->dim()) +
                                "-dimensional vectors with metric " +
                                std::string(MetricName(reader->metric())));
        continue;
      }
      VectorSource source;
      source.index_name = name;
      source.family = vector_index.definition->family();
      source.segment_uuid = uuid;
      source.reader = reader;
      source.owner = std::move(segment.reader);
      const int segment_id = static_cast<int>(sources.segments.size());
      // The first usable segment covering a fragment (indexes in manifest order) serves it.
      for (uint32_t fragment : segment.live_fragments) assignment.emplace(fragment, segment_id);
      sources.segments.push_back(std::move(source));
    }
  }

  const auto count = static_cast<size_t>(manifest.fragments_size());
  sources.segment_of.assign(count, -1);
  sources.exact_reasons.resize(count);
  for (size_t position = 0; position < count; ++position) {
    const uint32_t id = manifest.fragments(static_cast<int>(position)).id();
    if (auto found = assignment.find(id); found != assignment.end()) {
      sources.segment_of[position] = found->second;
      sources.segments[static_cast<size_t>(found->second)].fragments.push_back(position);
    } else if (other_metric_covered.contains(id)) {
      sources.exact_reasons[position].kind = ExactReason::Kind::kOtherMetric;
    }
  }
  return sources;
}

arrow::Result<NearestSources> FindNearestSources(const Snapshot& snapshot, int column_index,
                                                 int dim, std::optional<Metric> asked) {
  std::vector<std::string> notes;
  ARROW_ASSIGN_OR_RAISE(auto indexes, OpenVectorIndexes(snapshot, column_index, &notes));
  return AssignSources(snapshot.manifest(), std::move(indexes), dim, asked, std::move(notes));
}

}  // namespace tessera::query
