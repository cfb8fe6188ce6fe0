// Filtered reads give the same answer on one thread and on two (docs/design.md, "Threads and
// determinism"): counts and row searches split batches of many fragments between threads, and
// scans and candidate reads process windows of batches in parallel. Run through the CLI, since
// the thread count is fixed once per process.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_threads_test {
namespace {

class CliThreadsTest : public CliFixture {};

TEST_F(CliThreadsTest, ScanCountAndErrorsAreTheSameOnOneAndTwoThreads) {
  // 30,000 rows in fragments of 7,000 and batches of 500: windows span fragments, and a
  // fragment's batches are shared between the threads.
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "30000", "--dim", "4", "--fragment-rows", "7000",
         "--batch-rows", "500"});
  RunOk({"delete", ds, "--where", "id % 11 = 3"});
  RunOk({"index", "create", ds, "--name", "price_idx", "--column", "price", "--type", "BTREE"});
  const std::vector<std::vector<std::string>> commands = {
      {"count", ds, "--where", "price < 40"},
      {"count", ds, "--where", "category = 'c1' OR price > 900"},
      {"count", ds, "--where", "price < 40", "--version", "2"},  // no index: every row evaluated
      {"scan", ds, "--where", "price < 40", "--columns", "id,price", "--format", "csv"},
      {"scan", ds, "--where", "price < 40", "--columns", "id", "--format", "csv", "--version", "2"},
      {"scan", ds, "--where", "price > 10", "--columns", "id", "--limit", "777", "--format", "csv"},
      {"scan", ds, "--columns", "id,category", "--format", "csv", "--version", "2"},
  };
  // A filter that fails on data (a category that is no integer) fails with the same message,
  // naming the same first failing row's expression, whatever the threads.
  const std::vector<std::string> failing = {
      "count", ds, "--where", "CAST(category AS BIGINT) > 0", "--version", "2"};
  std::map<std::string, std::vector<std::string>> outputs;
  for (const std::string threads : {"1", "2"}) {
    const ScopedEnvironment environment("TESSERA_NUM_THREADS", threads);
    for (const auto& command : commands) outputs[threads].push_back(RunOk(command));
    outputs[threads].push_back(RunFails(failing, "InvalidArgument"));
  }
  ASSERT_EQ(outputs["1"].size(), outputs["2"].size());
  for (size_t i = 0; i < outputs["1"].size(); ++i) {
    EXPECT_EQ(outputs["1"][i], outputs["2"][i]) << "command " << i;
    EXPECT_FALSE(outputs["1"][i].empty()) << "command " << i;
  }
  EXPECT_EQ(outputs["1"][5].substr(0, 3), "id\n");
}

}  // namespace
}  // namespace tessera::testing::cli_threads_test
