#include "tessera/io/parallel_reads.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "tessera/util/environment.h"
#include "tessera/util/exception_guard.h"
#include "tessera/util/operation_control.h"

namespace tessera::io {

int ReadParallelism() {
  static const int parallelism = [] {
    const int64_t asked = util::IntegerFromEnvironment("TESSERA_S3_READ_PARALLELISM", 8, 1);
    return asked <= 256 ? static_cast<int>(asked) : 8;
  }();
  return parallelism;
}

arrow::Status ParallelReads(int64_t count, const std::function<arrow::Status(int64_t)>& read) {
  if (count <= 0) return arrow::Status::OK();
  std::vector<arrow::Status> errors(static_cast<size_t>(count));
  std::atomic<int64_t> next{0};
  util::OperationControl* control = util::CurrentControl();
  auto work = [&]() {
    const util::ControlScope scope(control);
    for (int64_t i = next++; i < count; i = next++) {
      errors[static_cast<size_t>(i)] =
          util::GuardExceptions(util::CurrentOperation(), [&] { return read(i); });
    }
  };
  const int64_t threads = std::min<int64_t>(count, ReadParallelism());
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<size_t>(threads - 1));
  for (int64_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  for (auto& error : errors) {
    if (!error.ok()) return error;
  }
  return arrow::Status::OK();
}

}  // namespace tessera::io
