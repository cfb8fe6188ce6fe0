#include "tessera/index/text/analyzer_pool.h"

#include <utility>

namespace tessera::index::text {

arrow::Result<AnalyzerPool::Lease> AnalyzerPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      auto analyzer = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(analyzer));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto analyzer, Analyzer::Make(options_));
  return Lease(this, std::move(analyzer));
}

void AnalyzerPool::GiveBack(std::unique_ptr<Analyzer> analyzer) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(analyzer));
}

}  // namespace tessera::index::text
