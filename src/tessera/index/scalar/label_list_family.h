// LABEL_LIST: an exact index over a list column (tags, labels, categories), holding for every
// distinct non-null element the rows whose list contains it (posting lists, posting_lists.h),
// and the rows whose list is null.
//
// Column types: list and large_list of int8/16/32/64, uint8/16/32/64, string or large_string;
// anything else is Unsupported, naming the accepted types. No parameters.
//
// Answers (LabelListSegmentReader, exact, with the scan's semantics, docs/filters.md):
//  - array_has_any(col, [v...]): the union of the values' postings;
//  - array_has_all(col, [v...]): their intersection (nothing when a value occurs in no list);
//    with an empty array (true for every non-null list) it declines: it knows no list of the
//    rows with empty lists;
//  - array_contains(col, x): x's postings (nothing for a NULL x);
//  - col IS NULL: the null lists.
// Null elements never match and duplicates do not matter, so they are not indexed: an empty
// list and a list of nulls are in no posting and are not null. The scan gives unknown for these
// leaves only on null lists (array_contains also for a NULL x, which answers nothing), so the
// planner derives NOT array_has_any/all exactly as the non-null rows outside the TRUE set, from
// this segment's IS NULL answer; NOT array_contains, a function call, it treats as unknown
// beyond its TRUE set and rechecks.
// Cost: the rows of the postings read, from the keys' counts.
//
// Build reads the column of its fragments once and holds one (element, row) pair per distinct
// element of each list in memory to sort them: 16 bytes a pair (24 for strings, whose bytes stay
// in the memory-mapped data files), 8 per null list. Merge streams (posting_lists.h).
#pragma once

#include <memory>

#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kLabelListFamilyName = "LABEL_LIST";

class LabelListFamily final : public IndexFamily {
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
  // keys, postings and nulls (posting_lists.h), each with its checksums.
  std::vector<std::string> RequiredFiles(const format::SegmentMeta& segment) const override;
  // Opens the segment, checks its key type against the column's element type and reads every
  // posting (posting_lists.h: PostingListReader::CheckAll).
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
};

std::unique_ptr<IndexFamily> MakeLabelListFamily();

}  // namespace tessera::index::scalar
