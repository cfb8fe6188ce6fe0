// The index lifecycle matrix (docs/design.md, "Index lifecycle"): create, duplicate, case rules,
// if_not_exists, replace, drop, optimize (delta, no-op, merge policy), commit validation, system
// indexes, cleanup, and conflicts with concurrent writers.
#include "tessera/index/lifecycle.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::lifecycle_test {
namespace {

using dataset::Dataset;
using testing::SimpleReader;
using testing::TempDirectory;

std::shared_ptr<Dataset> MakeDataset(const TempDirectory& directory, int64_t rows = 200,
                                     uint64_t rows_per_file = 50) {
  dataset::WriteOptions options;
  options.max_rows_per_file = rows_per_file;
  auto created = Dataset::Create(directory.Child("ds"), SimpleReader(0, rows), options);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return *created;
}

IndexSpec IdIndex(std::string name = "id_idx") { return {std::move(name), "id", "BTREE", {}}; }

size_t CountSegmentDirectories(const TempDirectory& directory) {
  const auto path = std::filesystem::path(directory.Child("ds")) / "_indices";
  if (!std::filesystem::exists(path)) return 0;
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path),
                                           std::filesystem::directory_iterator()));
}

TEST(IndexLifecycle, CreateListsTheIndexWithFullCoverage) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex("Id_Idx"));
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_EQ((*indexed)->version(), 2u);
  auto indexes = ListIndexes(**indexed);
  ASSERT_EQ(indexes.size(), 1u);
  EXPECT_EQ(indexes[0].name, "Id_Idx");  // display case kept
  EXPECT_EQ(indexes[0].column, "id");
  EXPECT_EQ(indexes[0].family, "BTREE");
  EXPECT_EQ(indexes[0].num_segments, 1);
  EXPECT_EQ(indexes[0].indexed_rows, 200u);
  EXPECT_EQ(indexes[0].indexed_fragments, 4u);
  EXPECT_EQ(indexes[0].unindexed_rows, 0u);
  auto described = DescribeIndex(**indexed, "ID_IDX");  // lookups ignore case
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->name, "Id_Idx");
  auto entries = ListSegments(**indexed);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].second.num_rows(), 200u);
  EXPECT_EQ(entries[0].second.dataset_version(), 1u);
  EXPECT_GT(entries[0].second.size_bytes(), 0u);
}

TEST(IndexLifecycle, DuplicateNamesAreRejected) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  auto again = CreateIndex(**indexed, IdIndex());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(KindOf(again.status()), ErrorKind::kAlreadyExists);
  auto by_case = CreateIndex(**indexed, IdIndex("ID_IDX"));
  ASSERT_FALSE(by_case.ok());
  EXPECT_EQ(KindOf(by_case.status()), ErrorKind::kAlreadyExists);
  EXPECT_NE(by_case.status().message().find("only by case"), std::string::npos);
}

TEST(IndexLifecycle, IfNotExistsIsANoOpOnlyForTheSameDefinition) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  CreateIndexOptions options;
  options.if_not_exists = true;
  auto same = CreateIndex(**indexed, IdIndex(), options);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)->version(), (*indexed)->version());
  auto latest = (*indexed)->Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 2u) << "no new version";

  IndexSpec other = IdIndex();
  other.column = "value";
  auto mismatch = CreateIndex(**indexed, other, options);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(KindOf(mismatch.status()), ErrorKind::kDefinitionMismatch);
}

TEST(IndexLifecycle, ReplaceIsAtomicAndOldVersionsKeepOldSegments) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto first = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(first.ok());
  CreateIndexOptions options;
  options.replace = true;
  auto second = CreateIndex(**first, IdIndex(), options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  const auto old_segments = ListSegments(**first);
  const auto new_segments = ListSegments(**second);
  ASSERT_EQ(old_segments.size(), 1u);
  ASSERT_EQ(new_segments.size(), 1u);
  EXPECT_NE(old_segments[0].second.uuid(), new_segments[0].second.uuid());
  auto pinned = Dataset::Open(directory.Child("ds"), (*first)->version());
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(ListSegments(**pinned)[0].second.uuid(), old_segments[0].second.uuid());
}

