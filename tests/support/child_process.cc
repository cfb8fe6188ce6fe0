#include "support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tessera::testing {

namespace {

int OpenOutput(const std::string& path) {
  if (path.empty()) return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

std::string ExitStatus::ToString() const {
  std::ostringstream text;
  if (timed_out) text << "timed out and was killed; ";
  if (exited) text << "exited with code " << code;
  if (signaled) text << "killed by signal " << signal << " (" << ::strsignal(signal) << ")";
  if (!exited && !signaled) text << "still running";
  return text.str();
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& arguments,
                           const Options& options)
    : stdout_path_(options.stdout_path), stderr_path_(options.stderr_path) {
  // Everything the child needs is prepared before fork: between fork and exec a child of a
  // multi-threaded process may only make async-signal-safe calls.
  std::vector<std::string> argv_strings;
  argv_strings.push_back(program);
  argv_strings.insert(argv_strings.end(), arguments.begin(), arguments.end());
  for (const auto& argument : argv_strings) {
    command_line_ += (command_line_.empty() ? "" : " ") + argument;
  }
  std::vector<char*> argv;
  for (auto& argument : argv_strings) argv.push_back(argument.data());
  argv.push_back(nullptr);

  std::vector<std::string> environment_strings;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (options.environment.count(name) == 0) environment_strings.push_back(text);
  }
  for (const auto& [name, value] : options.environment) {
    if (value) environment_strings.push_back(name + "=" + *value);
  }
  std::vector<char*> envp;
  for (auto& entry : environment_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const int out = OpenOutput(options.stdout_path);
  const int err = OpenOutput(options.stderr_path);
  if (out < 0 || err < 0) {
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    throw std::runtime_error("cannot open the output files of " + command_line_);
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  const int fork_error = errno;
  ::close(out);
  ::close(err);
  if (pid < 0) {
    throw std::runtime_error("fork failed for " + command_line_ + ": " + std::strerror(fork_error));
  }
  pid_ = pid;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_),
      status_(std::move(other.status_)),
      stdout_path_(std::move(other.stdout_path_)),
      stderr_path_(std::move(other.stderr_path_)),
      command_line_(std::move(other.command_line_)) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    int wait_status = 0;
    while (::waitpid(pid_, &wait_status, 0) < 0 && errno == EINTR) {
    }
  }
}

void ChildProcess::Reap(int wait_status) {
  ExitStatus status;
  if (WIFEXITED(wait_status)) {
    status.exited = true;
    status.code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    status.signaled = true;
    status.signal = WTERMSIG(wait_status);
  }
  status_ = status;
}

bool ChildProcess::HasEnded() {
  if (status_) return true;
  int wait_status = 0;
  const pid_t result = ::waitpid(pid_, &wait_status, WNOHANG);
  if (result == pid_) {
    Reap(wait_status);
    return true;
  }
  return false;
}

ExitStatus ChildProcess::Wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!HasEnded()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      int wait_status = 0;
      while (::waitpid(pid_, &wait_status, 0) < 0 && errno == EINTR) {
      }
      Reap(wait_status);
      status_->timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return *status_;
}

std::string ChildProcess::Stdout() const { return ReadTextFile(stdout_path_); }
std::string ChildProcess::Stderr() const { return ReadTextFile(stderr_path_); }

std::string ReadTextFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

bool WaitForFiles(const std::vector<std::string>& paths, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& path : paths) {
    std::error_code error;
    while (!std::filesystem::exists(path, error)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return true;
}

std::string HelperProgram(const std::string& name) {
  return (std::filesystem::path(TESSERA_HELPER_DIR) / name).string();
}

}  // namespace tessera::testing
