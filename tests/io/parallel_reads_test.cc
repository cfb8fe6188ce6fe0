// Concurrent reads of object storage (io/parallel_reads.h): every read runs once, up to
// ReadParallelism() at once (more than the cores: the reads wait on a store), the first error by
// index is returned and no read starts after it, a nested call runs, and the caller's operation
// control (cancellation) is the readers' too.
#include "tessera/io/parallel_reads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::io::parallel_reads_test {
namespace {

TEST(ParallelReads, RunsEveryReadOnceWithManyInFlight) {
  constexpr int64_t kReads = 40;
  std::vector<std::atomic<int>> runs(kReads);
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  ASSERT_OK(ParallelReads(kReads, [&](int64_t i) {
    const int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a round trip
    --in_flight;
    ++runs[static_cast<size_t>(i)];
    return arrow::Status::OK();
  }));
  for (const auto& count : runs) EXPECT_EQ(count.load(), 1);
  EXPECT_GT(most.load(), 2) << "reads overlap beyond two cores";
  EXPECT_LE(most.load(), ReadParallelism());
}

TEST(ParallelReads, StopsStartingReadsAfterAFailureAndReturnsTheFirstByIndex) {
  std::atomic<int> ran{0};
  auto status = ParallelReads(200, [&](int64_t i) -> arrow::Status {
    ++ran;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (i == 3) return NotFound("read 3");
    if (i == 5) return Unavailable("read 5");
    return arrow::Status::OK();
  });
  EXPECT_EQ(KindOf(status), ErrorKind::kNotFound) << status;
  EXPECT_LT(ran.load(), 200) << "no read starts once one failed";
}

TEST(ParallelReads, ACancelledOperationStartsNoRead) {
  util::OperationControl control;
  control.RequestCancel();
  const util::ControlScope scope(&control);
  std::atomic<int> ran{0};
  auto status = ParallelReads(10, [&](int64_t) {
    ++ran;
    return arrow::Status::OK();
  });
  EXPECT_EQ(KindOf(status), ErrorKind::kCancelled) << status;
  EXPECT_EQ(ran.load(), 0);
}

TEST(ParallelReads, AReadThatThrowsFailsAndANestedCallRuns) {
  auto thrown = ParallelReads(3, [](int64_t i) -> arrow::Status {
    if (i == 1) throw std::runtime_error("boom");
    return arrow::Status::OK();
  });
  EXPECT_FALSE(thrown.ok());
  std::atomic<int> inner{0};
  ASSERT_OK(ParallelReads(4, [&](int64_t) {
    return ParallelReads(4, [&](int64_t) {
      ++inner;
      return arrow::Status::OK();
    });
  }));
  EXPECT_EQ(inner.load(), 16);
}

TEST(ParallelReads, ReadersSeeTheCallersOperationControl) {
  util::OperationControl control;
  const util::ControlScope scope(&control);
  std::atomic<int> seen{0};
  ASSERT_OK(ParallelReads(8, [&](int64_t) {
    if (util::CurrentControl() == &control) ++seen;
    return arrow::Status::OK();
  }));
  EXPECT_EQ(seen.load(), 8);
}

}  // namespace
}  // namespace tessera::io::parallel_reads_test