TEST(IndexLifecycle, DropAndDropIfExists) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  auto dropped = DropIndex(**indexed, "ID_IDX");
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_TRUE(ListIndexes(**dropped).empty());
  auto missing = DropIndex(**dropped, "id_idx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNotFound);
  auto tolerated = DropIndex(**dropped, "id_idx", /*if_exists=*/true);
  ASSERT_TRUE(tolerated.ok());
  EXPECT_EQ((*tolerated)->version(), (*dropped)->version());
}

TEST(IndexLifecycle, OptimizeBuildsADeltaOverExactlyTheNewFragments) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  dataset::WriteOptions write;
  write.max_rows_per_file = 50;
  auto appended = (*indexed)->Append(SimpleReader(200, 70), write);
  ASSERT_TRUE(appended.ok());
  auto before = ListIndexes(**appended);
  EXPECT_EQ(before[0].unindexed_rows, 70u);
  EXPECT_EQ(before[0].unindexed_fragments, 2u);

  dataset::GlobalReadStatistics().Reset();
  OptimizeOptions options;
  options.merge = MergePolicy{MergePolicy::Kind::kNone, 0};
  auto report = OptimizeIndexes(**appended, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), 70u) << "reads only new rows";
  EXPECT_EQ(report->segments_built, 1);
  auto after = ListIndexes(*report->dataset);
  EXPECT_EQ(after[0].num_segments, 2);
  EXPECT_EQ(after[0].unindexed_rows, 0u);
  EXPECT_EQ(after[0].indexed_rows, 270u);
  const auto segments = ListSegments(*report->dataset);
  auto delta = DecodeFragmentBitmap(segments[1].second);
  ASSERT_TRUE(delta.ok());
  EXPECT_EQ(delta->cardinality(), 2u);
  EXPECT_TRUE(delta->contains(4) && delta->contains(5));
}

TEST(IndexLifecycle, ListReportsCoverageAfterAppendsAndDeletes) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);  // 4 fragments of 50 rows
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  auto appended = (*indexed)->Append(SimpleReader(200, 30));
  ASSERT_TRUE(appended.ok());
  // 10 rows of an indexed fragment, 5 of the new one, and all of indexed fragment 3.
  auto deleted =
      (*appended)->Delete("(id >= 0 AND id < 10) OR id >= 225 OR (id >= 150 AND id < 200)");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto indexes = ListIndexes(**deleted);
  ASSERT_EQ(indexes.size(), 1u);
  EXPECT_EQ(indexes[0].indexed_rows, 140u);
  EXPECT_EQ(indexes[0].indexed_fragments, 3u);
  EXPECT_EQ(indexes[0].unindexed_rows, 25u);
  EXPECT_EQ(indexes[0].unindexed_fragments, 1u);
  auto entries = ListSegments(**deleted);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].second.num_rows(), 200u) << "a segment's rows are those it was built over";
}

TEST(IndexLifecycle, OptimizeWithNothingToDoWritesNothing) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  const size_t directories = CountSegmentDirectories(directory);
  auto report = OptimizeIndexes(**indexed);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->dataset->version(), (*indexed)->version());
  auto latest = (*indexed)->Latest();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), (*indexed)->version());
  EXPECT_EQ(CountSegmentDirectories(directory), directories);
}

