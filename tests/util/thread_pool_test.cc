// util::ParallelFor (util/thread_pool.h): coverage of the index range, error propagation by
// chunk order, exceptions of bodies, nested loops, the serial cases and concurrent callers.
#include "tessera/util/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/status.h"
#include "tessera/util/exception_guard.h"

namespace tessera::util::thread_pool_test {
namespace {

TEST(ThreadPool, NumThreadsIsPositive) { EXPECT_GE(NumThreads(), 1); }

TEST(ThreadPool, ParsesTheThreadCountVariable) {
  EXPECT_EQ(ParseNumThreads("1"), 1);
  EXPECT_EQ(ParseNumThreads("16"), 16);
  EXPECT_EQ(ParseNumThreads("007"), 7);
  EXPECT_EQ(ParseNumThreads("4096"), 4096);
  // Ignored: NumThreads() then falls back to the hardware's count.
  for (const char* invalid :
       {"", "0", "-2", "+2", " 2", "2 ", "2x", "abc", "1.5", "4097", "99999999999999999999"}) {
    EXPECT_EQ(ParseNumThreads(invalid), 0) << "'" << invalid << "'";
  }
  EXPECT_EQ(ParseNumThreads(nullptr), 0);
}

TEST(ThreadPool, VisitsEveryIndexOnce) {
  for (int64_t count : {1, 2, 3, 7, 100, 1000, 100003}) {
    for (int64_t min_chunk : {1, 5, 64}) {
      for (int max_threads : {0, 1, 2, 4, 16}) {
        std::vector<std::atomic<int>> visits(static_cast<size_t>(count));
        std::atomic<int64_t> calls{0};
        ASSERT_OK(ParallelFor(
            count,
            [&](int64_t begin, int64_t end) {
              EXPECT_LT(begin, end);
              ++calls;
              for (int64_t i = begin; i < end; ++i) visits[i].fetch_add(1);
              return arrow::Status::OK();
            },
            min_chunk, max_threads));
        for (int64_t i = 0; i < count; ++i) ASSERT_EQ(visits[i].load(), 1) << i;
        EXPECT_GE(calls.load(), 1);
      }
    }
  }
}

TEST(ThreadPool, ChunksAreAtLeastMinChunkLongExceptTheLast) {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  ASSERT_OK(ParallelFor(
      1000,
      [&](int64_t begin, int64_t end) {
        std::lock_guard<std::mutex> lock(mutex);
        chunks.emplace_back(begin, end);
        return arrow::Status::OK();
      },
      300, 4));
  for (const auto& [begin, end] : chunks) {
    if (end != 1000) {
      EXPECT_GE(end - begin, 300);
    }
  }
}

TEST(ThreadPool, CountZeroCallsNothing) {
  int calls = 0;
  auto body = [&](int64_t, int64_t) {
    ++calls;
    return arrow::Status::OK();
  };
  ASSERT_OK(ParallelFor(0, body));
  ASSERT_OK(ParallelFor(-5, body));
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, ReturnsTheFirstErrorByChunkOrderAndRunsEveryChunk) {
  for (int max_threads : {1, 2, 4, 0}) {
    std::atomic<int64_t> visited{0};
    const arrow::Status status = ParallelFor(
        10000,
        [&](int64_t begin, int64_t end) -> arrow::Status {
          visited += end - begin;
          // Every chunk from index 5000 on fails, naming its first index.
          if (end > 5000) return InvalidArgument("chunk at ", begin, " ", end);
          return arrow::Status::OK();
        },
        100, max_threads);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
    EXPECT_EQ(visited.load(), 10000);
    // The first failing chunk is the one holding index 5000, never a later one.
    const std::string message = status.message();
    const size_t at = message.find("at ") + 3;
    const size_t space = message.find(' ', at);
    const int64_t begin = std::stoll(message.substr(at, space - at));
    const int64_t end = std::stoll(message.substr(space + 1));
    EXPECT_LE(begin, 5000) << message;
    EXPECT_GT(end, 5000) << message;
  }
}

// A body that throws (an allocation failing on a worker thread) must not terminate the process:
// the exception becomes its chunk's error, of the right kind and naming the caller's operation.
TEST(ThreadPool, ExceptionsOfBodiesBecomeTypedErrors) {
  const OperationName operation("testing the pool");
  for (int max_threads : {1, 2, 4, 0}) {
    std::atomic<int64_t> visited{0};
    arrow::Status status = ParallelFor(
        10000,
        [&](int64_t begin, int64_t end) -> arrow::Status {
          visited += end - begin;
          if (end > 5000) throw std::bad_alloc();
          return arrow::Status::OK();
        },
        100, max_threads);
    ASSERT_FALSE(status.ok()) << max_threads;
    EXPECT_EQ(KindOf(status), ErrorKind::kResourceExhausted) << status.ToString();
    EXPECT_NE(status.message().find("out of memory while testing the pool"), std::string::npos)
        << status.ToString();
    EXPECT_EQ(visited.load(), 10000);

    status = ParallelFor(
        1000,
        [&](int64_t, int64_t end) -> arrow::Status {
          if (end == 1000) throw std::runtime_error("broken invariant");
          return arrow::Status::OK();
        },
        10, max_threads);
    ASSERT_FALSE(status.ok()) << max_threads;
    EXPECT_EQ(KindOf(status), ErrorKind::kInternal) << status.ToString();
    EXPECT_NE(status.message().find("testing the pool"), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find("broken invariant"), std::string::npos) << status.ToString();

    // Thrown by a loop nested in a body (run inline, possibly on a worker thread).
    status = ParallelFor(
        100,
        [&](int64_t begin, int64_t) -> arrow::Status {
          return ParallelFor(10, [&](int64_t, int64_t) -> arrow::Status {
            if (begin == 0) throw std::bad_alloc();
            return arrow::Status::OK();
          });
        },
        1, max_threads);
    ASSERT_FALSE(status.ok()) << max_threads;
    EXPECT_EQ(KindOf(status), ErrorKind::kResourceExhausted) << status.ToString();
    EXPECT_NE(status.message().find("testing the pool"), std::string::npos) << status.ToString();
  }
}

TEST(ThreadPool, MaxThreadsOneRunsOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  ASSERT_OK(ParallelFor(
      100000,
      [&](int64_t begin, int64_t end) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 100000);
        ++calls;
        return arrow::Status::OK();
      },
      1, 1));
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, UsesSeveralThreadsWhenThePoolHasThem) {
  if (NumThreads() < 2) GTEST_SKIP() << "a pool of one thread";
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  ASSERT_OK(ParallelFor(
      64,
      [&](int64_t, int64_t) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          threads.insert(std::this_thread::get_id());
        }
        // Wait a while for another thread to join, so the test does not depend on timing luck.
        if (++inside > 1) overlapped = true;
        for (int spin = 0; spin < 2000 && !overlapped; ++spin) {
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        --inside;
        return arrow::Status::OK();
      },
      1, 2));
  EXPECT_TRUE(overlapped.load());
  EXPECT_GE(threads.size(), 2u);
}

