// The `tessera` executable under absurd parameters (issue 9): huge k and refine factors in
// batch search on one thread and on several, options past their type's range, negative and
// int64-limit offsets, repeated index parameters, empty filters and control characters in user
// text. Every case ends in an answer or a typed error — never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_limits_test {
namespace {

class CliLimitsTest : public CliFixture {
 protected:
  // 1000 rows of 8-dimensional vectors in 3 fragments, with an IVF_PQ index (quantized, so
  // the refine factor applies), and a file of 3 query vectors.
  std::string MakeIndexedDataset() {
    const std::string ds = Path("ds");
    RunOk({"gen", "--dataset", ds, "--rows", "1000", "--dim", "8", "--fragment-rows", "400"});
    RunOk({"index", "create", ds, "--name", "vec_idx", "--column", "vector", "--type", "IVF_PQ",
           "--param", "num_partitions=4", "--param", "num_sub_vectors=2"});
    RunOk({"gen", Path("queries.arrow"), "--queries", "3", "--dim", "8"});
    return ds;
  }
};

TEST_F(CliLimitsTest, HugeKAndRefineFactorReturnEveryRowOnAnyThreadCount) {
  const std::string ds = MakeIndexedDataset();
  for (const std::string threads : {"2", "1"}) {
    const ScopedEnvironment environment("TESSERA_NUM_THREADS", threads);
    // k far beyond the rows: every row, for every query.
    auto lines =
        Lines(RunOk({"search", ds, "--column", "vector", "--queries", Path("queries.arrow"), "--k",
                     "2147483647", "--columns", "id", "--format", "csv"}));
    EXPECT_EQ(lines.size(), 1u + 3 * 1000) << threads << " threads";
    // k × refine factor just below 2^31: exact re-ranking of every candidate.
    lines =
        Lines(RunOk({"search", ds, "--column", "vector", "--queries", Path("queries.arrow"), "--k",
                     "3", "--refine-factor", "715827882", "--columns", "id", "--format", "csv"}));
    EXPECT_EQ(lines.size(), 1u + 3 * 3) << threads << " threads";
    // The largest values of every knob at once, one query and a batch.
    for (const std::string source : {"--vector", "--queries"}) {
      const std::string value = source == "--vector" ? "[0,0,0,0,0,0,0,0]" : Path("queries.arrow");
      lines = Lines(RunOk({"search", ds, "--column", "vector", source, value, "--k",
                           "9223372036854775807", "--refine-factor", "2147483647", "--nprobes",
                           "2147483647", "--columns", "id", "--format", "csv"}));
      EXPECT_EQ(lines.size(), 1u + (source == "--vector" ? 1 : 3) * 1000) << source;
    }
  }
}

TEST_F(CliLimitsTest, OffsetsAndOptionsOutsideTheirRangeAreTypedErrors) {
  const std::string ds = MakeIndexedDataset();
  const std::vector<std::string> search = {
      "search", ds, "--column", "vector", "--vector", "[0,0,0,0,0,0,0,0]", "--k", "3"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = search;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  EXPECT_TRUE(Contains(RunFails(with({"--offset", "-1"}), "InvalidArgument", 2),
                       "--offset: must be an integer in [0, 9223372036854775807], got '-1'"));
  EXPECT_TRUE(Contains(RunFails(with({"--offset", "9223372036854775808"}), "InvalidArgument", 2),
                       "[0, 9223372036854775807], got '9223372036854775808'"));
  EXPECT_TRUE(Contains(RunFails(with({"--nprobes", "2147483648"}), "InvalidArgument", 2),
                       "--nprobes: must be an integer in [1, 2147483647], got '2147483648'"));
  EXPECT_TRUE(Contains(RunFails(with({"--refine-factor", "0"}), "InvalidArgument", 2),
                       "--refine-factor: must be an integer in [1, 2147483647], got '0'"));
  EXPECT_TRUE(Contains(RunFails(with({"--k", "18446744073709551616"}), "InvalidArgument", 2),
                       "--k: must be an integer in [1, 9223372036854775807]"));
  // The largest offset is legal: past every row, nothing is left.
  EXPECT_EQ(
      Lines(RunOk(with({"--offset", "9223372036854775807", "--columns", "id", "--format", "csv"}))),
      std::vector<std::string>{"id,_distance"});
  EXPECT_EQ(Lines(RunOk(with({"--offset", "998", "--columns", "id", "--format", "csv"}))).size(),
            3u);

  EXPECT_TRUE(Contains(RunFails({"scan", ds, "--limit", "-1"}, "InvalidArgument", 2),
                       "--limit: must be an integer in [0, 18446744073709551615], got '-1'"));
  EXPECT_EQ(Lines(RunOk({"scan", ds, "--limit", "18446744073709551615", "--columns", "id",
                         "--format", "csv"}))
                .size(),
            1001u);
}

TEST_F(CliLimitsTest, RepeatedIndexParametersAreRejected) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "300", "--dim", "8"});
  const std::string error =
      RunFails({"index", "create", ds, "--name", "v", "--column", "vector", "--type", "IVF_FLAT",
                "--param", "num_partitions=4", "--param", "NUM_PARTITIONS=8"},
               "InvalidArgument");
  EXPECT_TRUE(Contains(error, "index parameter 'num_partitions' is given twice ('4' and '8')"))
      << error;
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 1u);
}

