// An INVERTED index through the built `tessera` CLI: the distributed build (build-segment on two
// fragment subsets, merge-segments, commit-segments), inspection (list, entries, describe with
// the segment's term statistics), filters on the indexed column still answered by the scan (a
// full-text segment answers no predicate), appends indexed by optimize (a delta segment, then a
// merge), and bad definitions refused before any work.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_inverted_test {
namespace {

namespace fs = std::filesystem;

class CliInvertedTest : public CliFixture {};

TEST_F(CliInvertedTest, DistributedBuildInspectionAndOptimize) {
  const std::string ds = Path("ds");
  const std::string plain = Path("plain");
  RunOk({"gen", "--dataset", ds, "--rows", "1000", "--dim", "4", "--fragment-rows", "250", "--seed",
         "5"});
  fs::copy(ds, plain, fs::copy_options::recursive);

  const std::vector<std::string> spec = {"--name", "text_ft",  "--column", "text",
                                         "--type", "INVERTED", "--param",  "memory_limit=1048576"};
  const std::string merged = BuildAndMergeSegments(ds, spec, {"0,2", "3,1"});
  // A definition without positions cannot take segments that hold them.
  RunFails(With(With({"index", "commit-segments", ds}, spec),
                {"--param", "with_position=false", "--segments", merged}),
           "DefinitionMismatch");
  const std::string committed =
      RunOk(With(With({"index", "commit-segments", ds}, spec), {"--segments", merged}));
  EXPECT_EQ(committed, "committed 1 segment to index 'text_ft' (INVERTED on text) in " + ds +
                           ": version 2, 1 segment, 1000 rows in 4 fragments indexed\n");

  const auto list = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_TRUE(StartsWith(list[1], "text_ft,text,INVERTED,")) << list[1];
  EXPECT_TRUE(Contains(list[1], "memory_limit=1048576")) << list[1];
  EXPECT_TRUE(Contains(list[1], "with_position=true")) << list[1];
  EXPECT_TRUE(Contains(list[1], ",1,1000,4,0,0")) << list[1];
  const auto entries = Lines(RunOk({"index", "entries", ds, "--format", "json"}));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(StartsWith(entries[0], "{\"index\":\"text_ft\",\"type\":\"INVERTED\"")) << entries[0];
  EXPECT_TRUE(Contains(entries[0], "\"fragments\":[0,1,2,3],\"rows\":1000")) << entries[0];
  const std::string described = RunOk({"index", "describe", ds, "--name", "text_ft"});
  EXPECT_TRUE(Contains(described, "type:       INVERTED")) << described;
  // The table cuts long details; the JSON holds them whole.
  const std::string described_json =
      RunOk({"index", "describe", ds, "--name", "text_ft", "--format", "json"});
  EXPECT_TRUE(Contains(described_json, "\"build_spill_runs\":\"0\""))
      << described_json;  // merges spill none

  // Filters on the text column are the scan's: the same rows as the unindexed copy.
  for (const std::string filter : {"contains(text, 'garden')", "text LIKE '%arde%'"}) {
    const auto select = [&](const std::string& dataset) {
      return RunOk({"scan", dataset, "--where", filter, "--columns", "id", "--format", "csv"});
    };
    EXPECT_EQ(select(ds), select(plain)) << filter;
  }

  // Appends reach the index through optimize: a delta segment, then one merged segment.
  RunOk({"gen", Path("more.arrow"), "--rows", "300", "--dim", "4", "--seed", "6"});
  RunOk({"append", ds, "--from", Path("more.arrow")});
  EXPECT_EQ(RunOk({"index", "optimize", ds, "--merge", "none"}),
            "optimized " + ds +
                ": version 4; built 1 segment, merged 0 segments, removed 0 segments\n"
                "  text_ft: 2 segments, 1300 rows in 5 fragments indexed\n");
  EXPECT_EQ(RunOk({"index", "optimize", ds, "--merge", "1"}),
            "optimized " + ds +
                ": version 5; built 0 segments, merged 2 segments, removed 0 segments\n"
                "  text_ft: 1 segment, 1300 rows in 5 fragments indexed\n");
  const auto after = Lines(RunOk({"index", "entries", ds, "--format", "csv"}));
  EXPECT_EQ(after.size(), 2u);  // the header and one segment
}

TEST_F(CliInvertedTest, BadDefinitionsFailBeforeAnyWork) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "100", "--dim", "4"});
  const std::string type =
      RunFails({"index", "create", ds, "--name", "p", "--column", "price", "--type", "INVERTED"},
               "Unsupported");
  EXPECT_TRUE(Contains(type, "'price'")) << type;
  const std::string unknown = RunFails({"index", "create", ds, "--name", "t", "--column", "text",
                                        "--type", "inverted", "--param", "n=3"},
                                       "InvalidArgument");
  EXPECT_TRUE(Contains(unknown, "'n'")) << unknown;
  const std::string small = RunFails({"index", "create", ds, "--name", "t", "--column", "text",
                                      "--type", "INVERTED", "--param", "memory_limit=1000"},
                                     "InvalidArgument");
  EXPECT_TRUE(Contains(small, "memory_limit")) << small;
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 1u);
  // A good definition builds at once.
  RunOk({"index", "create", ds, "--name", "t", "--column", "text", "--type", "INVERTED"});
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 2u);
}

}  // namespace
}  // namespace tessera::testing::cli_inverted_test
