// The server's mutation path (docs/server.md, "Mutations"): name entries, admission, one
// isolated worker per mutation, classification of what it reported into one of four outcome
// classes, and the refresh of what the server reads. Everything here runs on the network
// thread; only the refresh runs on the statement pool.
//
// A mutation statement goes: static validation and the authoritative preflight (the
// connection, through sql::MutationHooks) inside its name entry (Enter) -> Run(): bounded
// admission (max running in all and per database, one finite queue; full: Busy) -> a worker
// (worker_process.h) with the statement's remaining time budget -> classification ->
// refresh -> the outcome. The name entry and the worker's slot are released only once the
// worker's whole domain is confirmed gone; the entry outlives the client's connection.
//
// Classification (never from message text, never retried):
//   complete verified result ok=1                               -> success
//   result ok=0 before the mutating call started               -> that error (nothing done)
//   result ok=0 CommitConflict after it started                -> confirmed failure (7011)
//   worker gone before the call started, no result             -> confirmed failure (7011)
//   anything else after it started: other errors, a signal, OOM, the budget, a malformed
//   or missing result                                          -> indeterminate (7006)
//   success, then the refresh fails or the budget runs out     -> committed, refresh
//                                                                 incomplete (7012)
#pragma once

#include <asio.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "tessera/server/isolation.h"
#include "tessera/server/server.h"
#include "tessera/server/worker_process.h"
#include "tessera/sql/mutation.h"
#include "tessera/sql/session.h"

namespace tessera::server {

enum class OutcomeClass {
  kSuccess,
  kNotDispatched,
  kConfirmedFailure,
  kIndeterminate,
  kCommittedRefreshIncomplete
};
std::string_view OutcomeClassName(OutcomeClass outcome);

struct MutationOutcome {
  OutcomeClass outcome = OutcomeClass::kSuccess;
  sql::StatementResult result;  // success
  arrow::Status error;          // every other class
};

struct MutationRequest {
  std::string entry;             // the name entry the caller holds (Enter)
  std::string database;          // the table's database, for the per-database limit
  std::string current_database;  // the session's, for the statement's other names
  std::string text;              // the statement
  std::string index_name;        // CREATE / DROP INDEX: for the success message
  sql::MutationAdmission admission;
  std::string fault;  // a test fault hook's name (only with test hooks on)
  std::chrono::steady_clock::time_point deadline;
  uint32_t connection = 0;
};

// The counters SHOW STATUS reports.
struct MutationCounters {
  uint64_t entries = 0;  // name entries held
  uint64_t running = 0;  // workers whose domain is not yet confirmed gone
  uint64_t queued = 0;
  uint64_t outcomes[5] = {0, 0, 0, 0, 0};  // by OutcomeClass
};

class Mutations {
 public:
  Mutations(asio::io_context& network, asio::thread_pool& statements, const ServerOptions& options);
  ~Mutations();

  // Sets the boundary up (isolation.h); afterwards Available() says whether mutations run.
  void ProbeIsolation();
  // OK, or 7013 saying why no worker can start.
  arrow::Status Available() const;
  std::string DescribeIsolation() const;

  // The name entry `entry`; Busy (7005) while another statement holds it, a data write's
  // entry of the same table, or (for "<dir>/", DROP DATABASE's) anything below it.
  arrow::Status Enter(const std::string& entry);
  void Leave(const std::string& entry);

  // Runs the admitted mutation; `done` gets its outcome. The caller's entry is released here.
  void Run(MutationRequest request, std::function<void(MutationOutcome)> done);

  MutationCounters counters() const;

  // What connection `connection`'s mutation is doing ("queued for a worker slot", "worker 123:
  // building 45% (90 / 200 rows)", ...), for SHOW PROCESSLIST; empty when it runs none.
  std::string PhaseOf(uint32_t connection) const;
  // The percent done of the running build's current phase, when its size is known.
  std::optional<double> ProgressOf(uint32_t connection) const;
  // KILL: termination of the connection's mutation. A queued one leaves the queue; a worker
  // whose mutating call began is asked to cancel (its operation stops at its next check
  // before the commit and reports Cancelled: a confirmed failure) and killed if it has not
  // ended kCancelGrace later or at a second KILL (classified as usual); one that has not
  // begun it is killed at once (a confirmed failure: nothing started). False: none runs.
  bool Cancel(uint32_t connection);
  static constexpr std::chrono::seconds kCancelGrace{5};

 private:
  struct Pending;
  void Admit(std::shared_ptr<Pending> pending);
  void Launch(std::shared_ptr<Pending> pending);
  void Classify(std::shared_ptr<Pending> pending, WorkerReport report);
  void Refresh(std::shared_ptr<Pending> pending, MutationOutcome outcome);
  void Finish(std::shared_ptr<Pending> pending, MutationOutcome outcome);
  void StartQueued();

  asio::io_context& network_;
  asio::thread_pool& statements_;
  const ServerOptions& options_;
  std::unique_ptr<Isolation> isolation_;
  arrow::Status unavailable_;
  std::string executable_;
  std::set<std::string> entries_;
  std::deque<std::shared_ptr<Pending>> queue_;
  uint64_t running_ = 0;
  std::map<std::string, uint64_t> running_by_database_;
  uint64_t outcomes_[5] = {0, 0, 0, 0, 0};
  std::map<uint32_t, std::weak_ptr<Pending>> by_connection_;
};

}  // namespace tessera::server
