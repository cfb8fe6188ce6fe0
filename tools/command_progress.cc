#include "command_progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>

namespace tessera::cli {

namespace {

// The control SIGINT cancels; set while a CommandProgress lives.
std::atomic<util::OperationControl*> interrupt_target{nullptr};
static_assert(std::atomic<util::OperationControl*>::is_always_lock_free);

extern "C" void RequestCancelOnInterrupt(int) {
  const int saved_errno = errno;  // the interrupted code may be about to read it
  if (util::OperationControl* control = interrupt_target.load()) control->RequestCancel();
  static constexpr char kMessage[] =
      "\ncancelling: the command stops at its next check and commits nothing "
      "(Ctrl-C again to end it at once)\n";
  // write(2) is async-signal-safe; its result cannot be acted on here.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  errno = saved_errno;
}

// "1,234,567".
std::string WithSeparators(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return digits;
}

constexpr int kBarWidth = 24;

}  // namespace

CommandProgress::CommandProgress()
    : terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      control_([this](const util::ProgressReport& report) { Draw(report); }) {
  interrupt_target.store(&control_);
  struct sigaction action {};
  action.sa_handler = RequestCancelOnInterrupt;
  sigemptyset(&action.sa_mask);
  // The first Ctrl-C restores the default action: a second one ends the process.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  ::sigaction(SIGINT, &action, &previous_);
}

CommandProgress::~CommandProgress() {
  ::sigaction(SIGINT, &previous_, nullptr);
  interrupt_target.store(nullptr);
  if (drawn_) std::cerr << "\r\x1b[K" << std::flush;  // erase the progress line
}

void CommandProgress::Draw(const util::ProgressReport& report) {
  if (!terminal_) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = std::string(report.phase);
  if (report.total > 0) {
    const double fraction =
        std::min(1.0, static_cast<double>(report.done) / static_cast<double>(report.total));
    const int filled = static_cast<int>(fraction * kBarWidth);
    line += " [" + std::string(static_cast<size_t>(filled), '=') + (filled < kBarWidth ? ">" : "") +
            std::string(static_cast<size_t>(std::max(0, kBarWidth - filled - 1)), ' ') + "] ";
    char percent[8];
    std::snprintf(percent, sizeof percent, "%3d%%", static_cast<int>(fraction * 100));
    line += percent;
    line += " " + WithSeparators(report.done) + " / " + WithSeparators(report.total);
  } else {
    line += " " + WithSeparators(report.done);
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, " %.1f s", seconds);
  line += " " + std::string(report.unit) + elapsed;
  std::cerr << "\r\x1b[K" << line << std::flush;
  drawn_ = true;
}

}  // namespace tessera::cli
