#include "tessera/index/scalar/posting_segment.h"

#include <cstdlib>
#include <string>

#include "tessera/index/merge_inputs.h"
#include "tessera/index/scalar/family_checks.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {

void SetPostingDetails(const PostingListStats& stats, const arrow::DataType& key_type,
                       uint64_t num_rows, format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  details[std::string(kDetailNumKeys)] = std::to_string(stats.num_keys);
  details[std::string(kDetailNumPostings)] = std::to_string(stats.num_postings);
  details[std::string(kDetailNumNulls)] = std::to_string(stats.num_nulls);
  details[std::string(kDetailKeyType)] = key_type.ToString();
  meta->set_num_rows(num_rows);
}

uint64_t PostingDetail(const format::SegmentMeta& meta, std::string_view key, uint64_t fallback) {
  const auto found = meta.details().find(std::string(key));
  if (found == meta.details().end() || found->second.empty()) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(found->second.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? value : fallback;
}

arrow::Result<std::unique_ptr<PostingListReader>> OpenPostingSegment(
    std::string_view family, const format::SegmentMeta& segment, const SegmentDirectory& dir) {
  if (segment.family() != family) {
    return InvalidArgument("segment ", segment.uuid(), " of index '", segment.index_name(),
                           "' is a ", segment.family(), " segment, not a ", family, " segment");
  }
  return PostingListReader::Open(segment, dir, PostingListFiles());
}

arrow::Result<format::SegmentMeta> MergePostingSegments(
    std::string_view family, const std::vector<format::SegmentMeta>& inputs,
    const std::vector<SegmentDirectory>& dirs, const SegmentDirectory& out,
    const std::vector<std::string_view>& kept_details, const MergedPostingsCheck& check) {
  ARROW_ASSIGN_OR_RAISE(MergeInputs checked, CheckMergeInputs(family, inputs, dirs, out));
  std::vector<std::unique_ptr<PostingListReader>> readers;
  std::vector<const PostingListReader*> views;
  uint64_t num_rows = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto opened = OpenPostingSegment(family, inputs[i], dirs[i]);
    if (!opened.ok()) return SegmentFileError(opened.status(), inputs[i], "");
    readers.push_back(std::move(*opened));
    views.push_back(readers.back().get());
    num_rows += inputs[i].num_rows();
  }
  const format::SegmentMeta& head = inputs.front();
  auto stats = MergePostingLists(views, out, PostingListFiles());
  if (!stats.ok()) {
    return WithMergeContext(stats.status(), family, head);
  }
  ARROW_RETURN_NOT_OK(check(*stats));
  format::SegmentMeta meta;
  for (std::string_view key : kept_details) {
    const auto found = head.details().find(std::string(key));
    if (found != head.details().end()) (*meta.mutable_details())[found->first] = found->second;
  }
  SetPostingDetails(*stats, *readers.front()->key_type(), num_rows, &meta);
  ARROW_RETURN_NOT_OK(FillCommonMeta(checked.merged, family, out, &meta));
  return meta;
}

}  // namespace tessera::index::scalar
