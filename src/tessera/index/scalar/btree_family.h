// BTREE: an exact scalar index over one column, answering equality, IN, range and null
// predicates with row addresses (docs/design.md, "Segment contract" and "Query semantics").
//
// A segment is a sorted run of (value, row address) pairs split into pages of `page_rows` rows,
// a lookup layer holding the first and last value of every page, and the lists of rows whose
// value is null or NaN, which stay out of the sorted run (files: btree_layout.h). A segment
// indexes every physical row of its fragments, deleted or not; the planner applies deletions.
//
// Parameters: `page_rows` (default 4096, in [16, 1048576]). Column types: signed and unsigned
// integers, float16/32/64, bool, string, large_string, binary, large_binary, date32,
// timestamp; anything else is Unsupported.
//
// Build reads the column of its fragments once and holds their (value, row address) pairs in
// memory to sort them: 16 bytes a row (24 for string and binary columns, whose values stay in
// the memory-mapped data files, so the bytes come from the page cache), plus 8 bytes per null
// or NaN row. A build over more rows than memory allows must be split into several segments
// (one per fragment subset) and merged. Merge streams: it k-way merges the inputs' sorted runs
// page by page, never reading the table, in memory O(inputs × page_rows) plus the null and NaN
// lists.
//
// Query semantics (what the planner gets back): see btree_segment_reader.h.
#pragma once

#include <memory>

#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

inline constexpr int64_t kDefaultPageRows = 4096;
inline constexpr int64_t kMinPageRows = 16;
inline constexpr int64_t kMaxPageRows = int64_t{1} << 20;

class BtreeFamily final : public IndexFamily {
 public:
  std::string_view name() const override;
  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override;
  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override;
  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override;
  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override;
  // pages, lookup and nulls; nans too for float values.
  std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const override;

  // Opens the segment and checks its value type against the index's column.
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
};

std::unique_ptr<IndexFamily> MakeBtreeFamily();

}  // namespace tessera::index::scalar
