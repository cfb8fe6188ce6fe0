// VectorSegmentSearch: one segment of a vector index probed for one query vector, for the
// fragments assigned to it (NearestSources).
//
// Invariants:
//  - Only rows the search may return count: the segment's accept callback admits a row only
//    when its fragment is assigned to this segment and EligibleRows accepts it (not deleted; in
//    the allow-list of a prefilter), so rejected rows never take a place in the top k. A row
//    address beyond its fragment's rows is Corrupt (the segment's files are wrong).
//  - It returns the `capacity` best rows in the distance range, or — when its candidates are
//    refined (refine_factor > 1 on an approximate segment) — capacity × refine_factor
//    candidates by approximate distance, with no range applied (the range applies to the exact
//    distances refinement computes). Never more than the rows the segment may return: the
//    product of two huge knobs sizes nothing.
//  - Adaptive re-probe: when the `nprobes` partitions probed hold fewer qualifying rows than
//    wanted while the segment's fragments hold more (a selective prefilter, many deletions),
//    the segment is probed again with twice the partitions, up to all of them; so the wanted
//    rows are returned whenever that many qualify.
//  - ScoreAllowedRowsExactly decides, for a prefiltered search, that a segment is not probed at
//    all: its fragments hold fewer allowed rows than its probed partitions would scan, and the
//    exact tail scores those rows for less, exactly.
// Immutable once made: Search runs on many threads at once.
#pragma once

#include <arrow/result.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tessera/index/vector_segment.h"
#include "tessera/query/eligible_rows.h"
#include "tessera/query/nearest_merge.h"
#include "tessera/query/nearest_sources.h"

namespace tessera::query {

// The settings of one search: how many rows each part keeps and how it probes.
struct SearchLimits {
  // offset + k, capped by the rows of the version.
  size_t capacity = 0;
  int nprobes = 1;
  int refine_factor = 1;
  int ef = 0;  // IVF_HNSW_*: VectorQuery::ef
};

// Whether candidates of `reader` are re-ranked by exact distance under `refine_factor`.
bool Refines(const index::VectorSegmentReader& reader, int refine_factor);

// Whether a prefiltered search scores the allowed rows of `source`'s fragments exactly rather
// than probing `nprobes` of its partitions: when they are no more than the rows those partitions
// hold, in proportion.
bool ScoreAllowedRowsExactly(const VectorSource& source, const EligibleRows& rows, int nprobes);

class VectorSegmentSearch {
 public:
  // `source` and `rows` must outlive this.
  VectorSegmentSearch(const VectorSource& source, const EligibleRows& rows, int dim,
                      const DistanceRange& range);

  struct Found {
    std::vector<index::ScoredRow> rows;
    // The rows are candidates for refinement (approximate distances, no range applied).
    bool candidates = false;
    // Set when the probes were raised: the partitions probed and the rows wanted.
    std::optional<int> raised_nprobes;
    size_t wanted = 0;
    // No more rows to find: asking for more would return the same rows (every row the
    // segment may return was wanted, or fewer than wanted were found with every partition).
    bool exhausted = false;
  };
  arrow::Result<Found> Search(const float* query, const SearchLimits& limits) const;
  // Search for each of `count` queries, answered through the reader's batch search
  // (VectorSegmentReader::SearchBatch); the queries whose probes must be raised continue alone,
  // in parallel. Which rows the accept callback checks depends on the order rows are scored, so
  // a segment listing a row address beyond its fragment may be reported Corrupt by a batch and
  // not by a search alone, or the other way round (the smallest such address met is named).
  arrow::Result<std::vector<Found>> SearchBatch(const float* const* queries, int64_t count,
                                                const SearchLimits& limits) const;

 private:
  // The row filter of a search: the fragments assigned to the segment, EligibleRows' rule, and
  // the smallest row address met beyond its fragment's rows (callable from many threads).
  class AcceptRows;
  // The query of `vector` under `limits`, and what its answer means.
  struct Plan {
    index::VectorQuery query;
    bool candidates = false;  // refined: approximate distances, no range applied
    int nprobes = 1;          // before any raise
  };
  // Search, with the first probe at `nprobes` instead of the plan's (when given).
  arrow::Result<Found> SearchFrom(const float* query, const SearchLimits& limits,
                                  std::optional<int> nprobes) const;
  // The probes of the next try: twice as many, or all of them.
  static int RaisedProbes(int nprobes, int partitions);
  arrow::Result<Plan> MakePlan(const float* vector, const SearchLimits& limits,
                               const std::function<bool(uint64_t)>* accept) const;
  // Corrupt naming the segment and a row address beyond its fragment's rows.
  arrow::Status InvalidAddress(uint64_t address) const;
  // The Found of `plan` given the rows its (possibly raised) query returned.
  Found Finish(const Plan& plan, const index::VectorQuery& query,
               std::vector<index::ScoredRow> rows) const;
  // Whether `rows` leave the query short of what the segment holds, so probing more partitions
  // may find more.
  bool ShortOfRows(const Plan& plan, size_t rows) const;

  const VectorSource& source_;
  int dim_;
  DistanceRange range_;
  bool prefiltered_;
  // The rows the search may return, an upper bound of what it can find.
  uint64_t acceptable_ = 0;
  // The fragments assigned to the segment, by id.
  std::unordered_map<uint32_t, const EligibleFragment*> fragments_;
};

}  // namespace tessera::query
