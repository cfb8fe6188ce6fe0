#include "tessera/dataset/open_fragments.h"

#include "tessera/dataset/deletion_vectors.h"

namespace tessera::dataset {

OpenFragments::OpenFragments(std::shared_ptr<io::Storage> storage,
                             std::shared_ptr<arrow::Schema> schema,
                             const DeletionVectors* deletions)
    : storage_(std::move(storage)), schema_(std::move(schema)), deletions_(deletions) {}

arrow::Result<std::shared_ptr<const FragmentReader>> OpenFragments::Get(
    const format::Fragment& fragment, const std::vector<int>& columns) const {
  Key key{fragment.id(), columns};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = readers_.find(key); it != readers_.end()) return it->second;
  }
  std::shared_ptr<const Roaring> deleted;
  if (deletions_ != nullptr) {
    ARROW_ASSIGN_OR_RAISE(deleted, deletions_->Get(fragment));
  }
  // Opened outside the lock: opening maps and checks a file, and other keys need not wait.
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<const FragmentReader> reader,
                        FragmentReader::Open(*storage_, fragment, schema_, columns, deleted));
  std::lock_guard<std::mutex> lock(mutex_);
  return readers_.emplace(std::move(key), std::move(reader)).first->second;
}

}  // namespace tessera::dataset
