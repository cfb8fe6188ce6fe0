#include "tessera/io/verified_blocks.h"

namespace tessera::io {

BlockFlags::BlockFlags(uint64_t blocks) : words_(new std::atomic<uint64_t>[(blocks + 63) / 64]()) {}

std::shared_ptr<BlockFlags> VerifiedBlocks::Of(const std::string& path, uint64_t file_bytes,
                                               uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& flags = files_[{path, file_bytes}];
  if (flags == nullptr) flags = std::make_shared<BlockFlags>(blocks);
  return flags;
}

}  // namespace tessera::io
