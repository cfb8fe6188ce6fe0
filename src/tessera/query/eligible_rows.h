// EligibleRows: the rows of one dataset version that a nearest-neighbour search may return, per
// fragment — its live rows (deletions applied), or with a prefilter the allow-list of live rows
// passing the filter.
//
// Every part of a search (segment search, exact tail, refinement's candidates) asks the same
// question of the same object, so deletions and prefilters apply identically everywhere and
// rows that may not be returned never take a place in a top k. Fragments are in manifest order;
// every fragment of the version has an entry. Immutable once made: shared by every query of a
// PreparedNearest, on many threads.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

// The rows of one fragment a search may return.
struct EligibleFragment {
  const format::Fragment* fragment = nullptr;  // points into the dataset's manifest
  std::shared_ptr<const Roaring> deleted;      // without a prefilter
  std::optional<Roaring> allowed;              // with a prefilter: live rows passing it

  uint32_t id() const { return fragment->id(); }
  uint64_t physical_rows() const { return fragment->physical_rows(); }
  // Whether the search may return the row at `offset` (below physical_rows()).
  bool Accepts(uint32_t offset) const {
    return allowed ? allowed->contains(offset) : !deleted->contains(offset);
  }
  // How many rows it may return.
  uint64_t count() const {
    return allowed ? allowed->cardinality() : physical_rows() - deleted->cardinality();
  }
};

class EligibleRows {
 public:
  // Without `allowed`: the live rows of every fragment of `snapshot` (its deletion vectors,
  // loaded once by the snapshot; Corrupt for a damaged one). With it: those rows
  // (query::FindMatchingRows), which must hold an entry for every fragment.
  static arrow::Result<EligibleRows> Make(const Snapshot& snapshot,
                                          std::optional<RowsByFragment> allowed);

  // Rows already known: `fragments` in manifest order, each with `allowed` set when
  // `prefiltered`, `deleted` otherwise (a snapshot that loaded the deletion vectors once).
  static EligibleRows Of(bool prefiltered, std::vector<EligibleFragment> fragments);

  bool prefiltered() const { return prefiltered_; }
  // Parallel to manifest().fragments().
  const std::vector<EligibleFragment>& fragments() const { return fragments_; }

 private:
  bool prefiltered_ = false;
  std::vector<EligibleFragment> fragments_;
};

}  // namespace tessera::query
