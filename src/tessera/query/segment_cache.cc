#include "tessera/query/segment_cache.h"

#include <cstdlib>

#include "tessera/index/segment_meta.h"
#include "tessera/status.h"
#include "tessera/util/environment.h"

namespace tessera::query {

namespace {

constexpr uint64_t kDefaultBudgetBytes = uint64_t{4} << 30;

uint64_t BudgetFromEnvironment() {
  return static_cast<uint64_t>(util::IntegerFromEnvironment(
      "TESSERA_SEGMENT_CACHE_BYTES", static_cast<int64_t>(kDefaultBudgetBytes)));
}

std::string KeyOf(const io::Storage& storage, const format::SegmentMeta& segment) {
  return storage.root() + '\0' + segment.uuid();
}

}  // namespace

struct SegmentCache::Entry {
  std::mutex open_mutex;  // held while the segment opens: other requests wait for it
  std::shared_ptr<index::SegmentReader> reader;
  uint64_t bytes = 0;
  std::list<std::string>::iterator recency;
  bool listed = false;  // in recency_ (charged to the budget)
};

SegmentCache& SegmentCache::Global() {
  static SegmentCache* cache = new SegmentCache(BudgetFromEnvironment());  // never destroyed
  return *cache;
}

SegmentCache::SegmentCache(uint64_t budget_bytes) : budget_bytes_(budget_bytes) {}
SegmentCache::~SegmentCache() = default;

arrow::Result<std::shared_ptr<index::SegmentReader>> SegmentCache::Get(
    const std::shared_ptr<io::Storage>& storage, const index::IndexFamily& family,
    const format::SegmentMeta& segment) {
  const std::string key = KeyOf(*storage, segment);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = entries_[key];
    if (slot == nullptr) slot = std::make_shared<Entry>();
    entry = slot;
    if (entry->reader != nullptr) {
      ++statistics_.hits;
      if (entry->listed) recency_.splice(recency_.begin(), recency_, entry->recency);
      return entry->reader;
    }
  }
  std::lock_guard<std::mutex> opening(entry->open_mutex);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entry->reader != nullptr) {  // opened by the request this one waited for
      ++statistics_.hits;
      if (entry->listed) recency_.splice(recency_.begin(), recency_, entry->recency);
      return entry->reader;
    }
  }
  auto opened = [&]() -> arrow::Result<std::unique_ptr<index::SegmentReader>> {
    ARROW_ASSIGN_OR_RAISE(auto directory, index::DirectoryOf(storage, segment));
    return family.Open(segment, directory);
  }();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!opened.ok()) {
    auto found = entries_.find(key);
    if (found != entries_.end() && found->second == entry) entries_.erase(found);
    return WithContext(opened.status(), "opening segment " + segment.uuid() + " of index '" +
                                            segment.index_name() + "'");
  }
  entry->reader = std::shared_ptr<index::SegmentReader>(std::move(opened).ValueUnsafe());
  entry->bytes = segment.size_bytes();
  ++statistics_.opens;
  // Listed only if still the entry of its key (a Clear() meanwhile drops it from the cache).
  auto found = entries_.find(key);
  if (found != entries_.end() && found->second == entry) {
    recency_.push_front(key);
    entry->recency = recency_.begin();
    entry->listed = true;
    statistics_.bytes += entry->bytes;
    EvictOverBudget(key);
  }
  return entry->reader;
}

void SegmentCache::EvictOverBudget(const std::string& keep) {
  while (statistics_.bytes > budget_bytes_ && !recency_.empty()) {
    const std::string& victim = recency_.back();
    if (victim == keep) break;  // the reader just asked for stays, even over the budget
    auto found = entries_.find(victim);
    statistics_.bytes -= found->second->bytes;
    found->second->listed = false;
    ++statistics_.evictions;
    entries_.erase(found);
    recency_.pop_back();
  }
}

SegmentCache::Statistics SegmentCache::statistics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statistics statistics = statistics_;
  statistics.entries = recency_.size();
  return statistics;
}

uint64_t SegmentCache::budget_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return budget_bytes_;
}

void SegmentCache::set_budget_bytes(uint64_t budget_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  budget_bytes_ = budget_bytes;
  EvictOverBudget("");
}

void SegmentCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Entries still opening keep their mutex alive through the requests holding them.
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second->listed) {
      it->second->listed = false;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  recency_.clear();
  statistics_.bytes = 0;
}

}  // namespace tessera::query
