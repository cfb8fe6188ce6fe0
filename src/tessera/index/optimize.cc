// optimize: incremental maintenance of indexes. New fragments get a delta segment built with
// the index's existing model; segments left without live fragments leave; then segments merge
// per policy. Work is proportional to the new data plus what the policy chooses to merge.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "tessera/dataset/operation.h"
#include "tessera/index/build_context.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_files.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::index {

namespace {

// Segments per size tier before an automatic merge: counts stay below this per tier, so the
// number of segments grows with the logarithm of the indexed rows.
constexpr size_t kSegmentsPerTier = 4;

int TierOf(const format::SegmentMeta& segment) {
  const double rows = std::max<double>(1.0, static_cast<double>(segment.num_rows()));
  return static_cast<int>(
      std::floor(std::log(rows) / std::log(static_cast<double>(kSegmentsPerTier))));
}

// Groups of segment positions to merge, each group of one model fingerprint.
std::vector<std::vector<size_t>> PlanMerges(const std::vector<format::SegmentMeta>& segments,
                                            const MergePolicy& policy) {
  std::map<std::string, std::vector<size_t>> by_model;
  for (size_t i = 0; i < segments.size(); ++i)
    by_model[segments[i].model_fingerprint()].push_back(i);
  std::vector<std::vector<size_t>> groups;
  for (auto& [fingerprint, positions] : by_model) {
    if (policy.kind == MergePolicy::Kind::kNone) break;
    if (policy.kind == MergePolicy::Kind::kMaxSegments) {
      const size_t limit = static_cast<size_t>(std::max(1, policy.max_segments));
      if (segments.size() <= limit || positions.size() < 2) continue;
      // Merge the smallest segments until the total fits the limit.
      std::sort(positions.begin(), positions.end(), [&](size_t a, size_t b) {
        return segments[a].num_rows() < segments[b].num_rows();
      });
      const size_t excess = segments.size() - limit;
      const size_t take = std::min(positions.size(), excess + 1);
      groups.emplace_back(positions.begin(), positions.begin() + static_cast<long>(take));
      continue;
    }
    std::map<int, std::vector<size_t>> by_tier;
    for (size_t position : positions) by_tier[TierOf(segments[position])].push_back(position);
    for (auto& [tier, members] : by_tier) {
      if (members.size() >= kSegmentsPerTier) groups.push_back(members);
    }
  }
  return groups;
}

struct IndexWork {
  std::vector<format::SegmentMeta> segments;
  std::vector<std::string> removed;
  bool changed = false;
};

arrow::Status MergeUntilStable(const dataset::Dataset& dataset, const MergePolicy& policy,
                               IndexWork* work, BuiltSegments* built, OptimizeReport* report) {
  // Each round merges at least two segments into one, so this ends.
  while (true) {
    auto groups = PlanMerges(work->segments, policy);
    if (groups.empty()) return arrow::Status::OK();
    std::vector<bool> consumed(work->segments.size(), false);
    std::vector<format::SegmentMeta> next;
    for (const auto& group : groups) {
      std::vector<format::SegmentMeta> inputs;
      for (size_t position : group) {
        inputs.push_back(work->segments[position]);
        consumed[position] = true;
      }
      ARROW_ASSIGN_OR_RAISE(auto merged, MergeSegments(dataset, inputs));
      built->Add(merged.uuid());
      for (const auto& input : inputs) work->removed.push_back(input.uuid());
      report->segments_merged += static_cast<int>(inputs.size());
      next.push_back(std::move(merged));
    }
    for (size_t i = 0; i < work->segments.size(); ++i) {
      if (!consumed[i]) next.push_back(work->segments[i]);
    }
    work->segments = std::move(next);
    work->changed = true;
    if (policy.kind == MergePolicy::Kind::kMaxSegments) return arrow::Status::OK();
  }
}

arrow::Result<std::shared_ptr<dataset::Dataset>> OptimizeOne(
    std::shared_ptr<dataset::Dataset> current, const format::IndexDef& definition,
    const OptimizeOptions& options, OptimizeReport* report) {
  IndexSpec spec{definition.name(), ColumnOfField(*current, definition.field_id()),
                 definition.family(),
                 Params(definition.params().begin(), definition.params().end())};
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveSpec(*current, spec));
  Roaring live;
  for (const auto& fragment : current->manifest().fragments()) live.add(fragment.id());

