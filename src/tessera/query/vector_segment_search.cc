#include "tessera/query/vector_segment_search.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <functional>
#include <utility>

#include "tessera/dataset/dataset.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query {

using index::ScoredRow;

bool Refines(const index::VectorSegmentReader& reader, int refine_factor) {
  return refine_factor > 1 && reader.approximate();
}

bool ScoreAllowedRowsExactly(const VectorSource& source, const EligibleRows& rows, int nprobes) {
  if (source.fragments.empty()) return false;
  uint64_t allowed = 0;
  uint64_t physical = 0;
  for (size_t position : source.fragments) {
    const EligibleFragment& fragment = rows.fragments()[position];
    allowed += fragment.count();
    physical += fragment.physical_rows();
  }
  const double probed =
      std::min(1.0, static_cast<double>(nprobes) / source.reader->num_partitions());
  return static_cast<double>(allowed) <= static_cast<double>(physical) * probed;
}

VectorSegmentSearch::VectorSegmentSearch(const VectorSource& source, const EligibleRows& rows,
                                         int dim, const DistanceRange& range)
    : source_(source), dim_(dim), range_(range), prefiltered_(rows.prefiltered()) {
  for (size_t position : source.fragments) {
    const EligibleFragment& fragment = rows.fragments()[position];
    fragments_.emplace(fragment.id(), &fragment);
    acceptable_ += fragment.count();
  }
}

class VectorSegmentSearch::AcceptRows {
 public:
  explicit AcceptRows(const VectorSegmentSearch& search) : search_(search) {}

  bool operator()(uint64_t address) const {
    auto found = search_.fragments_.find(dataset::FragmentOf(address));
    if (found == search_.fragments_.end()) return false;
    const EligibleFragment& fragment = *found->second;
    const uint32_t offset = dataset::OffsetOf(address);
    if (offset >= fragment.physical_rows()) {
      // The smallest such address, whichever thread meets it first.
      uint64_t smallest = smallest_invalid_.load();
      while (address < smallest && !smallest_invalid_.compare_exchange_weak(smallest, address)) {
      }
      found_invalid_.store(true);
      return false;
    }
    return fragment.Accepts(offset);
  }

  // The smallest row address met beyond its fragment's rows, if any.
  std::optional<uint64_t> invalid() const {
    if (!found_invalid_.load()) return std::nullopt;
    return smallest_invalid_.load();
  }

 private:
  const VectorSegmentSearch& search_;
  mutable std::atomic<bool> found_invalid_{false};
  mutable std::atomic<uint64_t> smallest_invalid_{~uint64_t{0}};
};

arrow::Result<VectorSegmentSearch::Plan> VectorSegmentSearch::MakePlan(
    const float* vector, const SearchLimits& limits,
    const std::function<bool(uint64_t)>* accept) const {
  Plan plan;
  plan.candidates = Refines(*source_.reader, limits.refine_factor);
  // Capacity × refine_factor candidates, but never more than the segment can return.
  const uint64_t candidates =
      std::min<uint64_t>(static_cast<uint64_t>(limits.capacity) *
                             static_cast<uint64_t>(plan.candidates ? limits.refine_factor : 1),
                         acceptable_);
  if (candidates > static_cast<uint64_t>(INT_MAX)) {
    return InvalidArgument("searching segment ", source_.segment_uuid, " of index '",
                           source_.index_name, "' for ", candidates,
                           " rows: one segment search returns at most ", INT_MAX,
                           " rows; lower k, offset or refine_factor");
  }
  plan.nprobes = std::min(limits.nprobes, source_.reader->num_partitions());
  plan.query.vector = vector;
  plan.query.dim = dim_;
  plan.query.k = static_cast<int>(candidates);
  plan.query.nprobes = plan.nprobes;
  plan.query.ef = limits.ef;
  plan.query.accept = accept;
  if (!plan.candidates) {
    plan.query.lower_distance = range_.lower;
    plan.query.upper_distance = range_.upper;
  }
  return plan;
}

arrow::Status VectorSegmentSearch::InvalidAddress(uint64_t address) const {
  return Corrupt("segment ", source_.segment_uuid, " of index '", source_.index_name,
                 "' lists row address ", address, " (fragment ", dataset::FragmentOf(address),
                 ", row ", dataset::OffsetOf(address),
                 "), beyond the fragment's rows; rebuild the index (tessera index create "
                 "--replace) or drop it");
}

bool VectorSegmentSearch::ShortOfRows(const Plan& plan, size_t rows) const {
  return rows < static_cast<size_t>(plan.query.k) && rows < acceptable_;
}

