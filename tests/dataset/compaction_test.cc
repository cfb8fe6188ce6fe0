// Compaction (dataset/compaction.h): which fragments a plan rewrites, that a rewrite keeps
// exactly the live rows in their order, that a compaction with nothing to do writes nothing,
// option checks, and the Rewrite column of the conflict matrix (dataset/operation.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/dataset_inspection.h"
#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

namespace tessera::dataset::compaction_test {
namespace {

using testing::AppendSimpleRows;
using testing::CreateSimpleDataset;
using testing::IdRange;
using testing::ScanIds;
using testing::TempDirectory;

CompactionOptions Target(uint64_t rows, double deleted_fraction = kDefaultMaxDeletedFraction) {
  CompactionOptions options;
  options.target_rows_per_fragment = rows;
  options.max_deleted_fraction = deleted_fraction;
  return options;
}

std::vector<int64_t> Without(std::vector<int64_t> ids, int64_t first, int64_t last) {
  std::vector<int64_t> kept;
  for (int64_t id : ids) {
    if (id < first || id > last) kept.push_back(id);
  }
  return kept;
}

TEST(Compaction, SmallFragmentsMergeIntoFragmentsOfTheTargetSizeKeepingRowOrder) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto dataset, CreateSimpleDataset(dir.path(), 100, 10));  // 10 × 10
  ASSERT_OK_AND_ASSIGN(dataset, AppendSimpleRows(*dataset, 100, 50, 50));        // 1 × 50
  ASSERT_OK_AND_ASSIGN(dataset, AppendSimpleRows(*dataset, 150, 30, 10));        // 3 × 10
  ASSERT_OK_AND_ASSIGN(CompactionPlan plan, PlanCompaction(*dataset, Target(40)));
  // Runs of fragments under 40 rows are cut at 40 rows; the 50-row fragment breaks the run.
  ASSERT_EQ(plan.groups.size(), 4u);
  EXPECT_EQ(plan.groups[0].fragment_ids, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(plan.groups[1].fragment_ids, (std::vector<uint32_t>{4, 5, 6, 7}));
  EXPECT_EQ(plan.groups[2].fragment_ids, (std::vector<uint32_t>{8, 9}));
  EXPECT_EQ(plan.groups[3].fragment_ids, (std::vector<uint32_t>{11, 12, 13}));
  EXPECT_EQ(plan.live_rows(), 130u);

  ASSERT_OK_AND_ASSIGN(CompactionResult result, Compact(dataset, Target(40)));
  EXPECT_EQ(result.fragments_written, 4u);
  EXPECT_EQ(result.dataset->version(), dataset->version() + 1);
  EXPECT_EQ(result.dataset->manifest().fragments_size(), 5);
  EXPECT_EQ(result.dataset->manifest().operation(), "compact");
  // In scan order, not only as a set: the new fragments take the old ones' places.
  ASSERT_OK_AND_ASSIGN(auto table, result.dataset->ScanToTable({}));
  EXPECT_EQ(testing::Int64Column(*table, "id"), IdRange(0, 180));
  // The old version still reads its own files.
  ASSERT_OK_AND_ASSIGN(auto old_ids, ScanIds(*dataset));
  EXPECT_EQ(old_ids, IdRange(0, 180));
  // A second compaction finds nothing to do.
  ASSERT_OK_AND_ASSIGN(CompactionPlan again, PlanCompaction(*result.dataset, Target(40)));
  EXPECT_TRUE(again.groups.empty());
}

TEST(Compaction, AFragmentWithManyDeletedRowsIsRewrittenWithoutThem) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto dataset, CreateSimpleDataset(dir.path(), 300, 100));
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Delete("id >= 110 AND id < 130"));  // 20 % of fragment 1
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Delete("id = 250"));                // 1 % of fragment 2
  ASSERT_OK_AND_ASSIGN(CompactionPlan plan, PlanCompaction(*dataset, Target(100, 0.1)));
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].fragment_ids, (std::vector<uint32_t>{1}));
  EXPECT_EQ(plan.groups[0].deleted_rows, 20u);
  ASSERT_OK_AND_ASSIGN(CompactionResult result, Compact(dataset, Target(100, 0.1)));
  const auto& fragments = result.dataset->manifest().fragments();
  ASSERT_EQ(fragments.size(), 3);
  EXPECT_EQ(fragments[1].physical_rows(), 80u);
  EXPECT_FALSE(fragments[1].has_deletion());
  EXPECT_EQ(fragments[1].id(), 3u);          // a new id, in the old fragment's place
  EXPECT_TRUE(fragments[2].has_deletion());  // under the fraction: left alone
  ASSERT_OK_AND_ASSIGN(auto table, result.dataset->ScanToTable({}));
  EXPECT_EQ(testing::Int64Column(*table, "id"),
            Without(Without(IdRange(0, 300), 110, 129), 250, 250));
}

