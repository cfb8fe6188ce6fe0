#include "tessera/index/merge_inputs.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index {

namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

arrow::Result<MergeInputs> CheckMergeInputs(std::string_view family,
                                            const std::vector<format::SegmentMeta>& inputs,
                                            const std::vector<SegmentDirectory>& dirs,
                                            const SegmentDirectory& out) {
  if (inputs.empty() || inputs.size() != dirs.size()) {
    return InvalidArgument("a ", family,
                           " merge needs at least one segment and one directory per segment; got ",
                           inputs.size(), " segments and ", dirs.size(), " directories");
  }
  const format::SegmentMeta& head = inputs.front();
  MergeInputs result;
  for (const auto& segment : inputs) {
    if (segment.family() != family) {
      return InvalidArgument("cannot merge segment ", segment.uuid(), " of family ",
                             segment.family(), " into a ", family, " segment");
    }
    if (segment.field_id() != head.field_id() ||
        !SameName(segment.index_name(), head.index_name())) {
      return InvalidArgument("cannot merge ", family, " segments of different indexes: segment ",
                             segment.uuid(), " indexes field ", segment.field_id(), " for '",
                             segment.index_name(), "', segment ", head.uuid(), " field ",
                             head.field_id(), " for '", head.index_name(), "'");
    }
    ARROW_ASSIGN_OR_RAISE(Roaring covered, DecodeFragmentBitmap(segment));
    if (result.fragments.intersect(covered)) {
      return InvalidArgument("cannot merge ", family, " segments of index '", head.index_name(),
                             "' that cover the same fragments (segment ", segment.uuid(), ")");
    }
    result.fragments |= covered;
    result.covered.push_back(std::move(covered));
    result.dataset_version = std::max(result.dataset_version, segment.dataset_version());
  }
  result.merged.storage = out.storage;
  result.merged.field_id = head.field_id();
  result.merged.dataset_version = result.dataset_version;
  result.merged.index_name = head.index_name();
  for (uint32_t id : result.fragments) result.merged.fragments.emplace_back().set_id(id);
  return result;
}

}  // namespace tessera::index
