#include "tessera/server/mutation_worker.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tessera/server/client_statements.h"
#include "tessera/server/worker_envelope.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/mutation.h"
#include "tessera/sql/parser.h"
#include "tessera/sql/session.h"
#include "tessera/util/operation_control.h"

namespace tessera::server {

namespace {

constexpr int kResultFd = 3;
// How often the worker reports the progress of its operation.
constexpr std::chrono::milliseconds kProgressInterval{250};

// The operation's control, which SIGTERM (the server's KILL QUERY) asks to cancel.
std::atomic<util::OperationControl*> cancel_target{nullptr};

extern "C" void RequestCancelOnTerminate(int) {
  if (util::OperationControl* control = cancel_target.load()) control->RequestCancel();
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

std::optional<EnvelopeMessage> ReadRequest() {
  EnvelopeReader reader;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(0, buffer, sizeof(buffer));
    if (n <= 0) break;
    reader.Feed(std::string_view(buffer, static_cast<size_t>(n)));
    if (!reader.messages().empty() || reader.malformed()) break;
  }
  if (reader.messages().size() != 1) return std::nullopt;
  return reader.messages()[0];
}

EnvelopeMessage Message(const std::string& invocation, const std::string& type) {
  EnvelopeMessage message;
  message.fields["invocation"] = invocation;
  message.fields["type"] = type;
  return message;
}

// The hooks a test names in the request; they stand for the failures a real build can meet.
arrow::Status FaultBeforeMutatingCall(const std::string& fault, const std::string& catalog_root,
                                      const std::string& database, const std::string& text) {
  if (fault == "slow_progress") {
    // A long build: progress in 200 steps over 20 s, honouring a cancellation at each.
    util::BeginPhase("building", 200, "rows");
    for (int step = 0; step < 200; ++step) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ARROW_RETURN_NOT_OK(util::AdvanceProgress(1));
    }
  } else if (fault == "oom") {
    // Touch memory until the control group's limit makes the kernel kill us.
    std::vector<char*> blocks;
    for (;;) {
      char* block = static_cast<char*>(std::malloc(16 << 20));
      if (block == nullptr) continue;
      std::memset(block, 1, 16 << 20);
      blocks.push_back(block);
    }
  } else if (fault == "hang") {
    for (;;) pause();
  } else if (fault == "slow" || fault == "sigkill") {
    // A long build (sigkill: the server kills the worker in the middle of it).
    std::this_thread::sleep_for(std::chrono::seconds(2));
  } else if (fault == "grandchild") {
    // A process that would outlive the worker; the domain's end must take it.
    const pid_t child = fork();
    if (child == 0) {
      setsid();
      execl("/bin/sleep", "sleep", "86399", static_cast<char*>(nullptr));
      _exit(1);
    }
  } else if (fault == "commit_conflict") {
    // Another writer commits the same index first; our commit must lose to it.
    auto catalog = sql::Catalog::Open(catalog_root);
    if (catalog.ok()) {
      sql::Session other(*catalog);
      if (!database.empty()) (void)other.ExecuteAll(UseStatement(database));
      (void)other.ExecuteAll(text);
    }
  } else if (fault == "bad_envelope") {
    WriteAll(kResultFd, "this is not an envelope");
    _exit(0);
  } else if (fault == "truncated_envelope") {
    const std::string frame = EncodeEnvelope(Message("x", "result"));
    WriteAll(kResultFd, frame.substr(0, frame.size() / 2));
    _exit(0);
  }
  return arrow::Status::OK();
}

void FaultAfterMutatingCall(const std::string& fault) {
  if (fault == "crash_after_commit") {
    // A real crash (a signal the kernel forces even on a namespace's first process).
    struct rlimit no_core {};
    setrlimit(RLIMIT_CORE, &no_core);
    *static_cast<volatile int*>(nullptr) = 1;
  }
}

}  // namespace

