// The planner's cost choice (filter_plan.h, PlanPurpose): on a large segment an index answers a
// leaf only while its answer costs less than scanning, and the share of rows where that holds is
// smaller when only the rows are wanted (delete, prefilters, counts of several predicates) than
// when their columns are read, and smaller with more threads. A count of one predicate the
// BTREE answers is counted from its pages at any share (query/segment_count.h). Whichever plan
// is chosen, the rows are those of the unindexed read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/expr/filter.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/segment_cache.h"
#include "tessera/util/thread_pool.h"

namespace tessera::query::plan_cost_test {
namespace {

// One fragment, one segment, large enough that a BTREE's estimates (whole pages of 4,096 rows)
// fall on either side of both purposes' shares at one and two threads.
constexpr int64_t kRows = 1'000'000;

// The dataset is made once for the suite (a million rows take seconds under sanitizers).
class PlanCost : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = new testing::TempDirectory();
    auto plain =
        testing::CreateSimpleDataset(directory_->Child("ds"), kRows, static_cast<uint64_t>(kRows));
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    plain_ = *plain;
    auto indexed = testing::AddBtree(*plain_, "id_idx", "id");
    ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
    indexed_ = *indexed;
    auto zoned = index::CreateIndex(*indexed_, {"id_zones", "id", "ZONEMAP", {}});
    ASSERT_TRUE(zoned.ok()) << zoned.status().ToString();
    zoned_ = *zoned;
  }
  static void TearDownTestSuite() {
    plain_.reset();
    indexed_.reset();
    zoned_.reset();
    delete directory_;
    directory_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(indexed_, nullptr) << "the suite's dataset was not made"; }

  struct Outcome {
    std::vector<int64_t> ids;
    uint64_t count = 0;
    std::string read_plan;
    std::string count_plan;
    std::string find_plan;  // FindMatchingRows: what a delete or a prefilter plans
  };

  Outcome Run(const dataset::Dataset& version, const std::string& filter) const {
    auto snapshot = Snapshot::Make(std::shared_ptr<const dataset::Dataset>(
                                       std::shared_ptr<const dataset::Dataset>(), &version),
                                   &cache_);
    Outcome outcome;
    dataset::ScanOptions options;
    options.filter = filter;
    options.columns = {"id"};
    Explain read_explain;
    auto reader = Read(snapshot, options, &read_explain);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return outcome;
    auto table = testing::ReadAll(**reader);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (table.ok()) outcome.ids = testing::Int64Column(**table, "id");
    Explain count_explain;
    auto count = Count(*snapshot, filter, &count_explain);
    EXPECT_TRUE(count.ok()) << count.status().ToString();
    outcome.count = count.ok() ? *count : 0;
    outcome.read_plan = read_explain.ToString();
    outcome.count_plan = count_explain.ToString();
    auto parsed = expr::Filter::Parse(filter, snapshot->schema());
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (!parsed.ok()) return outcome;
    Explain find_explain;
    EXPECT_OK(FindMatchingRows(*snapshot, **parsed, &find_explain).status());
    outcome.find_plan = find_explain.ToString();
    return outcome;
  }

  static inline testing::TempDirectory* directory_ = nullptr;
  static inline std::shared_ptr<dataset::Dataset> plain_;
  static inline std::shared_ptr<dataset::Dataset> indexed_;  // + BTREE id_idx
  static inline std::shared_ptr<dataset::Dataset> zoned_;    // + ZONEMAP id_zones
  mutable SegmentCache cache_{uint64_t{1} << 30};
};

bool UsesIndex(const std::string& plan, const std::string& index = "BTREE index 'id_idx'") {
  return plan.find(index) != std::string::npos;
}

