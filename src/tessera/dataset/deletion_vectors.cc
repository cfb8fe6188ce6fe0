#include "tessera/dataset/deletion_vectors.h"

#include "tessera/dataset/deletion_vector.h"
#include "tessera/status.h"

namespace tessera::dataset {

DeletionVectors::DeletionVectors(std::shared_ptr<io::Storage> storage,
                                 std::shared_ptr<const format::Manifest> manifest)
    : storage_(std::move(storage)), manifest_(std::move(manifest)) {
  for (int i = 0; i < manifest_->fragments_size(); ++i) {
    position_of_[manifest_->fragments(i).id()] = i;
  }
}

arrow::Result<std::shared_ptr<const Roaring>> DeletionVectors::Get(uint32_t fragment_id) const {
  const auto position = position_of_.find(fragment_id);
  if (position == position_of_.end()) {
    return NotFound("fragment ", fragment_id, " is not in version ", manifest_->version(),
                    " of dataset ", storage_->root());
  }
  return Get(manifest_->fragments(position->second));
}

arrow::Result<std::shared_ptr<const Roaring>> DeletionVectors::Get(
    const format::Fragment& fragment) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = loaded_.find(fragment.id());
    if (found != loaded_.end()) return found->second;
  }
  // Loaded outside the lock so that fragments load in parallel; a race loads one twice and
  // keeps the first, which is equal.
  ARROW_ASSIGN_OR_RAISE(auto vector, LoadDeletionVector(*storage_, fragment));
  std::lock_guard<std::mutex> lock(mutex_);
  return loaded_.emplace(fragment.id(), std::move(vector)).first->second;
}

size_t DeletionVectors::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return loaded_.size();
}

}  // namespace tessera::dataset