TEST(IndexLifecycle, AutoMergeKeepsTheSegmentCountBounded) {
  TempDirectory directory;
  auto current = MakeDataset(directory, 40, 40);
  auto indexed = CreateIndex(*current, IdIndex());
  ASSERT_TRUE(indexed.ok());
  current = *indexed;
  size_t most = 0;
  for (int round = 0; round < 20; ++round) {
    auto appended = current->Append(SimpleReader(40 + round * 40, 40));
    ASSERT_TRUE(appended.ok());
    auto report = OptimizeIndexes(**appended);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    current = report->dataset;
    auto indexes = ListIndexes(*current);
    most = std::max(most, static_cast<size_t>(indexes[0].num_segments));
    EXPECT_EQ(indexes[0].unindexed_rows, 0u);
    EXPECT_EQ(indexes[0].indexed_rows, 40u * (round + 2));
  }
  EXPECT_LE(most, 8u);
  EXPECT_LE(ListIndexes(*current)[0].num_segments, 6);
}

TEST(IndexLifecycle, CommitSegmentsValidatesPrecisely) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto a = BuildSegment(*dataset, IdIndex(), {0, 1}, nullptr);
  auto b = BuildSegment(*dataset, IdIndex(), {1, 2}, nullptr);
  auto c = BuildSegment(*dataset, IdIndex(), {3}, nullptr);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.status().ToString();

  auto overlapping = CommitSegments(*dataset, IdIndex(), {*a, *b});
  ASSERT_FALSE(overlapping.ok());
  EXPECT_EQ(KindOf(overlapping.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(overlapping.status().message().find("overlap"), std::string::npos);

  auto duplicate = CommitSegments(*dataset, IdIndex(), {*a, *a});
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.status().message().find("twice"), std::string::npos);

  format::SegmentMeta unknown = *c;
  Roaring fragments;
  fragments.add(99);
  unknown.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  auto unknown_fragment = CommitSegments(*dataset, IdIndex(), {unknown});
  ASSERT_FALSE(unknown_fragment.ok());
  EXPECT_NE(unknown_fragment.status().message().find("fragment 99"), std::string::npos);

  format::SegmentMeta missing = *c;
  missing.set_uuid("00000000-0000-4000-8000-000000000000");
  auto missing_directory = CommitSegments(*dataset, IdIndex(), {missing});
  ASSERT_FALSE(missing_directory.ok());
  EXPECT_EQ(KindOf(missing_directory.status()), ErrorKind::kNotFound);

  IndexSpec other_family = IdIndex();
  other_family.family = "IVF_FLAT";
  other_family.column = "vector";
  auto wrong_family = CommitSegments(*dataset, other_family, {*c});
  ASSERT_FALSE(wrong_family.ok());

  IndexSpec other_params = IdIndex();
  other_params.params["page_rows"] = "64";
  auto wrong_params = CommitSegments(*dataset, other_params, {*c});
  ASSERT_FALSE(wrong_params.ok());
  EXPECT_EQ(KindOf(wrong_params.status()), ErrorKind::kDefinitionMismatch);

  auto good = CommitSegments(*dataset, IdIndex(), {*a, *c});
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(ListIndexes(**good)[0].indexed_fragments, 3u);
  // Adding b now overlaps a, which the index already holds.
  auto late_overlap = CommitSegments(**good, IdIndex(), {*b});
  ASSERT_FALSE(late_overlap.ok());
  EXPECT_NE(late_overlap.status().message().find("overlap"), std::string::npos);
}

TEST(IndexLifecycle, SystemIndexesAreHidden) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex("__internal"));
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_TRUE(ListIndexes(**indexed).empty());
  EXPECT_TRUE(ListSegments(**indexed).empty());
  EXPECT_EQ(ListIndexes(**indexed, /*include_system=*/true).size(), 1u);
}

TEST(IndexLifecycle, AmbiguousPreexistingNamesAreRejectedOnMutation) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex("dup"));
  ASSERT_TRUE(indexed.ok());
  // Another tool wrote two definitions whose names differ only by case.
  format::Manifest manifest = (*indexed)->manifest();
  format::IndexDef copy = manifest.indexes(0);
  copy.set_name("DUP");
  copy.clear_segments();
  *manifest.add_indexes() = copy;
  manifest.set_version(manifest.version() + 1);
  auto storage = (*indexed)->storage();
  ASSERT_TRUE(dataset::TryPublishManifest(*storage, manifest).ValueOrDie());
  auto latest = Dataset::Open(directory.Child("ds"));
  ASSERT_TRUE(latest.ok());
  auto dropped = DropIndex(**latest, "dup");
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(KindOf(dropped.status()), ErrorKind::kAmbiguous);
}

