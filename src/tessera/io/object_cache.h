// ObjectCache: the bytes and sizes of objects on object storage that this process has read,
// shared by every dataset and query of the process (docs/objstore.md, "Reads").
//
// Safe without invalidation because tessera never rewrites an object under the same name: data,
// checksum, deletion, transaction and segment files get fresh uuid names, and a manifest's name
// is its version, created once by a conditional put. (cleanup deletes objects; a reader still
// holding a removed version may then be served its bytes from here, which are the bytes it
// would have read.) Keys are "<store>/<bucket>/<key>", so two stores never share entries. The
// one kind of object that may change, an external Parquet object (docs/objstore.md), is keyed
// "<store>/<bucket>/<key>#<ETag>" and read pinned to that ETag: its entries are of one version.
//
// Bytes are kept in chunks (a file's bytes [i·chunk, (i+1)·chunk), or a whole object read at
// once) and evicted least recently used beyond the capacity; sizes are kept for up to 64 Ki
// objects, oldest first out. All members are thread-safe.
#pragma once

#include <arrow/buffer.h>
#include <arrow/status.h>

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

  // A fetch in flight: chunks [first, first + n) of one object, fetched by one thread. Threads
  // missing one of those chunks wait for it and take their chunk from its result, failure
  // included, instead of sending the same request (a search reads many partitions of one file
  // from several threads at once).
  class Flight {
   public:
    explicit Flight(int64_t first) : first_(first) {}
    int64_t first() const { return first_; }
    // Waits until the fetch ends: its status and, on success, the bytes of its chunks.
    std::pair<arrow::Status, std::shared_ptr<arrow::Buffer>> Wait();
    void Finish(arrow::Status status, std::shared_ptr<arrow::Buffer> bytes);

   private:
    const int64_t first_;
    std::mutex mutex_;
    std::condition_variable finished_;
    bool done_ = false;
    arrow::Status status_;
    std::shared_ptr<arrow::Buffer> bytes_;
  };
  // Registers `flight` as the fetch of chunk `chunk` of `object` and returns null, or returns
  // the flight already fetching it. Never waits.
  std::shared_ptr<Flight> Claim(const std::string& object, int64_t chunk,
                                const std::shared_ptr<Flight>& flight);
  // Ends `flight`'s claims on `chunks` of `object` and finishes it: its waiters wake.
  void Land(const std::string& object, const std::vector<int64_t>& chunks,
            const std::shared_ptr<Flight>& flight, arrow::Status status,
            std::shared_ptr<arrow::Buffer> bytes);

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
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights_;  // by chunk key
  std::unordered_map<std::string, int64_t> sizes_;
  std::list<std::string> size_order_;  // oldest first
};

}  // namespace tessera::io