int RunMutationWorker() {
  auto request = ReadRequest();
  if (!request) {
    std::fprintf(stderr, "tessera __mutation-worker: no complete request on standard input\n");
    return 2;
  }
  const std::string invocation = request->Get("invocation");
  const char* hooks_variable = std::getenv("TESSERA_TEST_FAULT_HOOKS");
  const bool hooks = hooks_variable != nullptr && std::string(hooks_variable) == "1";
  const std::string fault = hooks ? request->Get("fault") : std::string();
  const std::string catalog_root = request->Get("catalog_root");
  const std::string database = request->Get("database");
  const std::string text = request->Get("statement");

  // Progress of the mutating call goes to the server as it happens; SIGTERM cancels it.
  util::OperationControl control(
      [&invocation](const util::ProgressReport& report) {
        EnvelopeMessage progress = Message(invocation, "progress");
        progress.fields["phase"] = std::string(report.phase);
        progress.fields["done"] = std::to_string(report.done);
        progress.fields["total"] = std::to_string(report.total);
        progress.fields["unit"] = std::string(report.unit);
        WriteAll(kResultFd, EncodeEnvelope(progress));
      },
      kProgressInterval);
  cancel_target.store(&control);
  struct sigaction on_terminate {};
  on_terminate.sa_handler = RequestCancelOnTerminate;
  sigemptyset(&on_terminate.sa_mask);
  on_terminate.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &on_terminate, nullptr);
  const util::ControlScope control_scope(&control);

  EnvelopeMessage result = Message(invocation, "result");
  auto fail = [&](const arrow::Status& status) {
    result.fields["ok"] = "0";
    result.fields["kind"] = std::to_string(static_cast<int>(KindOf(status)));
    result.fields["code"] = std::to_string(static_cast<int>(sql::CodeOf(status)));
    result.fields["message"] = status.message();
    // Cancelled by the server's request, at a point before any commit (the library's
    // contract): the server may report that nothing was committed.
    if (KindOf(status) == ErrorKind::kCancelled && control.cancel_requested()) {
      result.fields["cancelled"] = "1";
    }
    return WriteAll(kResultFd, EncodeEnvelope(result)) ? 0 : 2;
  };
  auto catalog = sql::Catalog::Open(catalog_root, request->Get("catalog_name"));
  if (!catalog.ok()) return fail(catalog.status());
  sql::Session session(*catalog);
  if (!database.empty()) {
    auto used = session.ExecuteAll(UseStatement(database));
    if (!used.ok()) return fail(used.status());
  }
  auto statements = sql::ParseScript(text);
  if (!statements.ok()) return fail(statements.status());
  if (statements->size() != 1 || !sql::IsWorkerMutation((*statements)[0])) {
    return fail(
        Error(ErrorKind::kInternal, "a mutation worker runs one mutation, not '", text, "'"));
  }
  sql::MutationHooks hooks_of_statement;
  sql::MutationAdmission admission;
  admission.table_uri = request->Get("table_uri");
  admission.version = request->GetNumber("version").value_or(0);
  admission.contract = request->Get("contract");
  hooks_of_statement.admission = admission;
  hooks_of_statement.before_mutating_call = [&]() -> arrow::Status {
    ARROW_RETURN_NOT_OK(control.CheckCancelled());  // KILLed while it validated
    if (!WriteAll(kResultFd, EncodeEnvelope(Message(invocation, "started")))) {
      return Error(ErrorKind::kIOError, "the server stopped reading the worker's results");
    }
    return FaultBeforeMutatingCall(fault, catalog_root, database, text);
  };
  auto executed = session.Execute((*statements)[0], text, &hooks_of_statement);
  FaultAfterMutatingCall(fault);
  if (!executed.ok()) return fail(executed.status());
  result.fields["ok"] = "1";
  result.fields["affected_rows"] = std::to_string(executed->affected_rows);
  if (executed->version) result.fields["version"] = std::to_string(*executed->version);
  result.fields["info"] = executed->info;
  return WriteAll(kResultFd, EncodeEnvelope(result)) ? 0 : 2;
}

}  // namespace tessera::server
