#include "tessera/util/operation_control.h"

#include "tessera/status.h"

namespace tessera::util {

namespace {

thread_local OperationControl* current_control = nullptr;

}  // namespace

OperationControl::OperationControl(ProgressCallback on_progress,
                                   std::chrono::milliseconds report_interval)
    : on_progress_(std::move(on_progress)), report_interval_(report_interval) {}

void OperationControl::BeginPhase(std::string_view phase, uint64_t total, std::string_view unit) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_ = std::string(phase);
    unit_ = std::string(unit);
    done_.store(0, std::memory_order_relaxed);
    total_.store(total, std::memory_order_relaxed);
  }
  Report(/*force=*/true);
}

arrow::Status OperationControl::Advance(uint64_t units) {
  const uint64_t done = done_.fetch_add(units, std::memory_order_relaxed) + units;
  const uint64_t total = total_.load(std::memory_order_relaxed);
  // The report of the phase's completion is forced, once: when the count reaches the total.
  Report(/*force=*/total != 0 && done >= total && done - units < total);
  return CheckCancelled();
}

arrow::Status OperationControl::CheckCancelled() const {
  if (!cancel_requested()) return arrow::Status::OK();
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t total = total_.load(std::memory_order_relaxed);
  std::string where = Concat(done_.load(std::memory_order_relaxed));
  if (total != 0) where += Concat(" of ", total);
  return Error(ErrorKind::kCancelled, "cancelled while ", phase_, " (", where, " ", unit_,
               " done); nothing was committed");
}

void OperationControl::Report(bool force) {
  if (!on_progress_) return;
  // A report due while another thread reports is skipped, not queued: the next one carries the
  // newer count. A forced one (phase start or end) waits.
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (force) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_report_ < report_interval_) return;
  last_report_ = now;
  ProgressReport report;
  report.phase = phase_;
  report.unit = unit_;
  report.total = total_.load(std::memory_order_relaxed);
  report.done = done_.load(std::memory_order_relaxed);
  on_progress_(report);
}

ControlScope::ControlScope(OperationControl* control) : previous_(current_control) {
  if (control != nullptr) current_control = control;
}

ControlScope::~ControlScope() { current_control = previous_; }

OperationControl* CurrentControl() { return current_control; }

void BeginPhase(std::string_view phase, uint64_t total, std::string_view unit) {
  if (current_control != nullptr) current_control->BeginPhase(phase, total, unit);
}

arrow::Status AdvanceProgress(uint64_t units) {
  return current_control == nullptr ? arrow::Status::OK() : current_control->Advance(units);
}

arrow::Status CheckCancelled() {
  return current_control == nullptr ? arrow::Status::OK() : current_control->CheckCancelled();
}

}  // namespace tessera::util