VectorSegmentSearch::Found VectorSegmentSearch::Finish(const Plan& plan,
                                                       const index::VectorQuery& query,
                                                       std::vector<ScoredRow> rows) const {
  Found result;
  result.candidates = plan.candidates;
  result.wanted = static_cast<size_t>(plan.query.k);
  if (query.nprobes != plan.nprobes) result.raised_nprobes = query.nprobes;
  result.exhausted = rows.size() < result.wanted || result.wanted >= acceptable_;
  result.rows = std::move(rows);
  return result;
}

arrow::Result<VectorSegmentSearch::Found> VectorSegmentSearch::Search(
    const float* query_vector, const SearchLimits& limits) const {
  return SearchFrom(query_vector, limits, std::nullopt);
}

arrow::Result<VectorSegmentSearch::Found> VectorSegmentSearch::SearchFrom(
    const float* query_vector, const SearchLimits& limits, std::optional<int> nprobes) const {
  Found result;
  result.exhausted = true;
  if (source_.fragments.empty()) return result;
  if (prefiltered_ && acceptable_ == 0) return result;
  const AcceptRows accept_rows(*this);
  const std::function<bool(uint64_t)> accept = std::cref(accept_rows);
  ARROW_ASSIGN_OR_RAISE(Plan plan, MakePlan(query_vector, limits, &accept));
  const int partitions = source_.reader->num_partitions();
  index::VectorQuery query = plan.query;
  if (nprobes) query.nprobes = *nprobes;
  while (true) {
    auto found = source_.reader->Search(query);
    if (!found.ok()) {
      return WithContext(found.status(), "searching segment " + source_.segment_uuid +
                                             " of index '" + source_.index_name + "'");
    }
    if (auto invalid = accept_rows.invalid()) return InvalidAddress(*invalid);
    if (!ShortOfRows(plan, found->size()) || query.nprobes >= partitions) {
      return Finish(plan, query, std::move(*found));
    }
    query.nprobes = RaisedProbes(query.nprobes, partitions);
  }
}

int VectorSegmentSearch::RaisedProbes(int nprobes, int partitions) {
  return nprobes > partitions / 2 ? partitions : nprobes * 2;
}

arrow::Result<std::vector<VectorSegmentSearch::Found>> VectorSegmentSearch::SearchBatch(
    const float* const* queries, int64_t count, const SearchLimits& limits) const {
  std::vector<Found> results(static_cast<size_t>(std::max<int64_t>(count, 0)));
  for (Found& result : results) result.exhausted = true;
  if (count <= 0 || source_.fragments.empty()) return results;
  if (prefiltered_ && acceptable_ == 0) return results;
  const AcceptRows accept_rows(*this);
  const std::function<bool(uint64_t)> accept = std::cref(accept_rows);
  std::vector<Plan> plans;
  std::vector<index::VectorQuery> batch;
  for (int64_t q = 0; q < count; ++q) {
    ARROW_ASSIGN_OR_RAISE(Plan plan, MakePlan(queries[q], limits, &accept));
    batch.push_back(plan.query);
    plans.push_back(std::move(plan));
  }
  auto found = source_.reader->SearchBatch(batch.data(), count);
  if (!found.ok()) {
    return WithContext(found.status(), "searching segment " + source_.segment_uuid + " of index '" +
                                           source_.index_name + "'");
  }
  if (auto invalid = accept_rows.invalid()) return InvalidAddress(*invalid);
  const int partitions = source_.reader->num_partitions();
  // Queries whose probed partitions held too few rows continue alone, in parallel, from twice
  // the probes (a selective prefilter can leave most of a batch here).
  std::vector<int64_t> short_queries;
  for (int64_t q = 0; q < count; ++q) {
    auto& rows = (*found)[static_cast<size_t>(q)];
    const Plan& plan = plans[static_cast<size_t>(q)];
    if (ShortOfRows(plan, rows.size()) && plan.nprobes < partitions) {
      short_queries.push_back(q);
    } else {
      results[static_cast<size_t>(q)] = Finish(plan, plan.query, std::move(rows));
    }
  }
  ARROW_ASSIGN_OR_RAISE(
      auto continued,
      util::ParallelResults<Found>(static_cast<int64_t>(short_queries.size()), [&](int64_t i) {
        const int64_t q = short_queries[static_cast<size_t>(i)];
        return SearchFrom(queries[q], limits,
                          RaisedProbes(plans[static_cast<size_t>(q)].nprobes, partitions));
      }));
  for (size_t i = 0; i < short_queries.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(results[static_cast<size_t>(short_queries[i])], std::move(continued[i]));
  }
  return results;
}

}  // namespace tessera::query
