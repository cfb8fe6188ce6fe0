#include "tessera/index/scalar/ngram_segment_reader.h"

#include <algorithm>
#include <iterator>

#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

arrow::Result<std::unique_ptr<NgramSegmentReader>> NgramSegmentReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& directory) {
  ARROW_ASSIGN_OR_RAISE(GramScheme scheme, GramSchemeOfSegment(segment));
  ARROW_ASSIGN_OR_RAISE(auto postings, PostingListReader::Open(segment, directory, NgramFiles()));
  if (postings->keys<uint64_t>() == nullptr || postings->key_type()->id() != arrow::Type::UINT64) {
    return SegmentFileError(Corrupt("holds keys of type ", postings->key_type()->ToString(),
                                    " where NGRAM grams are uint64"),
                            segment, NgramFiles().keys);
  }
  std::unique_ptr<NgramSegmentReader> reader(new NgramSegmentReader());
  reader->scheme_ = scheme;
  reader->postings_ = std::move(postings);
  return reader;
}

std::optional<std::vector<int64_t>> NgramSegmentReader::Positions(
    const std::vector<Gram>& grams) const {
  const std::vector<uint64_t>& keys = *postings_->keys<uint64_t>();
  std::vector<int64_t> positions;
  positions.reserve(grams.size());
  for (Gram gram : grams) {
    const auto found = std::lower_bound(keys.begin(), keys.end(), gram);
    if (found == keys.end() || *found != gram) return std::nullopt;
    positions.push_back(static_cast<int64_t>(found - keys.begin()));
  }
  return positions;
}

Capability NgramSegmentReader::Assess(const expr::Node& leaf) const {
  const GramQuery query = GramQueryOf(leaf, scheme_);
  if (query.kind != GramQuery::Kind::kGrams) return {};
  const auto positions = Positions(query.grams);
  Capability capability{Coverage::kSuperset, 0};
  if (!positions) return capability;  // a gram no row holds: no candidate
  uint64_t smallest = postings_->num_postings();
  for (int64_t position : *positions) smallest = std::min(smallest, postings_->count(position));
  capability.cost = static_cast<double>(smallest);
  return capability;
}

arrow::Result<RowAddressSet> NgramSegmentReader::Answer(const expr::Node& leaf) const {
  RowAddressSet answer;
  answer.exact = false;
  const GramQuery query = GramQueryOf(leaf, scheme_);
  if (query.kind != GramQuery::Kind::kGrams) {
    return InvalidArgument("NGRAM segment ", meta().uuid(), " of index '", meta().index_name(),
                           "' cannot answer ", leaf.ToString(), ", which Assess declined");
  }
  auto positions = Positions(query.grams);
  if (!positions) return answer;
  // Smallest posting first: every later intersection only shrinks it.
  std::sort(positions->begin(), positions->end(),
            [&](int64_t a, int64_t b) { return postings_->count(a) < postings_->count(b); });
  ARROW_ASSIGN_OR_RAISE(answer.rows, postings_->Postings(positions->front()));
  std::vector<uint64_t> intersection;
  for (size_t i = 1; i < positions->size() && !answer.rows.empty(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto rows, postings_->Postings((*positions)[i]));
    intersection.clear();
    std::set_intersection(answer.rows.begin(), answer.rows.end(), rows.begin(), rows.end(),
                          std::back_inserter(intersection));
    answer.rows.swap(intersection);
  }
  return answer;
}

}  // namespace tessera::index::scalar
