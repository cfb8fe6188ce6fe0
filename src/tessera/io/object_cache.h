// ObjectCache: the bytes and sizes of objects on object storage that this process has read,
// shared by every dataset and query of the process (docs/objstore.md, "Reads").
//
// Safe without invalidation because tessera never rewrites an object under the same name: data,
// checksum, deletion, transaction and segment files get fresh uuid names, and a manifest's name
// is its version, created once by a conditional put. (cleanup deletes objects; a reader still
// holding a removed version may then be served its bytes from here, which are the bytes it
// would have read.) Keys are "<store>/<bucket>/<key>", so two stores never share entries.
//
// Bytes are kept in chunks (a file's bytes [i·chunk, (i+1)·chunk), or a whole object read at
// once) and evicted least recently used beyond the capacity; sizes are kept for up to 64 Ki
// objects, oldest first out. All members are thread-safe.
#pragma once

#include <arrow/buffer.h>

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace tessera::io {

class ObjectCache {
 public:
  // The process's cache, of TESSERA_S3_CACHE_BYTES (default 256 MiB; 0 turns caching off).
  static ObjectCache& Instance();

  explicit ObjectCache(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  bool enabled() const { return capacity_bytes_ > 0; }

  // Chunk `chunk` of `object` (kWholeObject for an object read whole), or null.
  static constexpr int64_t kWholeObject = -1;
  std::shared_ptr<arrow::Buffer> Get(const std::string& object, int64_t chunk);
  void Put(const std::string& object, int64_t chunk, std::shared_ptr<arrow::Buffer> bytes);

  // Fetches in flight, so that threads missing the same chunk send one request for it (a search
  // reads many partitions of one file from several threads at once). Claim makes the caller the
  // fetcher of chunk `chunk` of `object` and returns true, or waits until the thread fetching it
  // releases it and returns false (Get it then; a failed fetch leaves it missing). TryClaim
  // never waits: false when another thread fetches the chunk. A claim is released, fetched or
  // not, by Release. Claim only while holding no claim (no two threads then wait on each other).
  bool Claim(const std::string& object, int64_t chunk);
  bool TryClaim(const std::string& object, int64_t chunk);
  void Release(const std::string& object, int64_t chunk);

  std::optional<int64_t> SizeOf(const std::string& object);
  void SetSize(const std::string& object, int64_t size);

  int64_t cached_bytes();

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<arrow::Buffer> bytes;
  };

  const int64_t capacity_bytes_;
  std::mutex mutex_;
  std::list<Entry> recency_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> entries_;
  int64_t cached_bytes_ = 0;
  std::unordered_set<std::string> claimed_;  // chunk keys being fetched
  std::condition_variable released_;
  std::unordered_map<std::string, int64_t> sizes_;
  std::list<std::string> size_order_;  // oldest first
};

}  // namespace tessera::io
