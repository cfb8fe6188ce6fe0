#include "support/cli_fixture.h"

#include <algorithm>

namespace tessera::testing {

std::string CliFixture::Path(const std::string& name) const { return directory_.Child(name); }

CliResult CliFixture::Run(const std::vector<std::string>& args) {
  return RunCli(args, Path("stdout.txt"), Path("stderr.txt"));
}

std::string CliFixture::RunOk(const std::vector<std::string>& args) {
  CliResult result = Run(args);
  EXPECT_EQ(result.exit_code, 0) << CommandLine(args) << "\nstderr: " << result.err;
  EXPECT_EQ(result.err, "") << CommandLine(args);
  return result.out;
}

std::string CliFixture::RunFails(const std::vector<std::string>& args, const std::string& kind,
                                 int exit_code) {
  CliResult result = Run(args);
  EXPECT_EQ(result.exit_code, exit_code) << CommandLine(args) << "\nstderr: " << result.err;
  EXPECT_TRUE(StartsWith(result.err, "error: " + kind + ": "))
      << CommandLine(args) << "\nstderr: " << result.err;
  // An operation's error is one line; a usage error adds a line with a hint.
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), exit_code == 1 ? 1 : 2)
      << CommandLine(args) << "\nstderr: " << result.err;
  return result.err;
}

std::string CliFixture::BuildAndMergeSegments(const std::string& dataset,
                                              const std::vector<std::string>& spec,
                                              const std::vector<std::string>& fragment_subsets) {
  std::vector<std::string> merge = {"index", "merge-segments", dataset, "--segments"};
  for (size_t i = 0; i < fragment_subsets.size(); ++i) {
    const std::string part = Path("segment" + std::to_string(i) + ".json");
    WriteWholeFile(
        part,
        RunOk(With({"index", "build-segment", dataset, "--fragments", fragment_subsets[i]}, spec)));
    merge.push_back(part);
  }
  const std::string merged = Path("merged.json");
  WriteWholeFile(merged, RunOk(merge));
  return merged;
}

}  // namespace tessera::testing
