#include "tessera/util/memory_limit.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tessera::util {

LimitedMemoryPool::LimitedMemoryPool(int64_t limit, arrow::MemoryPool* parent)
    : limit_(limit), parent_(parent) {}

void LimitedMemoryPool::Retire(std::unique_ptr<LimitedMemoryPool> pool) {
  static std::mutex mutex;
  static auto* waiting = new std::vector<std::unique_ptr<LimitedMemoryPool>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (pool != nullptr) waiting->push_back(std::move(pool));
  std::erase_if(*waiting, [](const auto& retired) { return retired->bytes_allocated() == 0; });
}

void LimitedMemoryPool::BeginStatement() {
  charged_.store(0);
  exceeded_.store(false);
}

arrow::Status LimitedMemoryPool::Reserve(int64_t bytes) {
  const int64_t before = allocated_.fetch_add(bytes);
  if (bytes > 0 && before + bytes + charged_.load() > limit_) {
    allocated_.fetch_sub(bytes);
    exceeded_.store(true);
    return arrow::Status::OutOfMemory("the statement's memory limit of ", limit_,
                                      " bytes would be exceeded by ", bytes, " more bytes");
  }
  int64_t peak = max_.load();
  while (before + bytes > peak && !max_.compare_exchange_weak(peak, before + bytes)) {
  }
  return arrow::Status::OK();
}

arrow::Status LimitedMemoryPool::Charge(int64_t bytes) {
  const int64_t charged = charged_.fetch_add(bytes) + bytes;
  if (charged + allocated_.load() > limit_) {
    exceeded_.store(true);
    return arrow::Status::OutOfMemory("the statement's memory limit of ", limit_,
                                      " bytes is exceeded by its result");
  }
  return arrow::Status::OK();
}

arrow::Status LimitedMemoryPool::Allocate(int64_t size, int64_t alignment, uint8_t** out) {
  ARROW_RETURN_NOT_OK(Reserve(size));
  auto status = parent_->Allocate(size, alignment, out);
  if (!status.ok()) {
    allocated_.fetch_sub(size);
    return status;
  }
  total_.fetch_add(size);
  allocations_.fetch_add(1);
  return status;
}

arrow::Status LimitedMemoryPool::Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                                            uint8_t** ptr) {
  const int64_t growth = new_size - old_size;
  ARROW_RETURN_NOT_OK(Reserve(growth));
  auto status = parent_->Reallocate(old_size, new_size, alignment, ptr);
  if (!status.ok()) {
    allocated_.fetch_sub(growth);
    return status;
  }
  if (growth > 0) total_.fetch_add(growth);
  allocations_.fetch_add(1);
  return status;
}

void LimitedMemoryPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  parent_->Free(buffer, size, alignment);
  allocated_.fetch_sub(size);
}

}  // namespace tessera::util
