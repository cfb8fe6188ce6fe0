// ChildProcess: a program run by a test as a separate process (fork + exec), with its stdout and
// stderr captured in files, for tests of concurrent writers and of crashes. Every child is waited
// for: one still running when its ChildProcess is destroyed is killed with SIGKILL, so a failing
// test never leaves processes behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::testing {

// How a child ended.
struct ExitStatus {
  bool exited = false;  // returned from main or called exit(): `code` is valid
  int code = -1;
  bool signaled = false;  // killed by `signal`
  int signal = 0;
  bool timed_out = false;  // still running at the deadline, so the test killed it

  bool Succeeded() const { return exited && code == 0; }
  std::string ToString() const;
};

class ChildProcess {
 public:
  struct Options {
    // Environment variables to set (a value) or remove (nullopt) in the child; the rest of the
    // test's environment is inherited.
    std::map<std::string, std::optional<std::string>> environment;
    // Files receiving the child's stdout and stderr (created or truncated).
    std::string stdout_path;
    std::string stderr_path;
  };

  // Starts `program` with `arguments` (argv[1]...). Throws std::runtime_error when the process
  // cannot be created; a program that cannot be executed exits with code 127.
  ChildProcess(const std::string& program, const std::vector<std::string>& arguments,
               const Options& options);
  ~ChildProcess();
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Whether the child has ended (reaps it if so); never blocks.
  bool HasEnded();
  // Waits for the child to end; at the deadline kills it with SIGKILL and reports timed_out.
  ExitStatus Wait(std::chrono::milliseconds timeout);
  // The status once ended (Wait or HasEnded returned it).
  const std::optional<ExitStatus>& status() const { return status_; }

  std::string Stdout() const;
  std::string Stderr() const;
  // The command line, for messages.
  const std::string& command_line() const { return command_line_; }

 private:
  void Reap(int wait_status);

  pid_t pid_ = -1;
  std::optional<ExitStatus> status_;
  std::string stdout_path_;
  std::string stderr_path_;
  std::string command_line_;
};

// The whole contents of a file ("" when it cannot be read).
std::string ReadTextFile(const std::string& path);

// Waits until every path exists; false at the deadline.
bool WaitForFiles(const std::vector<std::string>& paths, std::chrono::milliseconds timeout);

// The path of a helper program built from tests/helpers/<name>.cc.
std::string HelperProgram(const std::string& name);

}  // namespace tessera::testing