TEST(ThreadPool, NestedLoopsRunInlineWithoutDeadlock) {
  std::atomic<int64_t> total{0};
  ASSERT_OK(ParallelFor(64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const std::thread::id outer = std::this_thread::get_id();
      int inner_calls = 0;
      ARROW_RETURN_NOT_OK(ParallelFor(1000, [&](int64_t inner_begin, int64_t inner_end) {
        EXPECT_EQ(std::this_thread::get_id(), outer);
        ++inner_calls;
        total += inner_end - inner_begin;
        return arrow::Status::OK();
      }));
      EXPECT_EQ(inner_calls, 1);
    }
    return arrow::Status::OK();
  }));
  EXPECT_EQ(total.load(), 64 * 1000);
}

TEST(ThreadPool, ConcurrentCallersFromOutsideThreads) {
  constexpr int kRounds = 200;
  auto run = [](int64_t count, std::atomic<int64_t>* sum, std::atomic<bool>* failed) {
    for (int round = 0; round < kRounds; ++round) {
      std::vector<int> visits(static_cast<size_t>(count), 0);
      const arrow::Status status = ParallelFor(count, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) ++visits[i];
        return arrow::Status::OK();
      });
      if (!status.ok()) *failed = true;
      for (int value : visits) {
        if (value != 1) *failed = true;
      }
      *sum += count;
    }
  };
  std::atomic<int64_t> first_sum{0}, second_sum{0};
  std::atomic<bool> failed{false};
  std::thread first(run, 1000, &first_sum, &failed);
  std::thread second(run, 777, &second_sum, &failed);
  first.join();
  second.join();
  EXPECT_FALSE(failed.load());
  EXPECT_EQ(first_sum.load(), 1000 * kRounds);
  EXPECT_EQ(second_sum.load(), 777 * kRounds);
}

}  // namespace
}  // namespace tessera::util::thread_pool_test
