// RetryBackoff: the delays between attempts of a request to object storage — doubling from
// 50 ms up to 2 s, half of each delay random so that racing writers spread out — and how many
// retries fit in a deadline. Shared by the conditional put (s3_store.h) and Arrow's own requests
// (the retry strategy of arrow_s3_module.h), so both give up at the same deadline.
//
// Header-only: the Arrow S3 module, a separate shared library, uses it too.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>

namespace tessera::io {

class RetryBackoff {
 public:
  explicit RetryBackoff(std::chrono::milliseconds deadline) : deadline_(deadline) {}

  // The delay before retry number `retry` (0 for the first retry).
  std::chrono::milliseconds Delay(int retry) const {
    const int64_t full = LongestDelay(retry);
    thread_local std::minstd_rand random(std::random_device{}());
    const int64_t half = full / 2;
    return std::chrono::milliseconds(half + static_cast<int64_t>(random() % (half + 1)));
  }

  // How many retries fit in the deadline, counted with the longest delays, so that the retries
  // always end within it.
  int MaxRetries() const {
    int64_t spent = 0;
    int retries = 0;
    while (spent + LongestDelay(retries) <= deadline_.count()) spent += LongestDelay(retries++);
    return retries;
  }

  std::chrono::milliseconds deadline() const { return deadline_; }

 private:
  static int64_t LongestDelay(int retry) {
    constexpr int64_t kFirst = 50;
    constexpr int64_t kMost = 2000;
    return std::min<int64_t>(kMost, kFirst << std::min(retry, 10));
  }

  std::chrono::milliseconds deadline_;
};

}  // namespace tessera::io
