// The backoff between retries of object-storage requests (io/retry_backoff.h): delays grow,
// stay within their bounds, and the retries it allows fit the deadline.
#include "tessera/io/retry_backoff.h"

#include <gtest/gtest.h>

namespace tessera::io::retry_backoff_test {
namespace {

TEST(RetryBackoff, RetriesFitTheDeadlineAndGrow) {
  const RetryBackoff backoff(std::chrono::milliseconds(5000));
  const int retries = backoff.MaxRetries();
  EXPECT_GE(retries, 4);
  int64_t total = 0;
  for (int retry = 0; retry < retries; ++retry) {
    const auto delay = backoff.Delay(retry).count();
    EXPECT_GE(delay, std::min<int64_t>(2000, int64_t{50} << retry) / 2);
    EXPECT_LE(delay, 2000);
    total += delay;
  }
  EXPECT_LE(total, 5000);
  EXPECT_EQ(RetryBackoff(std::chrono::milliseconds(10)).MaxRetries(), 0);
}

}  // namespace
}  // namespace tessera::io::retry_backoff_test
