// The zone-based superset families (ZONEMAP, BLOOMFILTER) through the built `tessera`
// executable: the distributed build (build-segment on two fragment subsets, merge-segments,
// commit-segments), then optimize for appended rows; inspection shows the parameters, and
// filtered scans and counts through the index equal the unindexed version's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_zone_index_test {
namespace {

class CliZoneIndexTest : public CliFixture {
 protected:
  // Builds index `z` of `family` on `column` the distributed way, then checks every filter.
  void DistributedBuildAnswersLikeTheScan(const std::string& family, const std::string& column,
                                          const std::vector<std::string>& params,
                                          const std::string& params_text,
                                          const std::vector<std::string>& filters) {
    const std::string ds = Path("ds");
    RunOk({"gen", "--dataset", ds, "--rows", "1500", "--dim", "4", "--fragment-rows", "250",
           "--seed", "5"});
    const std::vector<std::string> spec =
        With({"--name", "z", "--column", column, "--type", family}, params);
    const std::string merged = BuildAndMergeSegments(ds, spec, {"0,1,2", "3,4"});
    EXPECT_EQ(RunOk(With(With({"index", "commit-segments", ds}, spec), {"--segments", merged})),
              "committed 1 segment to index 'z' (" + family + " on " + column + ") in " + ds +
                  ": version 2, 1 segment, 1250 rows in 5 fragments indexed, 250 rows in 1 "
                  "fragment not indexed\n");
    EXPECT_EQ(RunOk({"index", "optimize", ds}),
              "optimized " + ds +
                  ": version 3; built 1 segment, merged 0 segments, removed 0 segments\n"
                  "  z: 2 segments, 1500 rows in 6 fragments indexed\n");
    EXPECT_EQ(RunOk({"index", "optimize", ds, "--merge", "1"}),
              "optimized " + ds +
                  ": version 4; built 0 segments, merged 2 segments, removed 0 segments\n"
                  "  z: 1 segment, 1500 rows in 6 fragments indexed\n");
    const auto listed = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
    ASSERT_EQ(listed.size(), 2u);
    const std::string csv_params =
        Contains(params_text, ",") ? "\"" + params_text + "\"" : params_text;
    EXPECT_EQ(listed[1], "z," + column + "," + family + "," + csv_params + ",1,1500,6,0,0");
    const std::string described = RunOk({"index", "describe", ds, "--name", "z"});
    EXPECT_TRUE(Contains(described, "params:     " + params_text)) << described;
    EXPECT_TRUE(Contains(RunOk({"index", "entries", ds, "--format", "json"}), "\"rows\":1500"));

    for (const std::string& filter : filters) {
      SCOPED_TRACE(filter);
      const std::vector<std::string> scan = {
          "scan",     ds,          "--where",
          filter,     "--columns", column == "id" ? "id,price" : "id," + column,
          "--format", "csv"};
      const CliResult explained = Run(With(scan, {"--explain"}));
      ASSERT_EQ(explained.exit_code, 0) << explained.err;
      EXPECT_TRUE(Contains(explained.err, family + " index 'z'")) << explained.err;
      EXPECT_TRUE(Contains(explained.err, "rechecked")) << explained.err;
      // Version 1 has no index: the unindexed scan.
      EXPECT_EQ(explained.out, RunOk(With(scan, {"--version", "1"})));
      EXPECT_GT(Lines(explained.out).size(), 1u) << "the filter should select rows";
      EXPECT_EQ(RunOk({"count", ds, "--where", filter}),
                RunOk({"count", ds, "--where", filter, "--version", "1"}));
    }
  }
};

TEST_F(CliZoneIndexTest, CliZoneMapDistributedBuildAnswersLikeTheScan) {
  DistributedBuildAnswersLikeTheScan(
      "ZONEMAP", "id", {"--param", "rows_per_zone=64"}, "rows_per_zone=64",
      {"id BETWEEN 100 AND 180", "id = 1234", "id >= 1490 OR id < 3", "id IN (7, 900, 99999)"});
}

TEST_F(CliZoneIndexTest, CliBloomFilterDistributedBuildAnswersLikeTheScan) {
  DistributedBuildAnswersLikeTheScan(
      "BLOOMFILTER", "id", {"--param", "rows_per_zone=100", "--param", "false_positive_rate=0.02"},
      "false_positive_rate=0.02, rows_per_zone=100",
      {"id = 777", "id IN (3, 1400, 99999)", "id = 1499"});
}

TEST_F(CliZoneIndexTest, CliZoneIndexesRejectBadDefinitions) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "100", "--dim", "4", "--seed", "1"});
  const std::string unsupported =
      RunFails({"index", "create", ds, "--name", "z", "--column", "price", "--type", "BLOOMFILTER"},
               "Unsupported");
  EXPECT_TRUE(Contains(unsupported, "price")) << unsupported;
  const std::string bad = RunFails({"index", "create", ds, "--name", "z", "--column", "id",
                                    "--type", "ZONEMAP", "--param", "rows_per_zone=0"},
                                   "InvalidArgument");
  EXPECT_TRUE(Contains(bad, "rows_per_zone")) << bad;
  RunFails({"index", "create", ds, "--name", "z", "--column", "id", "--type", "BLOOMFILTER",
            "--param", "false_positive_rate=0.9"},
           "InvalidArgument");
}

}  // namespace
}  // namespace tessera::testing::cli_zone_index_test
