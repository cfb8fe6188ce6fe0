#include "tessera/query/eligible_rows.h"

#include <utility>

#include "tessera/status.h"

namespace tessera::query {

arrow::Result<EligibleRows> EligibleRows::Make(const Snapshot& snapshot,
                                               std::optional<RowsByFragment> allowed) {
  const auto& manifest = snapshot.manifest();
  std::vector<EligibleFragment> fragments;
  fragments.reserve(static_cast<size_t>(manifest.fragments_size()));
  for (const format::Fragment& fragment : manifest.fragments()) {
    EligibleFragment eligible;
    eligible.fragment = &fragment;
    if (allowed) {
      auto found = allowed->find(fragment.id());
      if (found == allowed->end()) {
        return InvalidArgument("the allow-list of a prefiltered search of dataset ",
                               snapshot.dataset().uri(), " has no entry for fragment ",
                               fragment.id());
      }
      eligible.allowed = std::move(found->second);
    } else {
      ARROW_ASSIGN_OR_RAISE(eligible.deleted, snapshot.deletions().Get(fragment));
    }
    fragments.push_back(std::move(eligible));
  }
  return Of(allowed.has_value(), std::move(fragments));
}

EligibleRows EligibleRows::Of(bool prefiltered, std::vector<EligibleFragment> fragments) {
  EligibleRows rows;
  rows.prefiltered_ = prefiltered;
  rows.fragments_ = std::move(fragments);
  return rows;
}

}  // namespace tessera::query
