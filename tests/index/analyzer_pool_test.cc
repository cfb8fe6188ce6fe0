// AnalyzerPool (index/text/analyzer_pool.h): a lease gives an analyzer of the pool's options; a
// given-back analyzer is lent again instead of made anew; leases held at once never share one;
// concurrent searches each analyze with their own.
#include "tessera/index/text/analyzer_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "support/analyzed_tokens.h"
#include "support/status_assertions.h"

namespace tessera::index::text::analyzer_pool_test {
namespace {

using testing::TermsOf;

TEST(AnalyzerPool, LendsAnalyzersOfItsOptions) {
  AnalyzerOptions options;
  options.stem = false;
  AnalyzerPool pool(options);
  ASSERT_OK_AND_ASSIGN(auto lease, pool.Acquire());
  EXPECT_EQ(lease->options(), options);
  EXPECT_EQ(TermsOf(*lease, "The Running dogs"), (std::vector<std::string>{"running", "dogs"}));
}

TEST(AnalyzerPool, AGivenBackAnalyzerIsLentAgain) {
  AnalyzerPool pool(AnalyzerOptions{});
  const Analyzer* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(auto lease, pool.Acquire());
    first = &*lease;
  }
  ASSERT_OK_AND_ASSIGN(auto again, pool.Acquire());
  EXPECT_EQ(&*again, first);
}

TEST(AnalyzerPool, LeasesHeldAtOnceHaveTheirOwnAnalyzers) {
  AnalyzerPool pool(AnalyzerOptions{});
  ASSERT_OK_AND_ASSIGN(auto one, pool.Acquire());
  ASSERT_OK_AND_ASSIGN(auto two, pool.Acquire());
  EXPECT_NE(&*one, &*two);
}

TEST(AnalyzerPool, ConcurrentLeasesAnalyzeIndependently) {
  AnalyzerPool pool(AnalyzerOptions{});
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        auto lease = pool.Acquire();
        if (!lease.ok() || TermsOf(**lease, "connected connections connecting") !=
                               std::vector<std::string>{"connect", "connect", "connect"}) {
          ++wrong[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace tessera::index::text::analyzer_pool_test
