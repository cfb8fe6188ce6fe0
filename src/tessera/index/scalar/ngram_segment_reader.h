// NgramSegmentReader: answers substring leaves from one NGRAM segment (ngram_family.h) with
// candidate row addresses, always a superset the planner rechecks.
//
// For a leaf GramQueryOf (ngrams.h) can narrow — contains(column, 'x'), starts_with(column,
// 'x'), column [I]LIKE 'pattern' — the candidates are the rows holding every required gram:
// the intersection of those grams' postings, read smallest first. Assess costs the leaf at the
// smallest of those postings' counts (from the keys file: no posting is read); a gram the
// segment lacks makes the answer empty at cost 0. Null rows never match (they hold no gram).
// Every other leaf, and a leaf without a literal run of n bytes it can trust, is kNone.
//
// Answer() may be called from several threads at once.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "tessera/index/scalar/ngram_family.h"
#include "tessera/index/scalar/ngrams.h"
#include "tessera/index/scalar/posting_lists.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::index::scalar {

class NgramSegmentReader final : public ScalarSegmentReader {
 public:
  // Corrupt naming the file for damaged files; InvalidArgument for details that name no valid
  // scheme or a key type other than uint64.
  static arrow::Result<std::unique_ptr<NgramSegmentReader>> Open(const format::SegmentMeta& segment,
                                                                 const SegmentDirectory& directory);

  const format::SegmentMeta& meta() const override { return postings_->meta(); }
  Capability Assess(const expr::Node& leaf) const override;
  arrow::Result<RowAddressSet> Answer(const expr::Node& leaf) const override;

  const GramScheme& scheme() const { return scheme_; }
  const PostingListReader& postings() const { return *postings_; }

 private:
  NgramSegmentReader() = default;
  // The positions of `grams` in the keys file, or nullopt when one is absent (no row holds it).
  std::optional<std::vector<int64_t>> Positions(const std::vector<Gram>& grams) const;

  GramScheme scheme_;
  std::unique_ptr<PostingListReader> postings_;
};

}  // namespace tessera::index::scalar
