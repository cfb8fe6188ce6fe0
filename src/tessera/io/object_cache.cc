#include "tessera/io/object_cache.h"

#include "tessera/util/environment.h"

namespace tessera::io {

namespace {

constexpr size_t kMostSizes = 64 * 1024;

std::string ChunkKey(const std::string& object, int64_t chunk) {
  return object + "#" + std::to_string(chunk);
}

}  // namespace

ObjectCache& ObjectCache::Instance() {
  static ObjectCache* cache = new ObjectCache(  // never destroyed
      util::IntegerFromEnvironment("TESSERA_S3_CACHE_BYTES", int64_t{256} << 20));
  return *cache;
}

std::shared_ptr<arrow::Buffer> ObjectCache::Get(const std::string& object, int64_t chunk) {
  if (!enabled()) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(ChunkKey(object, chunk));
  if (found == entries_.end()) return nullptr;
  recency_.splice(recency_.begin(), recency_, found->second);
  return found->second->bytes;
}

void ObjectCache::Put(const std::string& object, int64_t chunk,
                      std::shared_ptr<arrow::Buffer> bytes) {
  if (!enabled() || bytes == nullptr || bytes->size() > capacity_bytes_) return;
  std::string key = ChunkKey(object, chunk);
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.count(key) > 0) return;
  cached_bytes_ += bytes->size();
  recency_.push_front(Entry{key, std::move(bytes)});
  entries_.emplace(std::move(key), recency_.begin());
  while (cached_bytes_ > capacity_bytes_) {
    cached_bytes_ -= recency_.back().bytes->size();
    entries_.erase(recency_.back().key);
    recency_.pop_back();
  }
}

std::pair<arrow::Status, std::shared_ptr<arrow::Buffer>> ObjectCache::Flight::Wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return done_; });
  return {status_, bytes_};
}

void ObjectCache::Flight::Finish(arrow::Status status, std::shared_ptr<arrow::Buffer> bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(status);
    bytes_ = std::move(bytes);
    done_ = true;
  }
  finished_.notify_all();
}

std::shared_ptr<ObjectCache::Flight> ObjectCache::Claim(const std::string& object, int64_t chunk,
                                                        const std::shared_ptr<Flight>& flight) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [found, inserted] = flights_.emplace(ChunkKey(object, chunk), flight);
  return inserted ? nullptr : found->second;
}

void ObjectCache::Land(const std::string& object, const std::vector<int64_t>& chunks,
                       const std::shared_ptr<Flight>& flight, arrow::Status status,
                       std::shared_ptr<arrow::Buffer> bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t chunk : chunks) {
      auto found = flights_.find(ChunkKey(object, chunk));
      if (found != flights_.end() && found->second == flight) flights_.erase(found);
    }
  }
  flight->Finish(std::move(status), std::move(bytes));
}

std::optional<int64_t> ObjectCache::SizeOf(const std::string& object) {
  if (!enabled()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = sizes_.find(object);
  if (found == sizes_.end()) return std::nullopt;
  return found->second;
}

void ObjectCache::SetSize(const std::string& object, int64_t size) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!sizes_.emplace(object, size).second) return;
  size_order_.push_back(object);
  if (size_order_.size() > kMostSizes) {
    sizes_.erase(size_order_.front());
    size_order_.pop_front();
  }
}

int64_t ObjectCache::cached_bytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

}  // namespace tessera::io