TEST(IndexLifecycle, OverwriteDropsIndexes) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto indexed = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(indexed.ok());
  auto overwritten = (*indexed)->Overwrite(SimpleReader(0, 10));
  ASSERT_TRUE(overwritten.ok());
  EXPECT_TRUE(ListIndexes(**overwritten, true).empty());
}

TEST(IndexLifecycle, CleanupReclaimsReplacedAndOrphanedSegmentsAfterTheRetention) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  auto first = CreateIndex(*dataset, IdIndex());
  ASSERT_TRUE(first.ok());
  CreateIndexOptions replace;
  replace.replace = true;
  auto second = CreateIndex(**first, IdIndex(), replace);
  ASSERT_TRUE(second.ok());
  // An uncommitted segment, as a crashed build leaves behind.
  auto orphan = BuildSegment(**second, IdIndex(), {}, nullptr);
  ASSERT_TRUE(orphan.ok());
  EXPECT_EQ(CountSegmentDirectories(directory), 3u);

  dataset::CleanupOptions keep;
  keep.older_than = std::chrono::hours(1);
  ASSERT_TRUE((*second)->Cleanup(keep).ok());
  EXPECT_EQ(CountSegmentDirectories(directory), 3u) << "young directories are kept";

  dataset::CleanupOptions now;
  now.older_than = std::chrono::seconds(0);
  ASSERT_TRUE((*second)->Cleanup(now).ok());
  EXPECT_EQ(CountSegmentDirectories(directory), 2u)
      << "the replaced segment goes with its version; the orphan stays for the grace period";

  // Files and directories alike, as if the orphan were written two hours ago.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory.path())) {
    std::filesystem::last_write_time(
        entry.path(), std::filesystem::last_write_time(entry.path()) - std::chrono::hours(2));
  }
  auto report = (*second)->Cleanup(now);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(CountSegmentDirectories(directory), 1u);
  auto latest = Dataset::Open(directory.Child("ds"));
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(ListSegments(**latest)[0].second.uuid(), ListSegments(**second)[0].second.uuid());
}

TEST(IndexLifecycle, ConcurrentChangesFollowTheConflictMatrix) {
  TempDirectory directory;
  auto base = MakeDataset(directory);
  // Create racing an append: both land, new fragments are unindexed.
  auto appended = base->Append(SimpleReader(200, 30));
  ASSERT_TRUE(appended.ok());
  auto indexed = CreateIndex(*base, IdIndex());  // from the stale snapshot
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_EQ((*indexed)->version(), 3u);
  EXPECT_EQ(ListIndexes(**indexed)[0].unindexed_rows, 30u);

  // Two creators of one name: the second gets a retryable CommitConflict.
  auto stale = *indexed;
  IndexSpec value_index{"v_idx", "value", "BTREE", {}};
  auto winner = CreateIndex(*stale, value_index);
  ASSERT_TRUE(winner.ok());
  auto loser = CreateIndex(*stale, value_index);
  ASSERT_FALSE(loser.ok());
  EXPECT_EQ(KindOf(loser.status()), ErrorKind::kCommitConflict);
  EXPECT_TRUE(IsRetryable(loser.status()));

  // A create racing an overwrite conflicts.
  auto before_overwrite = *winner;
  ASSERT_TRUE(before_overwrite->Overwrite(SimpleReader(0, 5)).ok());
  auto after = CreateIndex(*before_overwrite, IndexSpec{"n_idx", "name", "BTREE", {}});
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(KindOf(after.status()), ErrorKind::kCommitConflict);
}

}  // namespace
}  // namespace tessera::index::lifecycle_test
