// The base fixture of the tests that run the built `tessera` CLI (tests/tools/): a fresh
// directory per test, removed with everything in it when the test ends, and runners that capture
// what the CLI printed (in files of that directory) and check the exit status and the error
// format of docs/cli.md, and the distributed index build of docs/indexes.md as one step.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <optional>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/temp_directory.h"

namespace tessera::testing {

// Sets an environment variable for the CLI processes a test starts; restores it at scope exit.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (previous_) {
      ::setenv(name_, previous_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

class CliFixture : public ::testing::Test {
 protected:
  // `name` in this test's directory.
  std::string Path(const std::string& name) const;

  // Runs the CLI with `args`, capturing stdout and stderr.
  CliResult Run(const std::vector<std::string>& args);

  // Runs a command that must succeed and print nothing on stderr; returns its stdout.
  std::string RunOk(const std::vector<std::string>& args);

  // Runs a command that must fail with `kind`, exit status `exit_code` (1 for an operation's
  // error, 2 for a usage error); returns its stderr.
  std::string RunFails(const std::vector<std::string>& args, const std::string& kind,
                       int exit_code = 1);

  // The distributed build's first two steps: `index build-segment <dataset> <spec> --fragments
  // <subset>` for each of `fragment_subsets` (e.g. "0,1"), each description saved in this test's
  // directory, then one `index merge-segments` of them all. `spec` is the index's flags
  // (--name, --column, --type, --param ...). Returns the path of the merged segment's
  // description, for `index commit-segments ... --segments <path>`.
  std::string BuildAndMergeSegments(const std::string& dataset,
                                    const std::vector<std::string>& spec,
                                    const std::vector<std::string>& fragment_subsets);

 private:
  TempDirectory directory_;
};

}  // namespace tessera::testing
