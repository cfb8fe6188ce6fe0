// SegmentCache: the opened index segments of every dataset this process reads, shared by all
// snapshots and queries, bounded in bytes.
//
// A segment never changes after its build, so an opened reader is keyed by (dataset root,
// segment uuid) for the life of the process: a query on the same version, or on a newer version
// that still lists the segment, reuses it instead of mapping its files and decoding its lookup
// layer or model again. Readers are charged their files' size (SegmentMeta.size_bytes); when
// the total passes the budget the least recently used are dropped from the cache. A dropped
// reader stays alive while a snapshot still holds it.
//
// Thread-safe. Concurrent requests for one segment open it once; the others wait for it. A
// failed open is not cached: the next request tries again.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"
#include "tessera/io/storage.h"

namespace tessera::query {

class SegmentCache {
 public:
  // The process-wide cache. Its budget is TESSERA_SEGMENT_CACHE_BYTES (bytes) when set, else
  // 4 GiB.
  static SegmentCache& Global();

  explicit SegmentCache(uint64_t budget_bytes);
  ~SegmentCache();
  SegmentCache(const SegmentCache&) = delete;
  SegmentCache& operator=(const SegmentCache&) = delete;

  // The reader of `segment` (a segment of a dataset stored at `storage`, of `family`), opened on
  // first use. Errors of the family's Open, with the segment and index named.
  arrow::Result<std::shared_ptr<index::SegmentReader>> Get(
      const std::shared_ptr<io::Storage>& storage, const index::IndexFamily& family,
      const format::SegmentMeta& segment);

  struct Statistics {
    uint64_t opens = 0;      // segments opened (cache misses that succeeded)
    uint64_t hits = 0;       // requests answered by an already opened reader
    uint64_t evictions = 0;  // readers dropped to stay within the budget
    uint64_t bytes = 0;      // charged bytes of the cached readers
    uint64_t entries = 0;
  };
  Statistics statistics() const;

  uint64_t budget_bytes() const;
  // Lowers or raises the budget; evicts at once when the cache is now over it.
  void set_budget_bytes(uint64_t budget_bytes);
  // Drops every cached reader (those in use stay alive with their users).
  void Clear();

 private:
  struct Entry;
  void EvictOverBudget(const std::string& keep);  // mutex_ held

  mutable std::mutex mutex_;
  uint64_t budget_bytes_;
  // Most recently used first.
  std::list<std::string> recency_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
  Statistics statistics_;
};

}  // namespace tessera::query
