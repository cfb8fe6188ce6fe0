// What the posting-list families (BITMAP, LABEL_LIST) share around their files
// (posting_lists.h): the segment details they record, opening a segment's posting lists as one
// family, and a Merge that rewrites the postings of disjoint inputs into one new segment.
#pragma once

#include <arrow/result.h>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar/posting_lists.h"

namespace tessera::index::scalar {

// SegmentMeta.details keys of posting-list segments (besides the family's parameters).
inline constexpr std::string_view kDetailNumKeys = "num_keys";
inline constexpr std::string_view kDetailNumPostings = "num_postings";
inline constexpr std::string_view kDetailKeyType = "key_type";
// kDetailNumNulls ("num_nulls") comes from btree_layout.h.

// Records `stats`, the key type and the segment's rows (`num_rows`, every physical row of its
// fragments) in `meta`.
void SetPostingDetails(const PostingListStats& stats, const arrow::DataType& key_type,
                       uint64_t num_rows, format::SegmentMeta* meta);

// A count recorded by SetPostingDetails; `fallback` when absent or malformed.
uint64_t PostingDetail(const format::SegmentMeta& meta, std::string_view key, uint64_t fallback);

// Opens the posting lists of `segment`, which must be of `family` (InvalidArgument otherwise).
arrow::Result<std::unique_ptr<PostingListReader>> OpenPostingSegment(
    std::string_view family, const format::SegmentMeta& segment, const SegmentDirectory& dir);

// What a family checks of the merged postings before the merged segment is described (BITMAP:
// its cardinality limit); OK to accept.
using MergedPostingsCheck = std::function<arrow::Status(const PostingListStats& stats)>;

// IndexFamily::Merge for a posting-list family: the checks of merge_inputs.h, then the inputs'
// postings merged into `out` (MergePostingLists), the details of SetPostingDetails (num_rows:
// the inputs' sum) and `kept_details` copied from the first input (the family's parameters).
arrow::Result<format::SegmentMeta> MergePostingSegments(
    std::string_view family, const std::vector<format::SegmentMeta>& inputs,
    const std::vector<SegmentDirectory>& dirs, const SegmentDirectory& out,
    const std::vector<std::string_view>& kept_details, const MergedPostingsCheck& check);

}  // namespace tessera::index::scalar
