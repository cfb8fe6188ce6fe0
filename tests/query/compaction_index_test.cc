// Indexes across compaction (dataset/compaction.h): every family's answers stay exactly the
// unindexed scan's after fragments are rewritten, merged and optimized, and a compaction killed
// with SIGKILL at a random moment leaves the last committed version, all its rows and every
// index answer intact.
//
// The first test is the shape in which other engines' scalar indexes were seen to return no
// rows: build an index, append, optimize into several segments, compact, merge, query.
#include <arrow/api.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.h"
#include "support/mixed_filters.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/explain.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace tessera::query::compaction_index_test {
namespace {

using testing::MixedFilterBatch;
using testing::PredicateGenerator;
using testing::ReaderOf;
using testing::SmallFiles;
using testing::TempDirectory;

const arrow::EqualOptions kNansEqual = arrow::EqualOptions::Defaults().nans_equal(true);

// One index of every shipped scalar family, on the columns of MixedFilterSchema it fits.
const std::vector<index::IndexSpec>& EveryScalarFamily() {
  static const std::vector<index::IndexSpec> specs = {
      {"i64_btree", "i64", "BTREE", {{"page_rows", "16"}}},
      {"s_btree", "s", "BTREE", {}},
      {"id_zonemap", "id", "ZONEMAP", {{"rows_per_zone", "32"}}},
      {"ts_bloom", "ts", "BLOOMFILTER", {{"rows_per_zone", "32"}}},
      {"s_ngram", "s", "NGRAM", {{"n", "2"}}},
      {"i64_bitmap", "i64", "BITMAP", {{"max_cardinality", "64"}}},
      {"tags_labels", "tags", "LABEL_LIST", {}},
  };
  return specs;
}

// Reads, counts and row finding through the indexes equal the unindexed path for `queries`
// random predicates on the indexed columns.
void ExpectIndexesAgreeWithTheScan(const std::shared_ptr<dataset::Dataset>& dataset,
                                   std::mt19937_64& random, int queries, int* indexed = nullptr) {
  PredicateGenerator generator(random);
  const auto snapshot = Snapshot::Make(dataset);
  const auto& specs = EveryScalarFamily();
  for (int query = 0; query < queries; ++query) {
    const auto& first = specs[random() % specs.size()];
    const auto& second = specs[random() % specs.size()];
    dataset::ScanOptions options;
    options.filter = "(" + generator.LeafOn(first.column) + ")" +
                     (random() % 2 == 0 ? " AND " : " OR ") + "(" +
                     generator.LeafOn(second.column) + ")";
    options.with_row_address = true;
    SCOPED_TRACE(options.filter);
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto reader, Read(snapshot, options, &explain));
    ASSERT_OK_AND_ASSIGN(auto table, reader->ToTable());
    ASSERT_OK_AND_ASSIGN(auto plain, dataset->ScanToTable(options));
    ASSERT_TRUE(table->Equals(*plain, kNansEqual))
        << explain.ToString() << table->num_rows() << " rows vs " << plain->num_rows();
    ASSERT_OK_AND_ASSIGN(uint64_t counted, Count(*snapshot, options.filter));
    ASSERT_EQ(counted, static_cast<uint64_t>(plain->num_rows()));
    if (indexed != nullptr && explain.ToString().find(" index '") != std::string::npos) {
      ++*indexed;
    }
  }
}

size_t SegmentCount(const dataset::Dataset& dataset) {
  size_t segments = 0;
  for (const auto& definition : dataset.manifest().indexes()) {
    segments += static_cast<size_t>(definition.segments_size());
  }
  return segments;
}

