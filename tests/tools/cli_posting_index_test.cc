// The posting-list families (BITMAP, LABEL_LIST) through the built `tessera` executable: the
// distributed build (build-segment over fragment subsets, merge-segments, commit-segments), the
// parameters shown by inspection, queries through the index equal to the unindexed scan, and
// optimize after an append.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_posting_index_test {
namespace {

namespace fs = std::filesystem;

struct FamilyCase {
  std::string name;
  std::string column;
  std::string type;
  std::string params;  // as `index list` shows them
  std::vector<std::string> filters;
};

class CliPostingIndexTest : public CliFixture {
 protected:
  // Every filter gives the same rows on `ds` (indexed) as on `reference` (never indexed).
  void ExpectScansEqual(const std::string& ds, const std::string& reference,
                        const FamilyCase& family) {
    for (const auto& filter : family.filters) {
      const std::vector<std::string> scan = {"--where", filter,     "--columns",
                                             "id",      "--format", "csv"};
      std::vector<std::string> indexed = {"scan", ds};
      indexed.insert(indexed.end(), scan.begin(), scan.end());
      std::vector<std::string> unindexed = {"scan", reference};
      unindexed.insert(unindexed.end(), scan.begin(), scan.end());
      const std::string rows = RunOk(indexed);
      EXPECT_EQ(rows, RunOk(unindexed)) << filter;
      EXPECT_GT(Lines(rows).size(), 1u) << filter;  // something matched
      if (&filter != &family.filters.front()) continue;
      // The index answers (explain names it; the other filters take the same path).
      indexed.push_back("--explain");
      const CliResult explained = Run(indexed);
      EXPECT_EQ(explained.exit_code, 0) << explained.err;
      EXPECT_TRUE(Contains(explained.err, family.type + " index '" + family.name + "'"))
          << filter << "\n"
          << explained.err;
    }
  }

  void RunDistributedBuild(const FamilyCase& family) {
    const std::string ds = Path("ds");
    const std::string reference = Path("reference");
    RunOk({"gen", "--dataset", ds, "--rows", "1200", "--dim", "4", "--fragment-rows", "300",
           "--seed", "5"});
    fs::copy(ds, reference, fs::copy_options::recursive);
    const std::vector<std::string> spec = {"--name",      family.name, "--column",
                                           family.column, "--type",    family.type};
    const std::string merged = BuildAndMergeSegments(ds, spec, {"0,1", "2,3"});
    EXPECT_EQ(RunOk(With(With({"index", "commit-segments", ds}, spec), {"--segments", merged})),
              "committed 1 segment to index '" + family.name + "' (" + family.type + " on " +
                  family.column + ") in " + ds +
                  ": version 2, 1 segment, 1200 rows in 4 fragments indexed\n");
    const auto list = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[1], family.name + "," + family.column + "," + family.type + "," + family.params +
                           ",1,1200,4,0,0");
    const std::string described = RunOk({"index", "describe", ds, "--name", family.name});
    EXPECT_TRUE(Contains(described, "type:       " + family.type)) << described;
    ExpectScansEqual(ds, reference, family);

    // New rows: answered by the scan until optimize builds a delta segment, then by the index.
    RunOk({"gen", Path("more.arrow"), "--rows", "300", "--dim", "4", "--seed", "6"});
    RunOk({"append", ds, "--from", Path("more.arrow")});
    RunOk({"append", reference, "--from", Path("more.arrow")});
    EXPECT_TRUE(Contains(RunOk({"index", "optimize", ds}), "built 1 segment"));
    EXPECT_TRUE(Contains(RunOk({"index", "optimize", ds, "--merge", "1"}), "merged 2 segments"));
    const auto optimized = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
    ASSERT_EQ(optimized.size(), 2u);
    EXPECT_EQ(optimized[1], family.name + "," + family.column + "," + family.type + "," +
                                family.params + ",1,1500,5,0,0");
    ExpectScansEqual(ds, reference, family);
  }
};

TEST_F(CliPostingIndexTest, BitmapDistributedBuildAnswersLikeTheScan) {
  RunDistributedBuild({"cat_idx",
                       "category",
                       "BITMAP",
                       "max_cardinality=4096",
                       {"category = 'books'", "category IN ('toys', 'beauty', NULL)",
                        "category != 'books'", "NOT (category >= 'e')", "category IS NULL",
                        "category BETWEEN 'b' AND 'h' AND category IS NOT NULL"}});
}

TEST_F(CliPostingIndexTest, LabelListDistributedBuildAnswersLikeTheScan) {
  RunDistributedBuild(
      {"tag_idx",
       "tags",
       "LABEL_LIST",
       "\"\"",  // no parameters: an empty CSV field
       {"array_has_any(tags, ['sale', 'eco'])", "array_has_all(tags, ['new', 'sale'])",
        "NOT array_has_any(tags, ['gift', 'new'])", "array_contains(tags, 'vintage')",
        "NOT array_contains(tags, 'new')", "NOT array_has_all(tags, ['popular'])"}});
}

}  // namespace
}  // namespace tessera::testing::cli_posting_index_test
