#include "tessera/server/worker_process.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tessera/status.h"

namespace tessera::server {

namespace {

// Bytes of the messages one run's report keeps (all but progress); more is a protocol failure.
constexpr size_t kMaxResultBytes = 4u << 20;
// A progress message: invocation id, phase, counts and unit; anything longer is a protocol
// failure (progress is not kept, so it has no budget of its own).
constexpr size_t kMaxProgressBytes = 256;

// The bytes a message's fields hold, the measure of both limits above.
size_t MessageBytes(const EnvelopeMessage& message) {
  size_t bytes = 0;
  for (const auto& [key, value] : message.fields) bytes += key.size() + value.size();
  return bytes;
}

// A descriptor moved to 10 or above, so that the child's dup2 onto 0, 1 and 3 cannot clobber
// another of them.
int HighDescriptor(int fd) {
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return high;
}

struct Pipe {
  int read = -1;
  int write = -1;
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = HighDescriptor(fds[0]);
    write = HighDescriptor(fds[1]);
    return read >= 0 && write >= 0;
  }
  void Close() {
    if (read >= 0) close(read);
    if (write >= 0) close(write);
    read = write = -1;
  }
};

}  // namespace

long CloneProcess(bool new_pid_namespace, int* pidfd) {
  struct clone_args args;
  std::memset(&args, 0, sizeof(args));
  args.flags = CLONE_PIDFD | (new_pid_namespace ? CLONE_NEWPID : 0);
  args.pidfd = reinterpret_cast<uint64_t>(pidfd);
  args.exit_signal = SIGCHLD;
  return syscall(SYS_clone3, &args, sizeof(args));
}

WorkerProcess::WorkerProcess(asio::io_context& network, std::unique_ptr<Domain> domain,
                             Finished finished)
    : domain_(std::move(domain)),
      finished_(std::move(finished)),
      pidfd_(network),
      results_(network),
      request_(network),
      deadline_(network),
      poll_(network) {}

WorkerProcess::~WorkerProcess() = default;

arrow::Result<std::shared_ptr<WorkerProcess>> WorkerProcess::Start(asio::io_context& network,
                                                                   const Isolation& isolation,
                                                                   Launch launch,
                                                                   Finished finished) {
  const std::string invocation = launch.request.Get("invocation");
  ARROW_ASSIGN_OR_RAISE(auto domain,
                        isolation.CreateDomain("w-" + invocation.substr(0, 16), launch.limits));
  auto worker = std::shared_ptr<WorkerProcess>(
      new WorkerProcess(network, std::move(domain), std::move(finished)));
  Pipe request, results, go;
  const int null_fd = HighDescriptor(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!request.Open() || !results.Open() || !go.Open() || null_fd < 0) {
    request.Close();
    results.Close();
    go.Close();
    if (null_fd >= 0) close(null_fd);
    return Error(ErrorKind::kResourceExhausted,
                 "cannot make the pipes of a mutation worker: ", std::strerror(errno));
  }
  // Everything the child touches is made before clone: it may not allocate.
  std::string worker_command = "__mutation-worker";
  std::string path_variable = "PATH=/usr/local/bin:/usr/bin:/bin";
  std::string hooks_variable = "TESSERA_TEST_FAULT_HOOKS=1";
  char* argv[] = {launch.executable.data(), worker_command.data(), nullptr};
  char* envp[] = {path_variable.data(), launch.test_fault_hooks ? hooks_variable.data() : nullptr,
                  nullptr};
  sigset_t no_signals;
  sigemptyset(&no_signals);
  int pidfd = -1;
  const long pid = CloneProcess(isolation.pid_namespace(), &pidfd);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The server's ends of the pipes are closed here, so that a server that gives up is seen
    // as end of file; signals the server blocks are not blocked in the worker.
    close(go.write);
    close(request.write);
    close(results.read);
    sigprocmask(SIG_SETMASK, &no_signals, nullptr);
    if (dup2(request.read, 0) < 0 || dup2(null_fd, 1) < 0 || dup2(results.write, 3) < 0) {
      _exit(125);
    }
    char byte = 0;
    if (read(go.read, &byte, 1) != 1) _exit(126);  // the server gave up on us
    close_range(4, ~0U, 0);
    execve(argv[0], argv, envp);
    _exit(127);
  }
  const int saved_errno = errno;
  close(request.read);
  close(results.write);
  close(go.read);
  close(null_fd);
  if (pid < 0) {
    close(request.write);
    close(results.read);
    close(go.write);
    return Error(ErrorKind::kResourceExhausted,
                 "cannot start a mutation worker (clone3: ", std::strerror(saved_errno), ")");
  }
  worker->pid_ = static_cast<int>(pid);
  worker->on_message_ = std::move(launch.on_message);
  worker->pidfd_.assign(pidfd);
  worker->results_.assign(results.read);
  worker->request_.assign(request.write);
  auto attached = worker->domain_->Attach(worker->pid_);
  if (!attached.ok()) {
    // Not released to exec: kill it and reap it here, before any work.
    close(go.write);
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    siginfo_t info{};
    waitid(static_cast<idtype_t>(P_PIDFD), pidfd, &info, WEXITED);
    worker->reaped_ = true;
    return attached;
  }
  const char byte = 1;
  const bool released = write(go.write, &byte, 1) == 1;
  close(go.write);
  worker->request_bytes_ = EncodeEnvelope(launch.request);
  auto self = worker;
  asio::async_write(worker->request_, asio::buffer(worker->request_bytes_),
                    [self](const std::error_code&, size_t) { self->request_.close(); });
  worker->deadline_.expires_at(launch.deadline);
  worker->deadline_.async_wait([self](const std::error_code& error) {
    if (!error) self->Kill("the statement's time budget ran out");
  });
  if (!released) worker->Kill("the worker could not be released to run");
  worker->ReadResults();
  worker->WaitForExit();
  return worker;
}