TEST(CompactionWithIndexes, BuildAppendOptimizeCompactMergeQueryEqualsTheScan) {
  TempDirectory directory;
  std::mt19937_64 random(7);
  ASSERT_OK_AND_ASSIGN(auto dataset, dataset::Dataset::Create(
                                         directory.Child("data"),
                                         ReaderOf(MixedFilterBatch(random, 0, 600)), SmallFiles()));
  for (const auto& spec : EveryScalarFamily()) {
    ASSERT_OK_AND_ASSIGN(dataset, index::CreateIndex(*dataset, spec));
  }
  // Appends and optimizes without merging: several segments per index.
  int64_t next_id = 600;
  index::OptimizeOptions no_merge;
  ASSERT_OK_AND_ASSIGN(no_merge.merge, index::MergePolicy::Parse("none"));
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(
        dataset, dataset->Append(ReaderOf(MixedFilterBatch(random, next_id, 150)), SmallFiles()));
    next_id += 150;
    ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*dataset, no_merge));
    dataset = report.dataset;
  }
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Delete("id % 3 = 0 AND id < 400", SmallFiles()));
  ASSERT_GE(SegmentCount(*dataset), 4 * EveryScalarFamily().size());

  dataset::CompactionOptions compaction;
  compaction.target_rows_per_fragment = 500;
  ASSERT_OK_AND_ASSIGN(auto compacted, dataset::Compact(dataset, compaction, SmallFiles()));
  ASSERT_GE(compacted.plan.fragments(), 4u);
  dataset = compacted.dataset;
  // The rewritten rows are unindexed now, and the indexes still answer exactly.
  ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(dataset, random, 30));
  for (const auto& summary : index::ListIndexes(*dataset)) {
    EXPECT_GT(summary.unindexed_fragments, 0u) << summary.name;
  }

  // Merge every segment of every index, then index the new fragments.
  index::OptimizeOptions merge_all;
  ASSERT_OK_AND_ASSIGN(merge_all.merge, index::MergePolicy::Parse("1"));
  ASSERT_OK_AND_ASSIGN(auto merged, index::OptimizeIndexes(*dataset, merge_all));
  dataset = merged.dataset;
  int indexed = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(dataset, random, 60, &indexed));
  for (const auto& summary : index::ListIndexes(*dataset)) {
    EXPECT_EQ(summary.unindexed_fragments, 0u) << summary.name;
  }
  EXPECT_GT(indexed, 20);
  // A second compaction after the merge, and a query again.
  compaction.target_rows_per_fragment = 2000;
  ASSERT_OK_AND_ASSIGN(compacted, dataset::Compact(dataset, compaction, SmallFiles()));
  ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(compacted.dataset, random, 30));
}

TEST(CompactionWithIndexes, ASegmentLeftWithNoLiveFragmentLeavesItsIndex) {
  TempDirectory directory;
  std::mt19937_64 random(8);
  ASSERT_OK_AND_ASSIGN(auto dataset, dataset::Dataset::Create(
                                         directory.Child("data"),
                                         ReaderOf(MixedFilterBatch(random, 0, 400)), SmallFiles()));
  ASSERT_OK_AND_ASSIGN(dataset, index::CreateIndex(*dataset, EveryScalarFamily()[0]));
  ASSERT_OK_AND_ASSIGN(dataset,
                       dataset->Append(ReaderOf(MixedFilterBatch(random, 400, 100)), SmallFiles()));
  ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*dataset));  // a delta segment
  dataset = report.dataset;
  ASSERT_EQ(dataset->manifest().indexes(0).segments_size(), 2);
  dataset::CompactionOptions compaction;
  compaction.target_rows_per_fragment = 10000;  // everything into one fragment
  ASSERT_OK_AND_ASSIGN(auto compacted, dataset::Compact(dataset, compaction, SmallFiles()));
  EXPECT_EQ(compacted.dataset->manifest().fragments_size(), 1);
  EXPECT_EQ(compacted.dataset->manifest().indexes(0).segments_size(), 0);
  ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(compacted.dataset, random, 10));
  // The old version keeps its segments and its answers.
  ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(dataset, random, 10));
}

