// ParallelReads: reads of object storage issued concurrently, so that their round trips overlap
// (docs/objstore.md, "Reads").
//
// A read of object storage waits tens of milliseconds for the store and uses almost no CPU, so
// the engine's thread pool (one thread per core, util/thread_pool.h) is the wrong bound for it:
// two cores would keep two requests in flight. ParallelReads runs reads on threads of their
// own, up to TESSERA_S3_READ_PARALLELISM at once (default 8, read once per process), the
// calling thread among them. Local storage needs none of this: its callers keep their CPU loops.
//
// Threads are started per call and joined before it returns: no pool outlives a call, and a
// read that itself calls ParallelReads simply starts threads of its own (no deadlock on a
// shared pool); when no thread can be started the calling thread does every read. The caller's
// current operation and OperationControl are each thread's while it runs reads; a read that
// throws returns the exception as its error.
#pragma once

#include <arrow/status.h>

#include <cstdint>
#include <functional>

namespace tessera::io {

// TESSERA_S3_READ_PARALLELISM when a positive integer (capped at 256), else 8.
int ReadParallelism();

// Runs read(i) for every i in [0, count): as ParallelReads when `remote` (the reads wait on
// object storage), else on the engine's threads (util::ParallelFor). The reads of a take or a
// refinement, whose fragments may lie either side.
arrow::Status ReadEach(int64_t count, bool remote,
                       const std::function<arrow::Status(int64_t)>& read);

// Runs read(i) for i in [0, count), at most ReadParallelism() at once, until one fails or the
// current operation is cancelled: no read starts after that, and the first error by index is
// returned. count <= 1 runs on the calling thread.
arrow::Status ParallelReads(int64_t count, const std::function<arrow::Status(int64_t)>& read);

}  // namespace tessera::io
