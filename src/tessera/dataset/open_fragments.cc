#include "tessera/dataset/open_fragments.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "tessera/dataset/deletion_vectors.h"

namespace tessera::dataset {

namespace {

constexpr size_t kKeptReaders = 256;

uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return uint64_t{4} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes);
}

}  // namespace

OpenFragmentsBudget OpenFragmentsBudget::Default() {
  OpenFragmentsBudget budget{PhysicalMemoryBytes() / 4, kKeptReaders};
  // A decimal byte count; anything else (a sign, other characters, overflow) is ignored.
  if (const char* text = std::getenv("TESSERA_OPEN_FRAGMENT_BYTES");
      text != nullptr && *text >= '0' && *text <= '9') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (*end == '\0' && errno != ERANGE) budget.bytes = value;
  }
  return budget;
}

OpenFragments::OpenFragments(std::shared_ptr<io::Storage> storage,
                             std::shared_ptr<arrow::Schema> schema,
                             const DeletionVectors* deletions, OpenFragmentsBudget budget)
    : storage_(std::move(storage)),
      schema_(std::move(schema)),
      deletions_(deletions),
      budget_(budget) {}

arrow::Result<std::shared_ptr<const FragmentReader>> OpenFragments::Get(
    const format::Fragment& fragment, const std::vector<int>& columns) const {
  Key key{fragment.id(), columns};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = readers_.find(key); it != readers_.end()) {
      recency_.splice(recency_.begin(), recency_, it->second.recency);
      return it->second.reader;
    }
  }
  std::shared_ptr<const Roaring> deleted;
  if (deletions_ != nullptr) {
    ARROW_ASSIGN_OR_RAISE(deleted, deletions_->Get(fragment));
  }
  // Opened outside the lock: opening maps and checks a file, and other keys need not wait.
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<const FragmentReader> reader,
                        FragmentReader::Open(*storage_, fragment, schema_, columns, deleted));
  uint64_t bytes = 0;
  for (const auto& file : fragment.files()) bytes += file.size_bytes();
  // Readers dropped are released after the lock: releasing the last one unmaps its file.
  std::vector<std::shared_ptr<const FragmentReader>> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = readers_.find(key); it != readers_.end()) return it->second.reader;
  if (bytes > budget_.bytes || budget_.readers == 0) return reader;
  recency_.push_front(key);
  readers_.emplace(std::move(key), Kept{reader, bytes, recency_.begin()});
  kept_bytes_ += bytes;
  Evict(&dropped);
  return reader;
}

void OpenFragments::Evict(std::vector<std::shared_ptr<const FragmentReader>>* dropped) const {
  while (!recency_.empty() && (kept_bytes_ > budget_.bytes || readers_.size() > budget_.readers)) {
    auto it = readers_.find(recency_.back());
    kept_bytes_ -= it->second.bytes;
    dropped->push_back(std::move(it->second.reader));
    readers_.erase(it);
    recency_.pop_back();
  }
}

size_t OpenFragments::kept_readers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return readers_.size();
}

uint64_t OpenFragments::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kept_bytes_;
}

}  // namespace tessera::dataset