void WorkerProcess::Kill(const std::string& reason) {
  if (reaped_) return;
  if (!report_.killed) {
    report_.killed = true;
    report_.kill_reason = reason;
  }
  syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGKILL, nullptr, 0);
  domain_->KillAll();
}

void WorkerProcess::Interrupt() {
  if (reaped_) return;
  syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), SIGTERM, nullptr, 0);
}

void WorkerProcess::ReadResults() {
  auto self = shared_from_this();
  results_.async_read_some(asio::buffer(buffer_), [self](const std::error_code& error, size_t n) {
    if (n > 0) self->reader_.Feed(std::string_view(self->buffer_.data(), n));
    for (EnvelopeMessage& message : self->reader_.TakeMessages()) {
      if (self->on_message_) self->on_message_(message);
      if (message.Get("type") == "progress") {
        if (MessageBytes(message) > kMaxProgressBytes) {
          self->report_.protocol_failure = true;
          self->Kill("the worker wrote an oversized progress message");
        }
        continue;
      }
      self->kept_bytes_ += MessageBytes(message);
      self->kept_.push_back(std::move(message));
    }
    if (self->reader_.malformed() || self->kept_bytes_ > kMaxResultBytes) {
      self->Kill("the worker wrote a malformed result envelope");
    }
    if (error) {  // end of file (every writer gone), or the pipe failed
      self->results_closed_ = true;
      self->Complete();
      return;
    }
    self->ReadResults();
  });
}

void WorkerProcess::WaitForExit() {
  auto self = shared_from_this();
  pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [self](const std::error_code&) {
    siginfo_t info{};
    if (waitid(static_cast<idtype_t>(P_PIDFD), self->pidfd_.native_handle(), &info,
               WEXITED | WNOHANG) != 0 ||
        info.si_pid == 0) {
      self->WaitForExit();  // woken without an exit: wait again
      return;
    }
    self->reaped_ = true;
    self->report_.exited = info.si_code == CLD_EXITED;
    self->report_.exit_code = self->report_.exited ? info.si_status : 0;
    self->report_.signal = self->report_.exited ? 0 : info.si_status;
    self->deadline_.cancel();
    // Whatever the worker left behind in its domain goes with it.
    self->domain_->KillAll();
    self->AwaitEmptyDomain(0);
  });
}

void WorkerProcess::AwaitEmptyDomain(int attempt) {
  if (!domain_->Empty()) {
    domain_->KillAll();
    if (attempt == 3000) {
      std::fprintf(stderr,
                   "tessera serve: worker %d: its control group is not empty 30 s after it was "
                   "killed; its slot stays held\n",
                   pid_);
    }
    poll_.expires_after(std::chrono::milliseconds(attempt < 3000 ? 10 : 1000));
    auto self = shared_from_this();
    poll_.async_wait([self, attempt](const std::error_code& error) {
      if (!error) self->AwaitEmptyDomain(attempt + 1);
    });
    return;
  }
  // Every writer is gone: the reads reach end of file and then the run is complete.
  domain_empty_ = true;
  Complete();
}

void WorkerProcess::Complete() {
  if (!domain_empty_ || !results_closed_ || !finished_) return;
  report_.messages = std::move(kept_);
  report_.protocol_failure |= reader_.malformed() || reader_.truncated();
  report_.oom_kills = domain_->OomKills();
  auto removed = domain_->Remove();
  if (!removed.ok()) std::fprintf(stderr, "tessera serve: %s\n", removed.ToString().c_str());
  poll_.cancel();
  auto finished = std::move(finished_);
  finished_ = nullptr;
  if (finished) finished(std::move(report_));
}

}  // namespace tessera::server
