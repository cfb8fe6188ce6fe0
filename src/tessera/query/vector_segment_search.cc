#include "tessera/query/vector_segment_search.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <utility>

#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

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

arrow::Result<VectorSegmentSearch::Found> VectorSegmentSearch::Search(
    const float* query_vector, const SearchLimits& limits) const {
  Found result;
  result.exhausted = true;
  if (source_.fragments.empty()) return result;
  if (prefiltered_ && acceptable_ == 0) return result;
  result.candidates = Refines(*source_.reader, limits.refine_factor);
  // A row beyond its fragment's rows means the segment's files hold wrong row addresses.
  std::optional<uint64_t> invalid_address;
  const std::function<bool(uint64_t)> accept = [this, &invalid_address](uint64_t address) {
    auto found = fragments_.find(dataset::FragmentOf(address));
    if (found == fragments_.end()) return false;
    const EligibleFragment& fragment = *found->second;
    const uint32_t offset = dataset::OffsetOf(address);
    if (offset >= fragment.physical_rows()) {
      invalid_address = address;
      return false;
    }
    return fragment.Accepts(offset);
  };
  const int partitions = source_.reader->num_partitions();
  // Capacity × refine_factor candidates, but never more than the segment can return.
  const uint64_t candidates =
      std::min<uint64_t>(static_cast<uint64_t>(limits.capacity) *
                             static_cast<uint64_t>(result.candidates ? limits.refine_factor : 1),
                         acceptable_);
  if (candidates > static_cast<uint64_t>(INT_MAX)) {
    return InvalidArgument("searching segment ", source_.segment_uuid, " of index '",
                           source_.index_name, "' for ", candidates,
                           " rows: one segment search returns at most ", INT_MAX,
                           " rows; lower k, offset or refine_factor");
  }
  const int nprobes = std::min(limits.nprobes, partitions);
  index::VectorQuery query;
  query.vector = query_vector;
  query.dim = dim_;
  query.k = static_cast<int>(candidates);
  query.nprobes = nprobes;
  query.accept = &accept;
  if (!result.candidates) {
    query.lower_distance = range_.lower;
    query.upper_distance = range_.upper;
  }
  result.wanted = static_cast<size_t>(query.k);
  while (true) {
    auto found = source_.reader->Search(query);
    if (!found.ok()) {
      return WithContext(found.status(), "searching segment " + source_.segment_uuid +
                                             " of index '" + source_.index_name + "'");
    }
    if (invalid_address) {
      return Corrupt("segment ", source_.segment_uuid, " of index '", source_.index_name,
                     "' lists row address ", *invalid_address, " (fragment ",
                     dataset::FragmentOf(*invalid_address), ", row ",
                     dataset::OffsetOf(*invalid_address),
                     "), beyond the fragment's rows; rebuild the index (tessera index create "
                     "--replace) or drop it");
    }
    const bool short_of_rows = found->size() < result.wanted && found->size() < acceptable_;
    if (!short_of_rows || query.nprobes >= partitions) {
      if (query.nprobes != nprobes) result.raised_nprobes = query.nprobes;
      result.exhausted = found->size() < result.wanted || result.wanted >= acceptable_;
      result.rows = std::move(*found);
      return result;
    }
    query.nprobes = query.nprobes > partitions / 2 ? partitions : query.nprobes * 2;
  }
}

}  // namespace tessera::query
