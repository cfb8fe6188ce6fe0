#include "tessera/io/parallel_reads.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tessera/util/environment.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/operation_control.h"
#include "tessera/util/thread_pool.h"

namespace tessera::io {

int ReadParallelism() {
  static const int parallelism = [] {
    const int64_t asked = util::IntegerFromEnvironment("TESSERA_S3_READ_PARALLELISM", 8, 1);
    return static_cast<int>(std::min<int64_t>(asked, 256));
  }();
  return parallelism;
}

arrow::Status ParallelReads(int64_t count, const std::function<arrow::Status(int64_t)>& read) {
  if (count <= 0) return arrow::Status::OK();
  std::vector<arrow::Status> errors(static_cast<size_t>(count));
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  util::OperationControl* control = util::CurrentControl();
  const std::string operation(util::CurrentOperation());
  auto work = [&]() {
    const util::OperationName name(operation);
    const util::ControlScope scope(control);
    // After a failure or a cancellation no new read starts: the first error is the answer.
    for (int64_t i = next++; i < count && !failed.load(); i = next++) {
      arrow::Status status = util::CheckCancelled();
      if (status.ok()) status = util::GuardExceptions(operation, [&] { return read(i); });
      if (!status.ok()) {
        errors[static_cast<size_t>(i)] = std::move(status);
        failed = true;
      }
    }
  };
  // A helper frees OpenSSL's state of its thread (signed requests allocate some) before it ends.
  auto run_helper = [&]() {
    work();
    OPENSSL_thread_stop();
  };
  std::vector<std::thread> helpers;
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& thread : threads) {
        if (thread.joinable()) thread.join();
      }
    }
  } join_all{helpers};
  const int64_t wanted = std::min<int64_t>(count, ReadParallelism()) - 1;
  try {
    helpers.reserve(static_cast<size_t>(wanted));
    for (int64_t t = 0; t < wanted; ++t) helpers.emplace_back(run_helper);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started, and this one, do the reads.
  } catch (const std::bad_alloc&) {
  }
  work();
  for (auto& helper : helpers) helper.join();
  for (auto& error : errors) {
    if (!error.ok()) return error;
  }
  return arrow::Status::OK();
}

arrow::Status ReadEach(int64_t count, bool remote,
                       const std::function<arrow::Status(int64_t)>& read) {
  if (remote) return ParallelReads(count, read);
  return util::ParallelFor(count, [&](int64_t begin, int64_t end) -> arrow::Status {
    for (int64_t i = begin; i < end; ++i) ARROW_RETURN_NOT_OK(read(i));
    return arrow::Status::OK();
  });
}

}  // namespace tessera::io