// kill -9 at random moments of `tessera compact`: the dataset opens at the version before or
// after it, with every row in order and every index answer equal to the scan's, and compacts
// again afterwards.
TEST(CompactionCrash, KilledAtRandomMomentsLeavesACommittedVersionWithCorrectIndexes) {
  TempDirectory directory;
  std::mt19937_64 random(9);
  const std::string base_path = directory.Child("base");
  ASSERT_OK_AND_ASSIGN(
      auto base, dataset::Dataset::Create(base_path, ReaderOf(MixedFilterBatch(random, 0, 1200)),
                                          SmallFiles()));
  for (const auto& spec : EveryScalarFamily()) {
    ASSERT_OK_AND_ASSIGN(base, index::CreateIndex(*base, spec));
  }
  ASSERT_OK_AND_ASSIGN(base, base->Delete("id % 4 = 1", SmallFiles()));
  ASSERT_OK_AND_ASSIGN(auto expected, base->ScanToTable({}));
  const uint64_t before = base->version();
  const std::vector<std::string> arguments = {"compact", "", "--target-rows-per-fragment", "500"};

  // How long an uninterrupted compaction takes, to spread the kills over it.
  auto run = [&](const std::string& path) {
    std::filesystem::remove_all(path);
    std::filesystem::copy(base_path, path, std::filesystem::copy_options::recursive);
    std::vector<std::string> args = arguments;
    args[1] = path;
    testing::ChildProcess::Options options;
    options.stdout_path = path + ".out";
    options.stderr_path = path + ".err";
    return testing::ChildProcess(TESSERA_CLI_PATH, args, options);
  };
  const auto start = std::chrono::steady_clock::now();
  {
    auto child = run(directory.Child("calibration"));
    ASSERT_TRUE(child.Wait(std::chrono::seconds(60)).Succeeded()) << child.Stderr();
  }
  const auto duration = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);

  // bench/compaction_crash.sh runs more trials through TESSERA_COMPACTION_CRASH_TRIALS.
  const char* configured = std::getenv("TESSERA_COMPACTION_CRASH_TRIALS");
  const int kTrials = configured != nullptr ? std::max(2, std::atoi(configured)) : 100;
  int committed = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const std::string path = directory.Child("trial");
    auto child = run(path);
    const auto delay = std::chrono::microseconds(
        random() % static_cast<uint64_t>(std::max<int64_t>(1, duration.count() * 12 / 10)));
    std::this_thread::sleep_for(delay);
    ::kill(child.pid(), SIGKILL);
    const testing::ExitStatus status = child.Wait(std::chrono::seconds(60));
    ASSERT_TRUE(status.signaled || status.Succeeded()) << status.ToString();
    ASSERT_OK_AND_ASSIGN(auto reopened, dataset::Dataset::Open(path));
    ASSERT_TRUE(reopened->version() == before || reopened->version() == before + 1)
        << reopened->version();
    committed += reopened->version() == before + 1 ? 1 : 0;
    ASSERT_OK_AND_ASSIGN(auto rows, reopened->ScanToTable({}));
    ASSERT_TRUE(rows->Equals(*expected, kNansEqual))
        << rows->num_rows() << " rows vs " << expected->num_rows();
    ASSERT_NO_FATAL_FAILURE(ExpectIndexesAgreeWithTheScan(reopened, random, 3));
    if (trial % 10 == 0) {
      // The leftovers of the dead writer do not disturb the next compaction.
      dataset::CompactionOptions options;
      options.target_rows_per_fragment = 500;
      ASSERT_OK_AND_ASSIGN(auto again, dataset::Compact(reopened, options, SmallFiles()));
      ASSERT_OK_AND_ASSIGN(rows, again.dataset->ScanToTable({}));
      ASSERT_TRUE(rows->Equals(*expected, kNansEqual));
    }
  }
  // The kills fell before and after the commit.
  EXPECT_GT(committed, 0);
  EXPECT_LT(committed, kTrials);
  std::printf("[ compaction crash ] %d kills, %d after the commit (compaction takes %lld us)\n",
              kTrials, committed, static_cast<long long>(duration.count()));
}

}  // namespace
}  // namespace tessera::query::compaction_index_test
