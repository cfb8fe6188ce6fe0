// BITMAP: an exact scalar index for columns of few distinct values, holding for every distinct
// value the rows that have it (posting lists, posting_lists.h), and the null rows.
//
// Column types: bool, int8/16/32/64, uint8/16/32/64, string, large_string, date32, timestamp
// (any unit and zone); anything else is Unsupported, naming the accepted types.
//
// Parameter `max_cardinality` (default 4096, in [1, 1048576]): the most distinct non-null values
// a segment may hold. A build (or merge) observing more fails with InvalidArgument naming the
// index, the column, the observed count and the parameter (a build stops at the first batch
// past the limit, without sorting anything): beyond a few thousand values each
// value's postings are short, a BTREE answers the same predicates with less per-value overhead,
// and the keys of a bitmap segment are held in memory by every reader. 4096 covers enumerations,
// flags, status codes, countries and days of a decade.
//
// Answers (BitmapSegmentReader, exact): every leaf index::ScalarQueryOf translates: `=`, IN,
// BETWEEN, <, <=, >, >=, IS NULL and a boolean column, with the semantics of the scan (a null
// literal or bound matches nothing; IN's nulls add nothing); `!=` and NOT come from the planner.
// Cost: the rows of the postings the answer holds, from the keys' counts (no posting is read).
//
// Build reads the column of its fragments once and holds their (value, row) pairs in memory to
// sort them: 16 bytes a non-null row (24 for strings, whose bytes stay in the memory-mapped data
// files), 8 per null row. Merge streams the inputs' keys in order and holds one value's rows at
// a time (posting_lists.h); it never reads the table.
#pragma once

#include <memory>

#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

inline constexpr std::string_view kBitmapFamilyName = "BITMAP";
inline constexpr std::string_view kMaxCardinalityParam = "max_cardinality";
inline constexpr int64_t kDefaultMaxCardinality = 4096;
inline constexpr int64_t kMinMaxCardinality = 1;
inline constexpr int64_t kMaxMaxCardinality = int64_t{1} << 20;

class BitmapFamily final : public IndexFamily {
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
  // Opens the segment, checks its key type against the index's column and reads every posting
  // (posting_lists.h: PostingListReader::CheckAll).
  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override;
};

std::unique_ptr<IndexFamily> MakeBitmapFamily();

}  // namespace tessera::index::scalar
