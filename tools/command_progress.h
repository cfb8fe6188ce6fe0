// CommandProgress: what a long CLI command (create, append, overwrite, compact, index create /
// optimize / train / build-segment / merge-segments) shows and how it stops (docs/cli.md,
// "Progress and Ctrl-C").
//
// While one is alive:
// - each progress report of the operation redraws one line on standard error, when standard
//   error is a terminal ("building [=========>          ] 45% 450,000 / 1,000,000 rows 3.2 s");
//   otherwise nothing is drawn, so logs and pipes see only the command's result. The line is
//   erased when the command ends, before its result is printed.
// - the first Ctrl-C (SIGINT) asks the operation to cancel (util::OperationControl): it stops
//   at its next check, removes what it wrote and fails with Cancelled, committing nothing;
//   the command then exits with 130, the shell's code for an interrupted program. A second
//   Ctrl-C ends the process at once (the default action, restored by the first), which is as
//   safe as a crash: the commit protocol never publishes a half-written version.
// One CommandProgress at a time per process.
#pragma once

#include <signal.h>

#include <chrono>

#include "tessera/util/operation_control.h"

namespace tessera::cli {

class CommandProgress {
 public:
  CommandProgress();
  ~CommandProgress();
  CommandProgress(const CommandProgress&) = delete;
  CommandProgress& operator=(const CommandProgress&) = delete;

  util::OperationControl* control() { return &control_; }

 private:
  void Draw(const util::ProgressReport& report);

  const bool terminal_;
  const std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
  struct sigaction previous_ {};
  util::OperationControl control_;
};

// operation(control) with a CommandProgress alive around it, so that the progress line is gone
// before the command prints its result.
template <typename Operation>
auto WithProgress(Operation&& operation) {
  CommandProgress progress;
  return operation(progress.control());
}

}  // namespace tessera::cli
