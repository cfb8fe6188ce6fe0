// Snapshot: one committed dataset version opened for reading, with everything every read of it
// needs, loaded once and shared by scan, count, delete, nearest search, explain and inspection.
//
// It holds the version (dataset::Dataset: manifest, schema, fragments), the fragments'
// deletion vectors (loaded on first use, once) and, per index of the version, its live segments:
// those covering at least one fragment of the version, opened on first use, once, through the
// process-wide SegmentCache, so that repeated queries on one version — or on a newer version that
// shares segments — open no segment again. A long-lived process (a server, Python) keeps
// snapshots alive across queries; a CLI run makes one per command.
//
// Immutable after Make() apart from the lazily loaded parts, which are thread-safe: one snapshot
// may serve many queries on many threads at once.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/deletion_vectors.h"
#include "tessera/dataset/open_fragments.h"
#include "tessera/index/index_family.h"

namespace tessera::query {

class SegmentCache;

// A segment of an index that covers fragments of the snapshot's version.
struct OpenedSegment {
  const format::SegmentMeta* meta = nullptr;  // points into the snapshot's manifest
  std::shared_ptr<index::SegmentReader> reader;
  Roaring fragments;       // every fragment the segment covers (its fragment bitmap)
  Roaring live_fragments;  // those still in the version
};

// One index of the version with its live segments, in definition order.
struct OpenedIndex {
  const format::IndexDef* definition = nullptr;  // points into the snapshot's manifest
  // Null when no family of that name is registered: the index cannot be used.
  const index::IndexFamily* family = nullptr;
  int field_index = -1;  // in the schema; -1 when the indexed field left the schema
  std::vector<OpenedSegment> segments;
};

class Snapshot {
 public:
  // `cache`: where segments are opened and shared (null: SegmentCache::Global()); it must
  // outlive the snapshot.
  static std::shared_ptr<const Snapshot> Make(std::shared_ptr<const dataset::Dataset> dataset,
                                              SegmentCache* cache = nullptr);
  // A snapshot of `dataset`, which the caller keeps alive for as long as the snapshot is used:
  // for entry points that take a dataset::Dataset& for one call.
  static std::shared_ptr<const Snapshot> Borrowing(const dataset::Dataset& dataset);
  // Opens version `version` (the latest when absent) of the dataset at `uri`; errors of
  // Dataset::Open.
  static arrow::Result<std::shared_ptr<const Snapshot>> Open(std::string_view uri,
                                                             std::optional<uint64_t> version = {});

  const dataset::Dataset& dataset() const { return *dataset_; }
  const std::shared_ptr<const dataset::Dataset>& dataset_ptr() const { return dataset_; }
  const format::Manifest& manifest() const { return dataset_->manifest(); }
  const std::shared_ptr<arrow::Schema>& schema() const { return dataset_->schema(); }
  const std::shared_ptr<io::Storage>& storage() const { return dataset_->storage(); }
  uint64_t version() const { return dataset_->version(); }
  // The version's fragment ids.
  const Roaring& fragment_ids() const { return fragment_ids_; }
  const dataset::DeletionVectors& deletions() const { return *deletions_; }
  // The version's fragment readers, each opened on first use and shared by every read of the
  // snapshot (dataset/open_fragments.h).
  const dataset::OpenFragments& open_fragments() const { return *open_fragments_; }

  // The index at `position` in manifest().indexes(), its segments opened on first use. Errors
  // (a segment that cannot be opened: Corrupt, naming it) are not cached: a later call tries
  // again.
  arrow::Result<const OpenedIndex*> Index(int position) const;
  // Positions in manifest().indexes() of the indexes on schema field `field_index`.
  std::vector<int> IndexesOnField(int field_index) const;

  // Dataset::Take on this version, through open_fragments().
  arrow::Result<std::shared_ptr<arrow::Table>> Take(const std::vector<uint64_t>& row_addresses,
                                                    const std::vector<std::string>& columns) const;

  // A value derived from this version alone (what a query layer prepares once per version,
  // e.g. full-text search's sources of a column), made by `make` on the first call for `key`
  // and shared by every later one. Errors are returned, not kept: a later call tries again.
  // Thread-safe; two first calls at once may both run `make`, and the first result is kept.
  template <typename T>
  arrow::Result<std::shared_ptr<const T>> Derived(
      const std::string& key,
      const std::function<arrow::Result<std::shared_ptr<const T>>()>& make) const {
    ARROW_ASSIGN_OR_RAISE(auto value,
                          DerivedValue(key, [&]() -> arrow::Result<std::shared_ptr<const void>> {
                            ARROW_ASSIGN_OR_RAISE(auto made, make());
                            return std::shared_ptr<const void>(std::move(made));
                          }));
    return std::static_pointer_cast<const T>(std::move(value));
  }

  Snapshot(std::shared_ptr<const dataset::Dataset> dataset, SegmentCache* cache);
  ~Snapshot();

 private:
  struct IndexSlot;
  struct DerivedValues;
  arrow::Result<std::shared_ptr<const void>> DerivedValue(
      const std::string& key,
      const std::function<arrow::Result<std::shared_ptr<const void>>()>& make) const;
  arrow::Result<std::unique_ptr<OpenedIndex>> OpenIndex(int position) const;

  std::shared_ptr<const dataset::Dataset> dataset_;
  SegmentCache* cache_;
  Roaring fragment_ids_;
  std::unique_ptr<dataset::DeletionVectors> deletions_;
  std::vector<int> field_of_index_;  // per index position: its schema field, or -1
  std::vector<std::unique_ptr<IndexSlot>> indexes_;
  std::unique_ptr<dataset::OpenFragments> open_fragments_;
  std::unique_ptr<DerivedValues> derived_;
};

}  // namespace tessera::query