TEST_F(PlanCost, AHalfSelectivePredicateIsScannedAndExplainSaysWhy) {
  const std::string filter = "id < " + std::to_string(kRows / 2);
  const Outcome indexed = Run(*indexed_, filter);
  const Outcome plain = Run(*plain_, filter);
  EXPECT_FALSE(UsesIndex(indexed.read_plan)) << indexed.read_plan;
  EXPECT_FALSE(UsesIndex(indexed.find_plan)) << indexed.find_plan;
  EXPECT_NE(indexed.count_plan.find("BTREE index 'id_idx' counts 'id < 500000' from its 1 "
                                    "segment's metadata (500000 rows)"),
            std::string::npos)
      << indexed.count_plan;
  const int threads = util::NumThreads();
  const std::string on = " on " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  EXPECT_NE(indexed.read_plan.find("index 'id_idx' not used for 'id < 500000': it would answer "
                                   "about"),
            std::string::npos)
      << indexed.read_plan;
  EXPECT_NE(indexed.read_plan.find("more than a scan" + on + " costs"), std::string::npos)
      << indexed.read_plan;
  EXPECT_NE(indexed.find_plan.find("more than evaluating the filter" + on + " costs"),
            std::string::npos)
      << indexed.find_plan;
  EXPECT_EQ(indexed.ids, plain.ids);
  EXPECT_EQ(indexed.count, plain.count);
  EXPECT_EQ(indexed.count, static_cast<uint64_t>(kRows / 2));
}

TEST_F(PlanCost, ASelectivePredicateIsAnsweredByTheIndexForEveryPurpose) {
  const std::string filter = "id < 400";  // one BTREE page: below every share at 1 or 2 threads
  const Outcome indexed = Run(*indexed_, filter);
  const Outcome plain = Run(*plain_, filter);
  EXPECT_TRUE(UsesIndex(indexed.read_plan)) << indexed.read_plan;
  EXPECT_TRUE(UsesIndex(indexed.count_plan)) << indexed.count_plan;
  EXPECT_TRUE(UsesIndex(indexed.find_plan)) << indexed.find_plan;
  EXPECT_EQ(indexed.ids, plain.ids);
  EXPECT_EQ(indexed.count, 400u);
  EXPECT_EQ(plain.count, 400u);
}

// Between the two shares (1/32 and 1/100 of the rows per thread) a read uses the index while
// finding the rows evaluates the filter: finding rows by scanning is much cheaper than reading
// them. 1 %
// (estimated 12,288 rows, three pages) is between them at one thread (31,250 and 10,000) and at
// two (15,625 and 5,000).
TEST_F(PlanCost, FindingRowsScansWhereAReadStillUsesTheIndex) {
  // With more threads both shares fall under one BTREE page of this segment (CI has two cores;
  // TESSERA_NUM_THREADS=2 runs this anywhere).
  if (util::NumThreads() > 2) GTEST_SKIP() << "the shares below are those of one or two threads";
  const int64_t matches = kRows / 100;
  const std::string filter = "id < " + std::to_string(matches);
  const Outcome indexed = Run(*indexed_, filter);
  const Outcome plain = Run(*plain_, filter);
  EXPECT_TRUE(UsesIndex(indexed.read_plan)) << indexed.read_plan;
  EXPECT_FALSE(UsesIndex(indexed.find_plan)) << indexed.find_plan;
  EXPECT_EQ(indexed.ids, plain.ids);
  EXPECT_EQ(indexed.count, static_cast<uint64_t>(matches));
  EXPECT_EQ(plain.count, static_cast<uint64_t>(matches));
}

// Zones answer runs of consecutive rows, which are read as ranges: on sorted ids a ZONEMAP
// answers 10 % of the rows of a read (more than a BTREE may: 1/32 per thread) and finding the
// rows still evaluates the filter (1/16 per thread for runs).
TEST_F(PlanCost, ZonesMayAnswerALargerShareThanScatteredRows) {
  if (util::NumThreads() > 2) GTEST_SKIP() << "the shares below are those of one or two threads";
  const std::string filter = "id < " + std::to_string(kRows / 10);
  const Outcome outcome = Run(*zoned_, filter);
  const Outcome plain = Run(*plain_, filter);
  EXPECT_FALSE(UsesIndex(outcome.read_plan)) << outcome.read_plan;
  EXPECT_TRUE(UsesIndex(outcome.read_plan, "ZONEMAP index 'id_zones'")) << outcome.read_plan;
  EXPECT_FALSE(UsesIndex(outcome.find_plan, "ZONEMAP index 'id_zones'")) << outcome.find_plan;
  EXPECT_EQ(outcome.ids, plain.ids);
  EXPECT_EQ(outcome.count, static_cast<uint64_t>(kRows / 10));
}

}  // namespace
}  // namespace tessera::query::plan_cost_test
