// Which blocks of which files have passed their checksums, shared by every reader of one
// opened dataset (one Storage).
//
// The files a dataset references never change once written (new data gets new names), so a
// block verified once need not be verified again by later readers of the same opened dataset:
// a long-lived process (the server, Python, a benchmark loop) pays for each block once, like a
// database verifying a page when it enters its buffer pool. A dataset opened anew starts with
// nothing verified.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace tessera::io {

// A fixed set of flags, one per block, set concurrently without locks.
class BlockFlags {
 public:
  explicit BlockFlags(uint64_t blocks);
  bool IsSet(uint64_t block) const {
    return (words_[block / 64].load(std::memory_order_acquire) >> (block % 64)) & 1u;
  }
  void Set(uint64_t block) {
    words_[block / 64].fetch_or(uint64_t{1} << (block % 64), std::memory_order_acq_rel);
  }

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
};

class VerifiedBlocks {
 public:
  // The flags of the file at `path` of `file_bytes` bytes and `blocks` blocks; the same object
  // for every caller asking about the same file of the same size.
  std::shared_ptr<BlockFlags> Of(const std::string& path, uint64_t file_bytes, uint64_t blocks);

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, uint64_t>, std::shared_ptr<BlockFlags>> files_;
};

}  // namespace tessera::io
