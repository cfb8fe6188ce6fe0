// AnalyzerPool: analyzers of one configuration, reused across calls that each analyze a little
// text (a query's words). Making an analyzer loads its stop word list and stemmer, which costs
// more than analyzing a query; an analyzer is not thread-safe (its caches), so a caller borrows
// one for the length of its call and the lease gives it back.
//
// Invariants: a borrowed analyzer is used by one lease at a time; the pool keeps at most
// kMaxIdle idle analyzers (more are destroyed when given back); the pool outlives its leases.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <mutex>
#include <vector>

#include "tessera/index/text/analyzer.h"

namespace tessera::index::text {

class AnalyzerPool {
 public:
  static constexpr size_t kMaxIdle = 64;

  explicit AnalyzerPool(AnalyzerOptions options) : options_(std::move(options)) {}
  AnalyzerPool(const AnalyzerPool&) = delete;
  AnalyzerPool& operator=(const AnalyzerPool&) = delete;

  class Lease {
   public:
    Lease(AnalyzerPool* pool, std::unique_ptr<Analyzer> analyzer)
        : pool_(pool), analyzer_(std::move(analyzer)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (analyzer_ != nullptr) pool_->GiveBack(std::move(analyzer_));
    }
    Analyzer& operator*() const { return *analyzer_; }
    Analyzer* operator->() const { return analyzer_.get(); }

   private:
    AnalyzerPool* pool_;
    std::unique_ptr<Analyzer> analyzer_;
  };

  const AnalyzerOptions& options() const { return options_; }
  // An idle analyzer, or a new one (errors: Analyzer::Make's).
  arrow::Result<Lease> Acquire();

 private:
  void GiveBack(std::unique_ptr<Analyzer> analyzer);

  const AnalyzerOptions options_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Analyzer>> idle_;
};

}  // namespace tessera::index::text
