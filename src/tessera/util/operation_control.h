// Progress reports and cancellation of the library's long operations: index create, optimize,
// build-segment and merge, compaction, and dataset create / append / overwrite.
//
// A caller that wants either hands the operation an OperationControl through its options
// (IndexOperationOptions::control, WriteOptions::control) and keeps it alive until the call
// returns. The operation makes it the calling thread's current control (ControlScope), and
// util::ParallelFor hands the current control to the workers of its loops, as it does the
// current OperationName; code deep inside a build then reports through the free functions
// below without a parameter on every signature. Without a current control they do nothing.
//
// Invariants:
// - A cancellation request is honoured only before the operation's commit: code checks
//   CheckCancelled() at its last point before committing, with its new files still its own, and
//   removes them on the way out. Once a commit has begun, a request is ignored and the
//   operation finishes. So Cancelled always means "this operation committed nothing" (an
//   optimize over several indexes keeps the indexes it finished before: each is its own
//   commit).
// - The callback is never called concurrently with itself; it runs on a thread of the
//   operation, at every phase start and at most once per report interval in between, and must
//   not call back into the operation. `done` grows monotonically within a phase.
// - RequestCancel() only stores an atomic flag: a signal handler may call it.
#pragma once

#include <arrow/status.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace tessera::util {

struct ProgressReport {
  std::string_view phase;  // "writing", "rewriting", "training", "building", "merging"
  uint64_t done = 0;
  uint64_t total = 0;     // 0 when not known in advance (a stream of input batches)
  std::string_view unit;  // "rows", "iterations", "segments"
};

class OperationControl {
 public:
  using ProgressCallback = std::function<void(const ProgressReport&)>;
  static constexpr std::chrono::milliseconds kDefaultReportInterval{100};

  OperationControl() = default;
  explicit OperationControl(ProgressCallback on_progress,
                            std::chrono::milliseconds report_interval = kDefaultReportInterval);
  OperationControl(const OperationControl&) = delete;
  OperationControl& operator=(const OperationControl&) = delete;

  // Async-signal-safe.
  void RequestCancel() noexcept { cancel_requested_.store(true, std::memory_order_relaxed); }
  bool cancel_requested() const noexcept {
    return cancel_requested_.load(std::memory_order_relaxed);
  }

  // --- used by the operations ---
  // Starts a phase: done = 0 of `total` `unit`; reports it.
  void BeginPhase(std::string_view phase, uint64_t total, std::string_view unit);
  // done += units; reports when the interval passed or the phase completed. Cancelled when a
  // cancellation was requested.
  arrow::Status Advance(uint64_t units);
  // Cancelled ("cancelled while <phase> (<done> of <total> <unit>); nothing was committed")
  // when a cancellation was requested.
  arrow::Status CheckCancelled() const;

 private:
  void Report(bool force);

  std::atomic<bool> cancel_requested_{false};
  ProgressCallback on_progress_;
  std::chrono::milliseconds report_interval_ = kDefaultReportInterval;
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> total_{0};
  mutable std::mutex mutex_;  // guards the fields below and serializes the callback
  std::string phase_ = "starting";
  std::string unit_ = "rows";
  std::chrono::steady_clock::time_point last_report_{};
};

// Makes `control` the calling thread's current control while alive; null keeps the current
// one (an operation called by another with no control of its own reports to the outer one).
// Nested scopes restore the outer control when they end.
class ControlScope {
 public:
  explicit ControlScope(OperationControl* control);
  ~ControlScope();
  ControlScope(const ControlScope&) = delete;
  ControlScope& operator=(const ControlScope&) = delete;

 private:
  OperationControl* previous_;
};

// The calling thread's current control, null when none.
OperationControl* CurrentControl();

// The current control's BeginPhase / Advance / CheckCancelled; nothing (OK) without one.
void BeginPhase(std::string_view phase, uint64_t total, std::string_view unit);
arrow::Status AdvanceProgress(uint64_t units);
arrow::Status CheckCancelled();

}  // namespace tessera::util
