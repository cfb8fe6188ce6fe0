// Parallel loops over a process-wide pool of worker threads.
//
// The pool has NumThreads() - 1 workers, started at the first ParallelFor that can use them; the
// calling thread takes part in every loop, so a pool of one thread runs everything inline.
// NumThreads() is TESSERA_NUM_THREADS when set to a positive integer (read once per process; any
// other value is ignored), else std::thread::hardware_concurrency() (at least 1).
//
// A ParallelFor called from inside a loop body runs serially on the calling thread (no nested
// parallelism, no deadlock). Several threads may call ParallelFor at once; their loops share the
// workers. In a child process made by fork(), ParallelFor runs serially (the workers stayed in
// the parent). A body that throws does not take the process down: the exception becomes the
// error of its chunk (util::GuardExceptions: std::bad_alloc is ResourceExhausted naming the
// caller's current operation, see exception_guard.h; anything else is Internal). The caller's
// current OperationControl (operation_control.h) is the workers' while they run its chunks.
//
// Chunk boundaries depend on the thread count: a body whose result must not depend on it makes
// each index's result independent of the chunk it falls in (or splits the work into fixed-size
// pieces itself and merges them in a fixed order).
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace tessera::util {

int NumThreads();

// The thread count a TESSERA_NUM_THREADS value asks for: a positive decimal integer (at most
// 4096, no sign, no spaces), else 0 (ignored). Null: 0.
int ParseNumThreads(const char* text);

// Runs body(begin, end) over disjoint chunks covering [0, count), at most `max_threads` at once
// (0: NumThreads(); more than NumThreads() counts as NumThreads()). Chunks are at least
// `min_chunk` long. With one thread (max_threads 1, a pool of one, or a nested call) the body
// runs once, over [0, count), on the calling thread. count <= 0 calls nothing. Returns the first
// error a body returned or threw (by chunk order); every chunk runs even after an error.
arrow::Status ParallelFor(int64_t count, const std::function<arrow::Status(int64_t, int64_t)>& body,
                          int64_t min_chunk = 1, int max_threads = 0);

// Computes each(i) for every i in [0, count) in parallel (as ParallelFor), keeping each result,
// error or value, apart: a caller that consumes them in order sees the errors where a serial
// loop would. Fails only when the loop itself cannot run (an exception escaping `each`).
template <typename T>
arrow::Result<std::vector<arrow::Result<T>>> ParallelResults(
    int64_t count, const std::function<arrow::Result<T>(int64_t)>& each) {
  std::vector<arrow::Result<T>> results(static_cast<size_t>(std::max<int64_t>(count, 0)));
  ARROW_RETURN_NOT_OK(ParallelFor(count, [&](int64_t begin, int64_t end) -> arrow::Status {
    for (int64_t i = begin; i < end; ++i) results[static_cast<size_t>(i)] = each(i);
    return arrow::Status::OK();
  }));
  return results;
}

}  // namespace tessera::util
