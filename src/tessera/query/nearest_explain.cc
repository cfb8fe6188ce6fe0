#include "tessera/query/nearest_explain.h"

#include <map>
#include <vector>

namespace tessera::query {

namespace {

using index::vector::MetricName;

std::string DescribeMetric(const NearestSources& sources) {
  std::string text = std::string(MetricName(sources.metric));
  switch (sources.metric_choice) {
    case MetricChoice::kAsked:
      break;
    case MetricChoice::kIndex:
      text += " (of index '" + sources.metric_index + "')";
      break;
    case MetricChoice::kDefault:
      text += " (default)";
      break;
  }
  return text;
}

std::string DescribeHeader(const NearestOptions& options, const NearestSources& sources) {
  std::string header = "nearest: column '" + options.column + "', metric " +
                       DescribeMetric(sources) + ", k " + std::to_string(options.k);
  if (options.offset > 0) header += ", offset " + std::to_string(options.offset);
  if (options.lower_distance || options.upper_distance) {
    header += ", distance in [" +
              (options.lower_distance ? std::to_string(*options.lower_distance) : "-inf") + ", " +
              (options.upper_distance ? std::to_string(*options.upper_distance) : "inf") + ")";
  }
  return header;
}

// How an approximate (quantized) segment's distances are reported.
std::string DescribeRefinement(const NearestOptions& options, const VectorSource& source) {
  if (!source.reader->approximate()) return "";
  if (options.refine_factor <= 1) return ", approximate distances (refine_factor 1)";
  return ", k × " + std::to_string(options.refine_factor) +
         " candidates re-ranked by exact distance";
}

std::string DescribeExactReason(const ExactReason& reason) {
  switch (reason.kind) {
    case ExactReason::Kind::kUnindexed:
      break;
    case ExactReason::Kind::kOtherMetric:
      return "exact distance (its index has another metric)";
    case ExactReason::Kind::kFewPrefilteredRows:
      return "exact distance over the prefiltered rows (fewer than index '" + reason.index_name +
             "' would probe)";
  }
  return "exact distance (unindexed)";
}

}  // namespace

std::string ShortUuid(const std::string& uuid) { return uuid.substr(0, 8); }

void ExplainNearestPlan(const NearestOptions& options, const format::Manifest& manifest,
                        const NearestSources& sources, const Explain& prefilter, Explain* explain) {
  if (explain == nullptr) return;
  explain->Add(DescribeHeader(options, sources));
  for (const auto& line : prefilter.lines) explain->Add(line);
  for (const auto& note : sources.notes) explain->Add(note);
  std::vector<std::string> order;
  std::map<std::string, std::vector<uint32_t>> groups;
  for (int position = 0; position < manifest.fragments_size(); ++position) {
    const auto index = static_cast<size_t>(position);
    std::string description;
    if (const int segment = sources.segment_of[index]; segment >= 0) {
      const VectorSource& source = sources.segments[static_cast<size_t>(segment)];
      description = source.family + " index '" + source.index_name + "' segment " +
                    ShortUuid(source.segment_uuid) + " (metric " +
                    std::string(MetricName(sources.metric)) + ", nprobes " +
                    std::to_string(options.nprobes) + DescribeRefinement(options, source) + ")";
    } else {
      description = DescribeExactReason(sources.exact_reasons[index]);
    }
    auto [it, inserted] = groups.try_emplace(description);
    if (inserted) order.push_back(description);
    it->second.push_back(manifest.fragments(position).id());
  }
  for (const auto& description : order) {
    explain->Add(DescribeFragments(groups[description]) + ": " + description);
  }
}

std::string DescribeRaisedProbes(const VectorSource& source, int nprobes, size_t wanted) {
  return "segment " + ShortUuid(source.segment_uuid) + " of index '" + source.index_name +
         "': nprobes raised to " + std::to_string(nprobes) + " to find " + std::to_string(wanted) +
         " qualifying rows";
}

std::string DescribeWidenedRefinement(const VectorSource& source, int refine_factor,
                                      size_t candidates) {
  return "segment " + ShortUuid(source.segment_uuid) + " of index '" + source.index_name +
         "': k × " + std::to_string(refine_factor) + " candidates (" + std::to_string(candidates) +
         ") re-ranked to find rows in the distance range";
}

std::string DescribePostfilter(const expr::Filter& filter, size_t searched, size_t kept) {
  return "postfilter " + filter.ToString() + ": applied to the " + std::to_string(searched) +
         " rows found, " + std::to_string(kept) +
         " kept (a postfilter may return fewer than k rows)";
}

}  // namespace tessera::query
