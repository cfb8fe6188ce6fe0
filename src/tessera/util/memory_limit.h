// A statement's memory limit: an Arrow memory pool that refuses an allocation that would take
// the memory it has handed out, plus what was charged to it, over a limit.
//
// What is counted: every allocation made through the pool (Acero's operators take it as their
// pool: joins, aggregations, sorts, projections and the rows they make) and the bytes charged
// with Charge() (a query's materialized result, sql/query_planner.h). Rows the result takes
// from its inputs unchanged are charged once; rows an operator made are counted as allocated
// and charged, so the result's share counts at most twice. What is not: buffers read by scans
// (bounded by their read-ahead) and the shared snapshot cache.
//
// An allocation over the limit fails with OutOfMemory and sets exceeded(); callers turn that
// into their own error naming the limit (the status from deep inside Acero may have lost its
// detail). The pool is thread-safe. Buffers keep a raw pointer to their pool, so it must
// outlive every buffer it allocated: its owner hands it to Retire() rather than deleting it.
#pragma once

#include <arrow/memory_pool.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace tessera::util {

class LimitedMemoryPool final : public arrow::MemoryPool {
 public:
  explicit LimitedMemoryPool(int64_t limit,
                             arrow::MemoryPool* parent = arrow::default_memory_pool());

  // Deletes `pool` once no buffer of it is left: at once, or at a later Retire() call (the
  // pools waiting are kept reachable, a few bytes each).
  static void Retire(std::unique_ptr<LimitedMemoryPool> pool);

  int64_t limit() const { return limit_; }
  bool exceeded() const { return exceeded_.load(); }
  // A new statement: forgets the charges and the exceeded mark (live allocations stay).
  void BeginStatement();
  // Counts `bytes` held outside the pool; OutOfMemory (and exceeded()) over the limit.
  arrow::Status Charge(int64_t bytes);

  using arrow::MemoryPool::Allocate;
  using arrow::MemoryPool::Free;
  using arrow::MemoryPool::Reallocate;
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;
  int64_t bytes_allocated() const override { return allocated_.load(); }
  int64_t max_memory() const override { return max_.load(); }
  int64_t total_bytes_allocated() const override { return total_.load(); }
  int64_t num_allocations() const override { return allocations_.load(); }
  std::string backend_name() const override { return parent_->backend_name(); }

 private:
  // Reserves `bytes` more, or fails without reserving.
  arrow::Status Reserve(int64_t bytes);

  const int64_t limit_;
  arrow::MemoryPool* const parent_;
  std::atomic<int64_t> allocated_{0};
  std::atomic<int64_t> charged_{0};
  std::atomic<int64_t> max_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> allocations_{0};
  std::atomic<bool> exceeded_{false};
};

}  // namespace tessera::util