TEST(Compaction, NothingToDoWritesNothing) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto dataset, CreateSimpleDataset(dir.path(), 200, 100));
  const auto files = testing::ListDatasetFiles(dir.path());
  ASSERT_OK_AND_ASSIGN(CompactionResult result, Compact(dataset, Target(100)));
  EXPECT_TRUE(result.plan.groups.empty());
  EXPECT_EQ(result.dataset->version(), dataset->version());
  EXPECT_EQ(testing::ListDatasetFiles(dir.path()), files);
  ASSERT_OK_AND_ASSIGN(auto latest, dataset->Latest());
  EXPECT_EQ(latest->version(), dataset->version());
  // A single small fragment with no deleted row would be rewritten into itself: left alone.
  ASSERT_OK_AND_ASSIGN(result, Compact(dataset, Target(1000)));
  EXPECT_EQ(result.plan.groups.size(), 1u);  // the two fragments merge
  ASSERT_OK_AND_ASSIGN(result, Compact(result.dataset, Target(1000)));
  EXPECT_TRUE(result.plan.groups.empty());
}

TEST(Compaction, OptionsOutOfRangeAreRejectedBeforeAnyWork) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto dataset, CreateSimpleDataset(dir.path(), 20, 10));
  for (const auto& options :
       {Target(0), Target(uint64_t{1} << 32), Target(10, -0.5), Target(10, 1.5),
        Target(10, std::numeric_limits<double>::quiet_NaN())}) {
    auto result = Compact(dataset, options);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument) << result.status().ToString();
  }
  ASSERT_OK_AND_ASSIGN(auto latest, dataset->Latest());
  EXPECT_EQ(latest->version(), dataset->version());
}

TEST(CompactionConflicts, AConcurrentDeleteOfARewrittenFragmentConflictsBothWays) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto base, CreateSimpleDataset(dir.path(), 40, 10));
  // Theirs: a delete in fragment 0; ours: a compaction planned before it.
  ASSERT_OK_AND_ASSIGN(auto deleted, base->Delete("id = 3"));
  auto compacted = Compact(base, Target(100));
  ASSERT_FALSE(compacted.ok());
  EXPECT_EQ(KindOf(compacted.status()), ErrorKind::kCommitConflict);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*deleted));
  EXPECT_EQ(ids, Without(IdRange(0, 40), 3, 3));

  // Theirs: a compaction; ours: a delete planned before it, of a rewritten fragment.
  ASSERT_OK_AND_ASSIGN(CompactionResult result, Compact(deleted, Target(100)));
  auto late_delete = deleted->Delete("id = 17");
  ASSERT_FALSE(late_delete.ok());
  EXPECT_EQ(KindOf(late_delete.status()), ErrorKind::kCommitConflict);
  ASSERT_OK_AND_ASSIGN(auto latest, deleted->Latest());
  EXPECT_EQ(latest->version(), result.dataset->version());
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*latest));
  EXPECT_EQ(ids, Without(IdRange(0, 40), 3, 3));  // no row lost, none silently kept deleted
}

TEST(CompactionConflicts, ACompactionIsCompatibleWithAConcurrentAppendAndDisjointDelete) {
  TempDirectory dir;
  ASSERT_OK_AND_ASSIGN(auto base, CreateSimpleDataset(dir.path(), 40, 10));
  ASSERT_OK_AND_ASSIGN(base, AppendSimpleRows(*base, 40, 100, 100));  // fragment 4, large
  // Theirs: an append and a delete in the large fragment; ours: compacting fragments 0..3.
  ASSERT_OK_AND_ASSIGN(auto appended, AppendSimpleRows(*base, 140, 10, 10));
  ASSERT_OK_AND_ASSIGN(auto deleted, appended->Delete("id = 50"));
  ASSERT_OK_AND_ASSIGN(CompactionResult result, Compact(base, Target(100)));
  EXPECT_EQ(result.plan.groups.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*result.dataset));
  EXPECT_EQ(ids, Without(IdRange(0, 150), 50, 50));
  // Ours: an append planned before the compaction.
  ASSERT_OK_AND_ASSIGN(auto late_append, AppendSimpleRows(*base, 150, 5, 10));
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*late_append));
  EXPECT_EQ(ids.size(), 154u);
}

}  // namespace
}  // namespace tessera::dataset::compaction_test
