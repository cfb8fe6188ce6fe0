// `tessera compact` as a user runs it (docs/cli.md, "compact"): the plan it prints, that a dry
// run and a compaction with nothing to do write nothing, that rows and indexed answers stay the
// same, and its errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_fixture.h"
#include "support/dataset_inspection.h"

namespace tessera::testing::cli_compact_test {
namespace {

class CliCompactTest : public CliFixture {};

TEST_F(CliCompactTest, RewritesSmallFragmentsAndKeepsRowsAndIndexAnswers) {
  const std::string data = Path("data.arrow");
  const std::string ds = Path("ds");
  RunOk({"gen", data, "--rows", "900", "--dim", "4", "--seed", "3"});
  RunOk({"create", ds, "--from", data, "--max-rows-per-file", "300"});
  RunOk({"index", "create", ds, "--name", "price_idx", "--column", "price", "--type", "BTREE"});
  RunOk({"delete", ds, "--where", "id % 5 = 0"});
  const std::string before = RunOk({"scan", ds, "--where", "price < 10", "--format", "csv"});

  const auto files = ListDatasetFiles(ds);
  EXPECT_EQ(RunOk({"compact", ds, "--target-rows-per-fragment", "1000", "--dry-run"}),
            "would rewrite 3 fragments (720 live rows, dropping 180 deleted rows) in 1 group\n"
            "  fragments 0 1 2: 720 live, 180 deleted\n");
  EXPECT_EQ(ListDatasetFiles(ds), files);
  EXPECT_EQ(RunOk({"compact", ds, "--target-rows-per-fragment", "1000"}),
            "rewrote 3 fragments (720 live rows, dropping 180 deleted rows) in 1 group into 1 "
            "fragment: version 4\n"
            "  fragments 0 1 2: 720 live, 180 deleted\n"
            "indexes do not cover the new fragments yet: run `tessera index optimize " +
                ds + "` to index them\n");
  EXPECT_EQ(RunOk({"scan", ds, "--where", "price < 10", "--format", "csv"}), before);
  EXPECT_NE(Run({"count", ds, "--where", "price < 10", "--explain"})
                .err.find("scan (no index answers predicates on price)"),
            std::string::npos);

  const auto compacted_files = ListDatasetFiles(ds);
  EXPECT_EQ(RunOk({"compact", ds, "--target-rows-per-fragment", "1000"}),
            "nothing to compact in version 4 (1 fragment)\n");
  EXPECT_EQ(ListDatasetFiles(ds), compacted_files);

  RunOk({"index", "optimize", ds});
  EXPECT_NE(Run({"count", ds, "--where", "price < 10", "--explain"}).err.find("index 'price_idx'"),
            std::string::npos);
  EXPECT_EQ(RunOk({"scan", ds, "--where", "price < 10", "--format", "csv"}), before);
  // The version before the compaction still reads its own files.
  EXPECT_EQ(RunOk({"scan", ds, "--version", "3", "--where", "price < 10", "--format", "csv"}),
            before);
}

TEST_F(CliCompactTest, OptionsOutOfRangeAreInvalidArgumentBeforeAnyWork) {
  const std::string data = Path("data.arrow");
  const std::string ds = Path("ds");
  RunOk({"gen", data, "--rows", "100", "--dim", "4"});
  RunOk({"create", ds, "--from", data, "--max-rows-per-file", "30"});
  const auto files = ListDatasetFiles(ds);
  EXPECT_NE(RunFails({"compact", ds, "--target-rows-per-fragment", "0"}, "InvalidArgument")
                .find("target_rows_per_fragment must be in [1, 4294967295]"),
            std::string::npos);
  EXPECT_NE(RunFails({"compact", ds, "--max-deleted-fraction", "1.5"}, "InvalidArgument")
                .find("max_deleted_fraction must be in [0, 1]"),
            std::string::npos);
  RunFails({"compact", Path("missing")}, "NotFound");
  EXPECT_EQ(ListDatasetFiles(ds), files);
}

}  // namespace
}  // namespace tessera::testing::cli_compact_test
