#include "tessera/query/eligible_rows.h"

#include <utility>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/status.h"

namespace tessera::query {

arrow::Result<EligibleRows> EligibleRows::Make(const dataset::Dataset& dataset,
                                               std::optional<RowsByFragment> allowed) {
  EligibleRows rows;
  rows.prefiltered_ = allowed.has_value();
  const auto& manifest = dataset.manifest();
  rows.fragments_.reserve(static_cast<size_t>(manifest.fragments_size()));
  for (const format::Fragment& fragment : manifest.fragments()) {
    EligibleFragment eligible;
    eligible.fragment = &fragment;
    if (allowed) {
      auto found = allowed->find(fragment.id());
      if (found == allowed->end()) {
        return InvalidArgument("the allow-list of a prefiltered search of dataset ", dataset.uri(),
                               " has no entry for fragment ", fragment.id());
      }
      eligible.allowed = std::move(found->second);
    } else {
      ARROW_ASSIGN_OR_RAISE(eligible.deleted,
                            dataset::LoadDeletionVector(*dataset.storage(), fragment));
    }
    rows.position_of_.emplace(fragment.id(), rows.fragments_.size());
    rows.fragments_.push_back(std::move(eligible));
  }
  return rows;
}

const EligibleFragment* EligibleRows::Find(uint32_t id) const {
  auto found = position_of_.find(id);
  return found == position_of_.end() ? nullptr : &fragments_[found->second];
}

}  // namespace tessera::query