TEST_F(CliLimitsTest, AnEmptyFilterIsAnErrorEverywhere) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "300", "--dim", "8"});
  for (const std::string empty : {"", "  ", "\t\n"}) {
    for (const auto& command : std::vector<std::vector<std::string>>{
             {"scan", ds},
             {"count", ds},
             {"search", ds, "--column", "vector", "--vector", "[0,0,0,0,0,0,0,0]", "--k", "3"}}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {"--where", empty});
      EXPECT_TRUE(Contains(RunFails(args, "InvalidArgument", 2),
                           "--where: the filter is empty; omit --where to"));
    }
    EXPECT_TRUE(Contains(RunFails({"delete", ds, "--where", empty}, "InvalidArgument", 2),
                         "use --where true to delete every row"));
  }
  EXPECT_EQ(RunOk({"count", ds}), "300\n");
  EXPECT_EQ(RunOk({"count", ds, "--where", "true"}), "300\n");
  RunOk({"delete", ds, "--where", "true"});
  EXPECT_EQ(RunOk({"count", ds}), "0\n");
}

TEST_F(CliLimitsTest, ControlCharactersInUserTextAreEscaped) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "100", "--dim", "8"});
  const std::string escape = "\x1b[2J";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"count", ds, "--where", "price " + escape + " < 3"},
           {"count", ds, "--where", "nope" + escape + " < 3"},
           {"count", ds, "--where", "category = 'a" + escape + "'  AND"},
           {"scan", ds, "--columns", "id" + escape},
           {"index", "create", ds, "--name", "bad" + escape, "--column", "id", "--type", "BTREE"},
           {"index", "drop", ds, "--name", "gone\a" + escape},
           {"search", ds, "--column", "vector" + escape, "--vector", "[0,0,0,0,0,0,0,0]", "--k",
            "3"},
           {"scan", ds + escape}}) {
    const CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 1) << CommandLine(args) << "\n" << result.err;
    EXPECT_TRUE(StartsWith(result.err, "error: ")) << result.err;
    // The only control character printed is the line's end.
    EXPECT_EQ(
        std::count_if(result.err.begin(), result.err.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
        1)
        << CommandLine(args) << "\n"
        << result.err;
    EXPECT_TRUE(Contains(result.err, "\\x1b[2J")) << result.err;
  }
}

}  // namespace
}  // namespace tessera::testing::cli_limits_test
