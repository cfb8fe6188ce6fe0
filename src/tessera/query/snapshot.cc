#include "tessera/query/snapshot.h"

#include <map>
#include <utility>

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/take.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

namespace tessera::query {

struct Snapshot::IndexSlot {
  std::mutex mutex;
  std::unique_ptr<OpenedIndex> opened;
};

struct Snapshot::DerivedValues {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const void>> values;
};

std::shared_ptr<const Snapshot> Snapshot::Make(std::shared_ptr<const dataset::Dataset> dataset,
                                               SegmentCache* cache) {
  return std::make_shared<const Snapshot>(std::move(dataset),
                                          cache == nullptr ? &SegmentCache::Global() : cache);
}

std::shared_ptr<const Snapshot> Snapshot::Borrowing(const dataset::Dataset& dataset) {
  return Make(
      std::shared_ptr<const dataset::Dataset>(std::shared_ptr<const dataset::Dataset>(), &dataset));
}

arrow::Result<std::shared_ptr<const Snapshot>> Snapshot::Open(std::string_view uri,
                                                              std::optional<uint64_t> version) {
  ARROW_ASSIGN_OR_RAISE(auto dataset, dataset::Dataset::Open(uri, version));
  return Make(std::move(dataset));
}

Snapshot::Snapshot(std::shared_ptr<const dataset::Dataset> dataset, SegmentCache* cache)
    : dataset_(std::move(dataset)), cache_(cache), derived_(std::make_unique<DerivedValues>()) {
  for (const auto& fragment : manifest().fragments()) fragment_ids_.add(fragment.id());
  // The manifest is owned by the dataset; an aliasing pointer keeps the dataset alive with it.
  std::shared_ptr<const format::Manifest> owned_manifest(dataset_, &dataset_->manifest());
  deletions_ = std::make_unique<dataset::DeletionVectors>(storage(), std::move(owned_manifest));
  open_fragments_ = std::make_unique<dataset::OpenFragments>(storage(), schema(), deletions_.get());
  const auto& field_ids = dataset_->field_ids();
  for (const auto& definition : manifest().indexes()) {
    int field = -1;
    for (size_t i = 0; i < field_ids.size(); ++i) {
      if (field_ids[i] == definition.field_id()) field = static_cast<int>(i);
    }
    field_of_index_.push_back(field);
    indexes_.push_back(std::make_unique<IndexSlot>());
  }
}

Snapshot::~Snapshot() = default;

std::vector<int> Snapshot::IndexesOnField(int field_index) const {
  std::vector<int> positions;
  for (size_t i = 0; i < field_of_index_.size(); ++i) {
    if (field_of_index_[i] == field_index && field_index >= 0) {
      positions.push_back(static_cast<int>(i));
    }
  }
  return positions;
}

arrow::Result<std::shared_ptr<arrow::Table>> Snapshot::Take(
    const std::vector<uint64_t>& row_addresses, const std::vector<std::string>& columns) const {
  // The readers lent are held for the call: OpenFragments may drop them meanwhile.
  std::vector<std::shared_ptr<const dataset::FragmentReader>> held;
  auto lend =
      [&](const format::Fragment& fragment,
          const std::vector<int>& indices) -> arrow::Result<const dataset::FragmentReader*> {
    ARROW_ASSIGN_OR_RAISE(auto reader, open_fragments_->Get(fragment, indices));
    held.push_back(reader);
    return reader.get();
  };
  return dataset::TakeRows(*storage(), manifest(), schema(), row_addresses, columns, lend);
}

arrow::Result<std::shared_ptr<const void>> Snapshot::DerivedValue(
    const std::string& key,
    const std::function<arrow::Result<std::shared_ptr<const void>>()>& make) const {
  {
    std::lock_guard<std::mutex> lock(derived_->mutex);
    auto it = derived_->values.find(key);
    if (it != derived_->values.end()) return it->second;
  }
  // Made outside the lock: `make` may itself use the snapshot (its indexes, its readers).
  ARROW_ASSIGN_OR_RAISE(auto value, make());
  std::lock_guard<std::mutex> lock(derived_->mutex);
  return derived_->values.emplace(key, std::move(value)).first->second;
}

arrow::Result<const OpenedIndex*> Snapshot::Index(int position) const {
  if (position < 0 || position >= static_cast<int>(indexes_.size())) {
    return InvalidArgument("version ", version(), " of dataset ", dataset_->uri(), " has ",
                           indexes_.size(), " indexes, not one at position ", position);
  }
  IndexSlot& slot = *indexes_[static_cast<size_t>(position)];
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.opened == nullptr) {
    ARROW_ASSIGN_OR_RAISE(slot.opened, OpenIndex(position));
  }
  return slot.opened.get();
}

arrow::Result<std::unique_ptr<OpenedIndex>> Snapshot::OpenIndex(int position) const {
  auto opened = std::make_unique<OpenedIndex>();
  const format::IndexDef& definition = manifest().indexes(position);
  opened->definition = &definition;
  opened->field_index = field_of_index_[static_cast<size_t>(position)];
  opened->family = index::FindFamily(definition.family());
  if (opened->family == nullptr) return opened;
  for (const auto& segment : definition.segments()) {
    ARROW_ASSIGN_OR_RAISE(Roaring fragments, index::DecodeFragmentBitmap(segment));
    Roaring live = fragments & fragment_ids_;
    if (live.isEmpty()) continue;
    ARROW_ASSIGN_OR_RAISE(auto reader, cache_->Get(storage(), *opened->family, segment));
    opened->segments.push_back(
        {&segment, std::move(reader), std::move(fragments), std::move(live)});
  }
  return opened;
}

}  // namespace tessera::query
