// Running the built `tessera` CLI (TESSERA_CLI_PATH) from tests as a separate process, with its
// stdout and stderr captured in files, and small helpers for reading what it printed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Starts the CLI with `args`; -1 (and a test failure) when it cannot be started.
pid_t StartCli(const std::vector<std::string>& args, const std::string& out_path,
               const std::string& err_path);
// Waits for a started CLI; a crash shows as 128 + signal, which no test expects.
int WaitCli(pid_t pid);
// Starts, waits, and reads back what the CLI printed.
CliResult RunCli(const std::vector<std::string>& args, const std::string& out_path,
                 const std::string& err_path);

std::string ReadWholeFile(const std::filesystem::path& path);
// Replaces the file at `path` with `text` (a segment description for a later command).
void WriteWholeFile(const std::filesystem::path& path, const std::string& text);
// `args` followed by `more`: a command line built from shared pieces (an index's flags).
std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more);
std::vector<std::string> Lines(const std::string& text);
bool StartsWith(const std::string& text, const std::string& prefix);
bool Contains(const std::string& text, const std::string& part);
// "tessera <args...>", for failure messages.
std::string CommandLine(const std::vector<std::string>& args);

// The CLI failed (without dying of a signal) and printed exactly one line on stderr,
// `error: <kind>: ...`, which contains `part`.
void ExpectSingleErrorLine(const CliResult& result, const std::string& kind,
                           const std::string& part = "");

}  // namespace tessera::testing