  IndexWork work;
  BuiltSegments built(current->storage());  // removed unless the commit takes them
  Roaring covered;
  for (const auto& segment : definition.segments()) {
    ARROW_ASSIGN_OR_RAISE(auto fragments, DecodeFragmentBitmap(segment));
    if (fragments.and_cardinality(live) == 0) {
      work.removed.push_back(segment.uuid());
      report->segments_removed += 1;
      work.changed = true;
      continue;
    }
    covered |= fragments;
    work.segments.push_back(segment);
  }
  std::vector<format::Fragment> all;
  std::vector<format::Fragment> fresh;
  for (const auto& fragment : current->manifest().fragments()) {
    all.push_back(fragment);
    if (!covered.contains(fragment.id())) fresh.push_back(fragment);
  }

  if (options.retrain && resolved.family->has_model() && !all.empty()) {
    for (const auto& segment : work.segments) work.removed.push_back(segment.uuid());
    work.segments.clear();
    ARROW_ASSIGN_OR_RAISE(auto rebuilt, BuildOneSegment(*current, spec, resolved, all, nullptr));
    built.Add(rebuilt.uuid());
    work.segments.push_back(std::move(rebuilt));
    report->segments_built += 1;
    work.changed = true;
  } else if (!fresh.empty()) {
    std::optional<Model> model;
    if (resolved.family->has_model() && !work.segments.empty()) {
      const format::SegmentMeta& source = work.segments[0];
      ARROW_ASSIGN_OR_RAISE(auto directory, DirectoryOf(current->storage(), source));
      auto loaded = resolved.family->LoadModel(source, directory);
      if (!loaded.ok()) return SegmentFileError(loaded.status(), source, "");
      model = std::move(*loaded);
    }
    ARROW_ASSIGN_OR_RAISE(auto delta, BuildOneSegment(*current, spec, resolved, std::move(fresh),
                                                      model ? &*model : nullptr));
    built.Add(delta.uuid());
    work.segments.push_back(std::move(delta));
    report->segments_built += 1;
    work.changed = true;
  }
  ARROW_RETURN_NOT_OK(MergeUntilStable(*current, options.merge, &work, &built, report));
  if (!work.changed) return current;

  dataset::IndexChange change;
  change.name = definition.name();
  change.definition = MakeDefinition(spec, resolved, std::move(work.segments));
  change.definition->set_created_at_micros(definition.created_at_micros());
  change.removed_segment_uuids = std::move(work.removed);
  // The last point before the commit; `built` removes the new segments on the way out.
  ARROW_RETURN_NOT_OK(util::CheckCancelled());
  built.HandOver(change);
  return CommitIndexChangeWithSegmentFiles(*current, std::move(change), SegmentOrigin::kBuiltHere);
}

}  // namespace

arrow::Result<MergePolicy> MergePolicy::Parse(std::string_view text) {
  MergePolicy policy;
  if (text == "auto") return policy;
  if (text == "none") {
    policy.kind = Kind::kNone;
    return policy;
  }
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    return InvalidArgument("merge policy '", text,
                           "' must be auto, none or a positive number of "
                           "segments");
  }
  policy.kind = Kind::kMaxSegments;
  policy.max_segments = value;
  return policy;
}

arrow::Result<OptimizeReport> OptimizeIndexes(const dataset::Dataset& dataset,
                                              const OptimizeOptions& options) {
  std::vector<std::string> names;
  if (options.name) {
    const auto found = dataset::FindIndexes(dataset.manifest(), *options.name);
    if (found.empty()) {
      return NotFound("dataset ", dataset.uri(), " has no index named '", *options.name, "'");
    }
    if (found.size() > 1) {
      return Error(ErrorKind::kAmbiguous, "several indexes are named '", *options.name,
                   "' ignoring case");
    }
    names.push_back(dataset.manifest().indexes(found[0]).name());
  } else {
    for (const auto& definition : dataset.manifest().indexes()) names.push_back(definition.name());
  }
  const util::ControlScope control(options.control);
  OptimizeReport report;
  report.dataset = std::make_shared<dataset::Dataset>(dataset);
  for (const auto& name : names) {
    const auto found = dataset::FindIndexes(report.dataset->manifest(), name);
    if (found.size() != 1) continue;  // dropped meanwhile
    const format::IndexDef definition = report.dataset->manifest().indexes(found[0]);
    auto optimized = OptimizeOne(report.dataset, definition, options, &report);
    if (!optimized.ok() && KindOf(optimized.status()) == ErrorKind::kCancelled &&
        report.dataset->version() != dataset.version()) {
      // The indexes optimized before stay committed: the message must not say otherwise.
      return Error(ErrorKind::kCancelled, "optimizing index '", definition.name(),
                   "': ", optimized.status().message(),
                   " for it; the indexes optimized before the cancellation stay committed "
                   "(version ",
                   report.dataset->version(), ")");
    }
    ARROW_ASSIGN_OR_RAISE(report.dataset, std::move(optimized));
  }
  return report;
}

}  // namespace tessera::index
