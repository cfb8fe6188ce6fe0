// LabelListSegmentReader: answers array_has_any / array_has_all / array_contains and IS NULL on
// a list column exactly from the posting lists of one LABEL_LIST segment (label_list_family.h
// states the semantics), with ascending unique row addresses.
//
// Values are looked up mathematically, as the scan compares them: an integer value of another
// integer type than the elements' finds the equal element (a value no element type can hold
// finds nothing), a string value finds the equal string. A value of any other type (a float)
// makes Assess decline the leaf.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "tessera/index/scalar/posting_lists.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

class LabelListSegmentReader final : public ScalarSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<LabelListSegmentReader>> Open(
      const format::SegmentMeta& segment, const SegmentDirectory& directory);

  const format::SegmentMeta& meta() const override { return postings_->meta(); }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;

  const PostingListReader& postings() const { return *postings_; }

  // The position of the element equal to `value`; nullopt when none (or `value` is null);
  // InvalidArgument for a value that is neither an integer nor a string of the elements' kind.
  arrow::Result<std::optional<int64_t>> FindElement(const arrow::Scalar& value) const;

 private:
  explicit LabelListSegmentReader(std::unique_ptr<PostingListReader> postings)
      : postings_(std::move(postings)) {}

  // How a leaf is answered: from the postings of `positions`, united or intersected, or from the
  // null rows.
  struct Plan {
    enum class Kind { kUnion, kIntersection, kNulls, kNothing } kind = Kind::kNothing;
    std::vector<int64_t> positions;  // ascending, unique
  };
  // Nullopt for a leaf the segment does not answer.
  arrow::Result<std::optional<Plan>> PlanOf(const expr::Node& leaf) const;

  std::unique_ptr<PostingListReader> postings_;
};

}  // namespace tessera::index::scalar
