// One mutation worker process and its supervision (docs/server.md, "Isolation"): the server's
// own binary run as `tessera __mutation-worker`, started in a new PID namespace (where the
// machine allows) and moved into its Domain before it may exec, fed its request on standard
// input, read on descriptor 3, waited for through a pidfd.
//
// Invariants:
//  - The worker's argv is fixed and its environment holds only PATH and, when the server's
//    test hooks are on, TESSERA_TEST_FAULT_HOOKS: no secret reaches it.
//  - Finished() is called once, and only after the worker was reaped and its Domain was seen
//    empty (every process it started is gone); until then the run holds its slot. Should the
//    domain never empty, Finished() is never called and the slot stays held (logged).
//  - The worker dies with the server (PR_SET_PDEATHSIG), so no worker outlives a crashed one.
#pragma once

#include <asio.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "tessera/server/isolation.h"
#include "tessera/server/worker_envelope.h"

namespace tessera::server {

// clone3: a child process (0 returned in it), with a pidfd in *pidfd, in a new PID namespace
// when asked. -1 with errno on failure. The child may only use async-signal-safe calls.
long CloneProcess(bool new_pid_namespace, int* pidfd);

// What the supervisor saw of one run.
struct WorkerReport {
  std::vector<EnvelopeMessage> messages;  // complete frames, in order
  bool protocol_failure = false;          // a malformed or truncated frame
  bool exited = false;                    // exit() rather than a signal
  int exit_code = 0;
  int signal = 0;
  bool killed = false;  // the supervisor killed it (deadline or cancellation)
  std::string kill_reason;
  uint64_t oom_kills = 0;
};

class WorkerProcess : public std::enable_shared_from_this<WorkerProcess> {
 public:
  struct Launch {
    std::string executable;  // the server's binary
    EnvelopeMessage request;
    IsolationLimits limits;
    std::chrono::steady_clock::time_point deadline;
    bool test_fault_hooks = false;
    // Called for each complete message as it arrives ("started", "progress"). Progress
    // messages are not kept in the report: a long build sends them for hours.
    std::function<void(const EnvelopeMessage&)> on_message;
  };
  using Finished = std::function<void(WorkerReport)>;

  // Creates the domain and starts the worker; `finished` runs on `executor` later. An error
  // here means no worker runs (nothing was dispatched).
  static arrow::Result<std::shared_ptr<WorkerProcess>> Start(asio::io_context& network,
                                                             const Isolation& isolation,
                                                             Launch launch, Finished finished);
  ~WorkerProcess();

  // Best-effort termination of the whole domain; the run still ends through Finished.
  void Kill(const std::string& reason);
  // Asks the worker to cancel its operation (SIGTERM, which the worker turns into a
  // cancellation request: util/operation_control.h). It still ends through Finished, with a
  // Cancelled result when it stopped before its commit; Kill is what ends it for sure.
  void Interrupt();
  int pid() const { return pid_; }

 private:
  WorkerProcess(asio::io_context& network, std::unique_ptr<Domain> domain, Finished finished);
  void ReadResults();
  void WaitForExit();
  void AwaitEmptyDomain(int attempt);
  // Reports the run once the domain is empty and the results reached end of file.
  void Complete();

  std::unique_ptr<Domain> domain_;
  Finished finished_;
  int pid_ = -1;
  asio::posix::stream_descriptor pidfd_;
  asio::posix::stream_descriptor results_;
  asio::posix::stream_descriptor request_;
  asio::steady_timer deadline_;
  asio::steady_timer poll_;
  std::string request_bytes_;
  std::array<char, 4096> buffer_{};
  std::function<void(const EnvelopeMessage&)> on_message_;
  EnvelopeReader reader_;
  std::vector<EnvelopeMessage> kept_;  // every message but progress, for the report
  size_t kept_bytes_ = 0;
  WorkerReport report_;
  bool results_closed_ = false;
  bool domain_empty_ = false;
  bool reaped_ = false;
};

}  // namespace tessera::server
