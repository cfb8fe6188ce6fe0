// NearestSources: where a nearest-neighbour search of one vector column finds the rows of each
// fragment of a dataset version — a segment of a vector index on the column, or the exact tail
// (exact distances over the fragment's own vectors).
//
// Two steps, kept apart so that the assignment can be tested without opening segments:
//  1. OpenVectorIndexes: the vector indexes on the column (manifest order), their metric (from
//     the definition, through the family: IndexFamily::MetricOf) and their segments covering
//     live fragments, as the snapshot opened them (once per process, query/segment_cache.h).
//  2. AssignSources: chooses the metric (the one asked for; else the first vector index's; else
//     l2) and serves every fragment by the first usable segment covering it — indexes in
//     manifest order, segments in definition order. A segment is usable when it holds vectors of
//     the column's dimension under the chosen metric; an index of another metric is not used at
//     all. Every other fragment goes to the exact tail, with the reason explain gives.
// Invariants: every fragment of the version is served by exactly one source (one segment or the
// exact tail); a segment's fragments are in manifest order; segments serving no fragment stay in
// the list (explain and the refinement's fragments only look at served ones).
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/vector/distance.h"
#include "tessera/index/vector_segment.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

// An opened segment of a vector index and the live fragments it covers.
struct OpenedVectorSegment {
  std::shared_ptr<index::SegmentReader> reader;  // AsVector() is not null
  Roaring live_fragments;
};

// A vector index on the searched column.
struct ColumnVectorIndex {
  const format::IndexDef* definition = nullptr;  // points into the dataset's manifest
  index::vector::Metric metric = index::vector::Metric::kL2;
  std::vector<OpenedVectorSegment> segments;  // those covering a live fragment; may be none
};

// The vector indexes on column `column_index` of the snapshot, in manifest order, with their
// segments covering live fragments opened (Snapshot::Index; errors name the segment and the
// index). Indexes of an unknown family are left out with a note (explain) in `notes`;
// indexes of a non-vector family are left out silently.
arrow::Result<std::vector<ColumnVectorIndex>> OpenVectorIndexes(const Snapshot& snapshot,
                                                                int column_index,
                                                                std::vector<std::string>* notes);

// A segment of a vector index, searched for the fragments assigned to it.
struct VectorSource {
  std::string index_name;
  std::string family;
  std::string segment_uuid;
  std::shared_ptr<index::SegmentReader> owner;         // keeps `reader` alive
  const index::VectorSegmentReader* reader = nullptr;  // the chosen metric, the column's dim
  std::vector<size_t> fragments;  // positions in manifest().fragments(), ascending
};

// How the metric of a search was chosen (explain).
enum class MetricChoice { kAsked, kIndex, kDefault };

// Why a fragment is in the exact tail (explain).
struct ExactReason {
  enum class Kind { kUnindexed, kOtherMetric, kFewPrefilteredRows };
  Kind kind = Kind::kUnindexed;
  std::string index_name;  // kFewPrefilteredRows: the index that would have probed more rows
};

struct NearestSources {
  index::vector::Metric metric = index::vector::Metric::kL2;
  MetricChoice metric_choice = MetricChoice::kDefault;
  std::string metric_index;  // kIndex: the index whose metric it is

  std::vector<VectorSource> segments;
  // Parallel to manifest().fragments(): the index into `segments` of the segment serving the
  // fragment, or -1 for the exact tail, and then why.
  std::vector<int> segment_of;
  std::vector<ExactReason> exact_reasons;
  // Explain: the indexes and segments not used, and why.
  std::vector<std::string> notes;

  // Hands every fragment of segments[segment] to the exact tail, for `reason`.
  void MoveToExactTail(size_t segment, const ExactReason& reason);
  // The positions of the fragments of the exact tail, ascending.
  std::vector<size_t> ExactTail() const;
};

// Step 2: `indexes` (from OpenVectorIndexes, or opened elsewhere alike) over the fragments of
// `manifest`, for vectors of dimension `dim` and the metric `asked` (absent: chosen as above).
// `notes` come first in the result's notes.
NearestSources AssignSources(const format::Manifest& manifest,
                             std::vector<ColumnVectorIndex> indexes, int dim,
                             std::optional<index::vector::Metric> asked,
                             std::vector<std::string> notes);

// Both steps.
arrow::Result<NearestSources> FindNearestSources(const Snapshot& snapshot, int column_index,
                                                 int dim,
                                                 std::optional<index::vector::Metric> asked);

}  // namespace tessera::query
