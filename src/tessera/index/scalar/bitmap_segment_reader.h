// BitmapSegmentReader: answers ScalarQuery predicates (scalar_query.h) exactly from the posting
// lists of one BITMAP segment (bitmap_family.h), with ascending unique row addresses.
//
//  - kEquals: the postings of the equal key; kIn: the union over its values (null values add
//    nothing); kRange: the union over the keys between the bounds (a null bound: nothing);
//  - kIsNull: the null rows; kIsNotNull: every posting.
// Query values must have the column's type (timestamps: its unit; string types mix), as the
// planner hands them; Assess declines (kNone) a leaf whose literals do not, Answer fails with
// InvalidArgument.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "tessera/index/scalar/posting_lists.h"
#include "tessera/index/scalar/scalar_query.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

class BitmapSegmentReader final : public ScalarSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<BitmapSegmentReader>> Open(
      const format::SegmentMeta& segment, const SegmentDirectory& directory);

  const format::SegmentMeta& meta() const override { return postings_->meta(); }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;
  // From the keys' posting counts (a row holds one value: the counts add up); no posting is
  // read. IS NULL reads the null rows' file and takes its size.
  arrow::Result<std::optional<uint64_t>> Count(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Search(const ScalarQuery& query) const;

  const PostingListReader& postings() const { return *postings_; }

 private:
  explicit BitmapSegmentReader(std::unique_ptr<PostingListReader> postings)
      : postings_(std::move(postings)) {}
  // The key positions [begin, end) whose postings answer `query` (kEquals, kIn, kRange).
  arrow::Result<std::vector<std::pair<int64_t, int64_t>>> Spans(const ScalarQuery& query) const;

  std::unique_ptr<PostingListReader> postings_;
};

}  // namespace tessera::index::scalar
