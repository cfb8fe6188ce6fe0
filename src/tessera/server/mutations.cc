#include "tessera/server/mutations.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "tessera/index/lifecycle.h"
#include "tessera/query/snapshot.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/names.h"

namespace tessera::server {

namespace {

using Clock = std::chrono::steady_clock;

std::string SignalName(int signal) {
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

// How the worker ended, for messages: "it was killed by SIGKILL (out of memory)".
std::string HowItEnded(const WorkerReport& report) {
  std::string how;
  if (report.killed) {
    how = "it was killed: " + report.kill_reason;
  } else if (report.oom_kills > 0) {
    how = "it ran out of its memory limit and the kernel killed it";
  } else if (report.exited) {
    how = "it exited with status " + std::to_string(report.exit_code);
  } else {
    how = "it was killed by " + SignalName(report.signal);
  }
  if (report.protocol_failure) how += ", after a malformed or truncated result envelope";
  return how;
}

arrow::Status Indeterminate(const std::string& why) {
  return sql::SqlError(sql::SqlCode::kIndeterminate, ErrorKind::kIndeterminate,
                       "indeterminate: the mutation may or may not have committed (", why,
                       "); inspect the table with SHOW INDEX FROM ... and tessera_index_entries(), "
                       "and do not resubmit blindly");
}

// "building 45% (90 / 200 rows)", "writing (1,000 rows)" of a progress message.
std::string DescribeProgress(const EnvelopeMessage& message) {
  const uint64_t done = message.GetNumber("done").value_or(0);
  const uint64_t total = message.GetNumber("total").value_or(0);
  std::string text = message.Get("phase");
  if (total > 0) {
    text += " " + std::to_string(std::min<uint64_t>(100, done * 100 / total)) + "% (" +
            std::to_string(done) + " / " + std::to_string(total);
  } else {
    text += " (" + std::to_string(done);
  }
  return text + " " + message.Get("unit") + ")";
}

arrow::Status ConfirmedFailure(const std::string& why) {
  return sql::SqlError(sql::SqlCode::kMutationFailed, ErrorKind::kInvalidArgument,
                       "confirmed failure: nothing was committed (", why, ")");
}

}  // namespace

std::string_view OutcomeClassName(OutcomeClass outcome) {
  switch (outcome) {
    case OutcomeClass::kSuccess:
      return "success";
    case OutcomeClass::kNotDispatched:
      return "not_dispatched";
    case OutcomeClass::kConfirmedFailure:
      return "confirmed_failure";
    case OutcomeClass::kIndeterminate:
      return "indeterminate";
    case OutcomeClass::kCommittedRefreshIncomplete:
      return "committed_refresh_incomplete";
  }
  return "?";
}

struct Mutations::Pending {
  MutationRequest request;
  std::function<void(MutationOutcome)> done;
  std::string invocation = NewInvocationId();
  std::shared_ptr<WorkerProcess> worker;
  bool started = false;  // the worker said its mutating call began
  bool finished = false;
  std::string phase = "admission";
  std::optional<EnvelopeMessage> progress;           // the worker's last progress report
  std::unique_ptr<asio::steady_timer> timer;         // the budget while queued or refreshing
  std::unique_ptr<asio::steady_timer> cancel_grace;  // KILL: the worker's time to cancel
};

Mutations::Mutations(asio::io_context& network, asio::thread_pool& statements,
                     const ServerOptions& options)
    : network_(network), statements_(statements), options_(options) {
  std::error_code error;
  executable_ = std::filesystem::read_symlink("/proc/self/exe", error).string();
}

Mutations::~Mutations() = default;

void Mutations::ProbeIsolation() {
  auto isolation = Isolation::Probe(options_.cgroup_mount);
  if (!isolation.ok()) {
    unavailable_ = sql::SqlError(sql::SqlCode::kIsolationUnavailable, ErrorKind::kUnsupported,
                                 "mutations are off on this server: the worker boundary cannot "
                                 "be set up (",
                                 isolation.status().message(), "); reads still work");
    return;
  }
  isolation_ = std::move(*isolation);
  if (executable_.empty()) {
    unavailable_ = sql::SqlError(sql::SqlCode::kIsolationUnavailable, ErrorKind::kUnsupported,
                                 "mutations are off on this server: /proc/self/exe cannot be "
                                 "read, so no worker can be started");
  }
}

arrow::Status Mutations::Available() const { return unavailable_; }

std::string Mutations::DescribeIsolation() const {
  return isolation_ != nullptr && unavailable_.ok() ? isolation_->Describe()
                                                    : unavailable_.message();
}

arrow::Status Mutations::Enter(const std::string& entry) {
  if (entries_.count(entry) == 0) {
    const std::string table = entry.substr(0, entry.find('#'));
    bool busy = false;
    for (const auto& held : entries_) {
      // A data write and an index change of one table exclude each other too; a directory
      // entry ("<dir>/", DROP DATABASE) excludes everything below it.
      const std::string held_table = held.substr(0, held.find('#'));
      busy |= held_table == table && (held.back() == '#' || entry.back() == '#');
      busy |= held.back() == '/' && entry.rfind(held, 0) == 0;
      busy |= entry.back() == '/' && held.rfind(entry, 0) == 0;
    }
    if (!busy) {
      entries_.insert(entry);
      return arrow::Status::OK();
    }
  }
  return sql::SqlError(sql::SqlCode::kBusy, ErrorKind::kBusy,
                       "Busy: another statement is changing the same target (",
                       entry.substr(entry.find_last_of('/') + 1),
                       "); it holds it until its worker is gone. Try again later");
}

void Mutations::Leave(const std::string& entry) { entries_.erase(entry); }

MutationCounters Mutations::counters() const {
  MutationCounters counters;
  counters.entries = entries_.size();
  counters.running = running_;
  counters.queued = queue_.size();
  for (int i = 0; i < 5; ++i) counters.outcomes[i] = outcomes_[i];
  return counters;
}

void Mutations::Run(MutationRequest request, std::function<void(MutationOutcome)> done) {
  auto pending = std::make_shared<Pending>();
  pending->request = std::move(request);
  pending->done = std::move(done);
  by_connection_[pending->request.connection] = pending;
  if (!unavailable_.ok()) {
    Finish(pending, {OutcomeClass::kNotDispatched, {}, unavailable_});
    return;
  }
  Admit(pending);
}

void Mutations::Admit(std::shared_ptr<Pending> pending) {
  const std::string& database = pending->request.database;
  if (running_ < options_.max_mutations &&
      running_by_database_[database] < options_.max_mutations_per_database) {
    Launch(pending);
    return;
  }
  if (queue_.size() >= options_.mutation_queue) {
    Finish(pending, {OutcomeClass::kNotDispatched,
                     {},
                     sql::SqlError(sql::SqlCode::kBusy, ErrorKind::kBusy, "Busy: ", running_,
                                   " mutations are running and ", queue_.size(),
                                   " are waiting, the most this server admits (max_mutations, "
                                   "mutation_queue); try again later")});
    return;
  }
  queue_.push_back(pending);
  pending->phase = "queued for a worker slot";
  pending->timer = std::make_unique<asio::steady_timer>(network_, pending->request.deadline);
  pending->timer->async_wait([this, pending](const std::error_code& error) {
    if (error) return;
    auto it = std::find(queue_.begin(), queue_.end(), pending);
    if (it == queue_.end()) return;
    queue_.erase(it);
    Finish(pending,
           {OutcomeClass::kNotDispatched,
            {},
            sql::SqlError(sql::SqlCode::kBusy, ErrorKind::kBusy,
                          "Busy: the statement's time budget (mutation_budget) ran out while it "
                          "waited for a worker slot; nothing was started")});
  });
}

void Mutations::StartQueued() {
  for (auto it = queue_.begin(); it != queue_.end();) {
    const auto& pending = *it;
    if (running_ >= options_.max_mutations) return;
    if (running_by_database_[pending->request.database] >= options_.max_mutations_per_database) {
      ++it;
      continue;
    }
    auto admitted = pending;
    it = queue_.erase(it);
    admitted->timer->cancel();
    Launch(admitted);
  }
}

void Mutations::Launch(std::shared_ptr<Pending> pending) {
  const MutationRequest& request = pending->request;
  EnvelopeMessage message;
  message.fields = {{"invocation", pending->invocation},
                    {"type", "request"},
                    {"catalog_root", options_.catalog_root},
                    {"catalog_name", options_.catalog_name},
                    {"database", request.current_database},
                    {"statement", request.text},
                    {"table_uri", request.admission.table_uri},
                    {"version", std::to_string(request.admission.version)},
                    {"contract", request.admission.contract}};
  if (options_.test_fault_hooks && !request.fault.empty()) message.fields["fault"] = request.fault;
  WorkerProcess::Launch launch;
  launch.executable = executable_;
  launch.request = std::move(message);
  launch.limits.memory_bytes = options_.worker_memory_bytes;
  launch.limits.max_processes = options_.worker_max_processes;
  launch.deadline = request.deadline;
  launch.test_fault_hooks = options_.test_fault_hooks;
  std::weak_ptr<Pending> weak = pending;
  launch.on_message = [this, weak](const EnvelopeMessage& message) {
    auto pending = weak.lock();
    if (pending == nullptr || message.Get("invocation") != pending->invocation) return;
    if (message.Get("type") == "progress") {
      if (pending->cancel_grace != nullptr) return;  // "cancelling (KILL)" stays shown
      pending->progress = message;
      return;
    }
    if (message.Get("type") != "started") return;
    pending->started = true;
    if (pending->worker != nullptr) {
      pending->phase = "worker " + std::to_string(pending->worker->pid()) + ": mutating call";
    }
    if (options_.test_fault_hooks && pending->request.fault == "sigkill") {
      // A test's stand-in for a worker killed from outside in the middle of its build.
      auto timer = std::make_shared<asio::steady_timer>(network_, std::chrono::milliseconds(200));
      timer->async_wait([timer, pending](const std::error_code&) {
        if (pending->worker != nullptr) {
          kill(pending->worker->pid(), SIGKILL);
        }
      });
    }
  };
  ++running_;
  ++running_by_database_[request.database];
  auto worker = WorkerProcess::Start(
      network_, *isolation_, std::move(launch),
      [this, pending](WorkerReport report) { Classify(pending, std::move(report)); });
  if (!worker.ok()) {
    --running_;
    --running_by_database_[request.database];
    Finish(pending, {OutcomeClass::kConfirmedFailure,
                     {},
                     ConfirmedFailure("no worker could be started: " + worker.status().message())});
    StartQueued();
    return;
  }
  pending->worker = *worker;
  pending->phase = "worker " + std::to_string(pending->worker->pid()) + ": validating";
  std::fprintf(stderr, "tessera serve: connection=%u mutation invocation=%s worker_pid=%d\n",
               request.connection, pending->invocation.c_str(), pending->worker->pid());
}

void Mutations::Classify(std::shared_ptr<Pending> pending, WorkerReport report) {
  // The domain is gone: the slot is free.
  --running_;
  --running_by_database_[pending->request.database];
  pending->worker.reset();
  if (pending->cancel_grace != nullptr) pending->cancel_grace->cancel();
  pending->phase = "classifying and refreshing";
  bool protocol_failure = report.protocol_failure;
  bool started = pending->started;  // as seen live; the report's messages can only add to it
  std::optional<EnvelopeMessage> result;
  for (const auto& message : report.messages) {
    if (message.Get("invocation") != pending->invocation) {
      protocol_failure = true;
      continue;
    }
    const std::string type = message.Get("type");
    if (type == "started") {
      started = true;
    } else if (type == "result") {
      if (result) protocol_failure = true;  // a second result: which one is true?
      result = message;
    }
  }
  MutationOutcome outcome;
  if (result && !protocol_failure && result->Get("ok") == "1") {
    outcome.outcome = OutcomeClass::kSuccess;
    outcome.result.affected_rows = result->GetNumber("affected_rows").value_or(0);
    outcome.result.version = result->GetNumber("version");
    outcome.result.info = result->Get("info");
    Refresh(pending, std::move(outcome));
  } else if (result && !protocol_failure) {
    const auto kind = static_cast<ErrorKind>(
        result->GetNumber("kind").value_or(static_cast<uint64_t>(ErrorKind::kInternal)));
    const auto code = static_cast<sql::SqlCode>(
        result->GetNumber("code").value_or(static_cast<uint64_t>(sql::SqlCode::kUnknownError)));
    const std::string message = result->Get("message");
    if (started && kind == ErrorKind::kCancelled && result->Get("cancelled") == "1") {
      // Asked to cancel by KILL, the worker's operation stopped before its commit (the
      // library's contract for Cancelled, util/operation_control.h).
      outcome.outcome = OutcomeClass::kConfirmedFailure;
      outcome.error = ConfirmedFailure("KILL QUERY: " + message);
      Finish(pending, std::move(outcome));
    } else if (!started) {
      // The statement's own error before it changed anything: as the CLI would report it.
      outcome.outcome = OutcomeClass::kConfirmedFailure;
      outcome.error = sql::MakeSqlError(code, kind, message);
      Finish(pending, std::move(outcome));
    } else if (kind == ErrorKind::kCommitConflict) {
      outcome.outcome = OutcomeClass::kConfirmedFailure;
      outcome.error = ConfirmedFailure("its commit lost to a concurrent one: " + message);
      Refresh(pending, std::move(outcome));
    } else {
      outcome.outcome = OutcomeClass::kIndeterminate;
      outcome.error = Indeterminate("the worker failed after its mutating call began: " +
                                    std::string(ErrorKindName(kind)) + ": " + message);
      Finish(pending, std::move(outcome));
    }
  } else if (!started && !protocol_failure) {
    outcome.outcome = OutcomeClass::kConfirmedFailure;
    outcome.error =
        ConfirmedFailure("the worker ended before its mutating call began: " + HowItEnded(report));
    Finish(pending, std::move(outcome));
  } else {
    outcome.outcome = OutcomeClass::kIndeterminate;
    outcome.error = Indeterminate(
        "the worker's mutating call began and no complete result came "
        "back: " +
        HowItEnded(report));
    Finish(pending, std::move(outcome));
  }
  StartQueued();
}

void Mutations::Refresh(std::shared_ptr<Pending> pending, MutationOutcome outcome) {
  // One bounded refresh: the table's latest version opened (its segments into the cache),
  // checked to hold the committed version, within what is left of the budget.
  struct Shared {
    std::mutex mutex;
    bool answered = false;
  };
  auto shared = std::make_shared<Shared>();
  auto outcome_holder = std::make_shared<MutationOutcome>(std::move(outcome));
  auto answer = [this, pending, shared, outcome_holder](arrow::Status refreshed,
                                                        std::string segments) {
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (shared->answered) return;
      shared->answered = true;
    }
    asio::post(network_, [this, pending, outcome_holder, refreshed, segments]() {
      pending->timer.reset();
      MutationOutcome outcome = std::move(*outcome_holder);
      if (outcome.outcome == OutcomeClass::kSuccess) {
        if (!refreshed.ok()) {
          outcome.outcome = OutcomeClass::kCommittedRefreshIncomplete;
          outcome.error = sql::SqlError(
              sql::SqlCode::kCommittedRefreshIncomplete, ErrorKind::kIndeterminate,
              "committed, refresh incomplete: the mutation committed",
              outcome.result.version ? " version " + std::to_string(*outcome.result.version) : "",
              ", but the server could not refresh the table (", refreshed.message(),
              "); the commit stands, do not run it again");
        } else if (!segments.empty()) {
          outcome.result.info += (outcome.result.info.empty() ? "" : "; ") + segments;
        }
      } else if (!refreshed.ok()) {
        outcome.error = outcome.error.WithMessage(
            outcome.error.message(), "; refreshing the table also failed: ", refreshed.message());
      }
      Finish(pending, std::move(outcome));
    });
  };
  if (Clock::now() >= pending->request.deadline) {
    answer(Error(ErrorKind::kCancelled, "the statement's time budget ran out"), "");
    return;
  }
  pending->timer = std::make_unique<asio::steady_timer>(network_, pending->request.deadline);
  pending->timer->async_wait([answer](const std::error_code& error) {
    if (!error) answer(Error(ErrorKind::kCancelled, "the statement's time budget ran out"), "");
  });
  const std::string uri = pending->request.admission.table_uri;
  const std::string index_name = pending->request.index_name;
  const std::optional<uint64_t> committed = outcome_holder->result.version;
  const bool slow = options_.test_fault_hooks && pending->request.fault == "slow_refresh";
  const auto deadline = pending->request.deadline;
  asio::post(statements_, [answer, uri, index_name, committed, slow, deadline]() {
    if (slow) std::this_thread::sleep_until(deadline + std::chrono::milliseconds(500));
    auto snapshot = query::Snapshot::Open(uri);
    if (!snapshot.ok()) {
      answer(snapshot.status(), "");
      return;
    }
    const dataset::Dataset& dataset = (*snapshot)->dataset();
    if (committed && dataset.version() < *committed) {
      answer(Error(ErrorKind::kStale, "the table shows version ", dataset.version(),
                   ", older than the committed ", *committed),
             "");
      return;
    }
    std::string segments;
    if (!index_name.empty()) {
      size_t count = 0;
      for (const auto& [name, segment] : index::ListSegments(dataset)) {
        count += sql::AsciiLower(name) == sql::AsciiLower(index_name) ? 1 : 0;
      }
      if (count > 0)
        segments = "index '" + index_name + "': " + std::to_string(count) + " segment" +
                   (count == 1 ? "" : "s");
    }
    answer(arrow::Status::OK(), segments);
  });
}

void Mutations::Finish(std::shared_ptr<Pending> pending, MutationOutcome outcome) {
  if (pending->finished) return;
  pending->finished = true;
  ++outcomes_[static_cast<int>(outcome.outcome)];
  auto mine = by_connection_.find(pending->request.connection);
  if (mine != by_connection_.end() && mine->second.lock() == pending) by_connection_.erase(mine);
  Leave(pending->request.entry);
  auto done = std::move(pending->done);
  if (done) done(std::move(outcome));
}

std::string Mutations::PhaseOf(uint32_t connection) const {
  auto it = by_connection_.find(connection);
  auto pending = it == by_connection_.end() ? nullptr : it->second.lock();
  if (pending == nullptr) return std::string();
  return !pending->progress || pending->worker == nullptr
             ? pending->phase
             : "worker " + std::to_string(pending->worker->pid()) + ": " +
                   DescribeProgress(*pending->progress);
}

std::optional<double> Mutations::ProgressOf(uint32_t connection) const {
  auto it = by_connection_.find(connection);
  auto pending = it == by_connection_.end() ? nullptr : it->second.lock();
  if (pending == nullptr || pending->worker == nullptr || !pending->progress) return std::nullopt;
  const uint64_t total = pending->progress->GetNumber("total").value_or(0);
  if (total == 0) return std::nullopt;
  const uint64_t done = pending->progress->GetNumber("done").value_or(0);
  return std::min(100.0, 100.0 * static_cast<double>(done) / static_cast<double>(total));
}

bool Mutations::Cancel(uint32_t connection) {
  auto it = by_connection_.find(connection);
  auto pending = it == by_connection_.end() ? nullptr : it->second.lock();
  if (pending == nullptr || pending->finished) return false;
  auto queued = std::find(queue_.begin(), queue_.end(), pending);
  if (queued != queue_.end()) {
    queue_.erase(queued);
    pending->timer->cancel();
    Finish(pending, {OutcomeClass::kNotDispatched,
                     {},
                     sql::SqlError(sql::SqlCode::kQueryInterrupted, ErrorKind::kCancelled,
                                   "Query execution was interrupted (KILL) while it waited for a "
                                   "worker slot; nothing was started")});
    return true;
  }
  if (pending->worker == nullptr) return true;
  if (!pending->started || pending->cancel_grace != nullptr) {
    // Before its mutating call nothing can have been committed, and the worker may not handle
    // SIGTERM yet (the first process of a PID namespace ignores what it has no handler for);
    // a second KILL does not wait for the grace period either.
    pending->worker->Kill("KILL QUERY");
    return true;
  }
  pending->worker->Interrupt();
  pending->phase = "worker " + std::to_string(pending->worker->pid()) + ": cancelling (KILL)";
  pending->progress.reset();
  pending->cancel_grace = std::make_unique<asio::steady_timer>(network_, kCancelGrace);
  pending->cancel_grace->async_wait([pending](const std::error_code& error) {
    if (!error && pending->worker != nullptr) {
      pending->worker->Kill("KILL QUERY (it had not cancelled " +
                            std::to_string(kCancelGrace.count()) + " s after it was asked to)");
    }
  });
  return true;
}

}  // namespace tessera::server
