// The files of index segments at commit (index/segment_files.h): every family names the files
// its segments need; a commit whose new segment lacks one publishes nothing (issue 9, finding
// 3: indexes committed without their partitions.arrow); a build whose commit fails removes its
// segment, a segment handed in by the caller is left for it to commit again.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/format/paths.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::segment_files_test {
namespace {

using dataset::Dataset;
using testing::TempDirectory;

std::shared_ptr<Dataset> MakeDataset(const TempDirectory& directory) {
  dataset::WriteOptions options;
  options.max_rows_per_file = 100;
  auto created = Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 300), options);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return *created;
}

std::set<std::string> FilesOf(const Dataset& dataset, const format::SegmentMeta& segment) {
  std::set<std::string> names;
  const auto path = std::filesystem::path(dataset.uri()) / SegmentPath(segment.uuid());
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

size_t SegmentDirectories(const Dataset& dataset) {
  const auto path = std::filesystem::path(dataset.uri()) / format::kIndicesDir;
  if (!std::filesystem::exists(path)) return 0;
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path),
                                           std::filesystem::directory_iterator()));
}

const std::vector<IndexSpec>& Specs() {
  static const std::vector<IndexSpec> specs = {
      {"id_idx", "id", "BTREE", {}},
      {"value_idx", "value", "BTREE", {}},  // float: also a NaN list
      {"value_zones", "value", "ZONEMAP", {}},
      {"name_bloom", "name", "BLOOMFILTER", {}},
      {"flat_idx", "vector", "IVF_FLAT", {{"num_partitions", "4"}}},
      {"sq_idx", "vector", "IVF_SQ", {{"num_partitions", "4"}}},
      {"pq_idx", "vector", "IVF_PQ", {{"num_partitions", "4"}, {"num_sub_vectors", "2"}}},
      {"rq_idx", "vector", "IVF_RQ", {{"num_partitions", "4"}, {"num_bits", "2"}}},
      {"hnsw_idx", "vector", "IVF_HNSW_SQ", {{"num_partitions", "4"}, {"m", "4"}}},
  };
  return specs;
}

TEST(SegmentFiles, EveryFamilyNamesExactlyTheFilesItsBuildWrites) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  for (const auto& spec : Specs()) {
    ASSERT_OK_AND_ASSIGN(auto segment, BuildSegment(*dataset, spec, {}, nullptr));
    const auto required = GetFamily(spec.family).ValueOrDie()->RequiredFiles(segment);
    EXPECT_EQ(std::set<std::string>(required.begin(), required.end()), FilesOf(*dataset, segment))
        << spec.family << " on " << spec.column;
  }
}

// For every family and each file its segment needs: removed between the build and the commit,
// the commit fails with a retryable CommitConflict naming it and publishes nothing.
TEST(SegmentFiles, CommitOfASegmentMissingAFilePublishesNothing) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  for (const auto& spec : Specs()) {
    ASSERT_OK_AND_ASSIGN(auto probe, BuildSegment(*dataset, spec, {}, nullptr));
    for (const auto& file : GetFamily(spec.family).ValueOrDie()->RequiredFiles(probe)) {
      ASSERT_OK_AND_ASSIGN(auto segment, BuildSegment(*dataset, spec, {}, nullptr));
      const std::string relative = SegmentPath(segment.uuid()) + "/" + file;
      std::filesystem::remove(std::filesystem::path(dataset->uri()) / relative);
      auto committed = CommitSegments(*dataset, spec, {segment});
      ASSERT_FALSE(committed.ok()) << spec.family << " without " << file;
      EXPECT_EQ(KindOf(committed.status()), ErrorKind::kCommitConflict)
          << committed.status().ToString();
      EXPECT_TRUE(IsRetryable(committed.status()));
      EXPECT_NE(committed.status().message().find(relative), std::string::npos)
          << committed.status().ToString();
      ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(dataset->uri()));
      EXPECT_EQ(latest->version(), 1u);
      // Handed in by the caller: its directory stays.
      EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dataset->uri()) /
                                          SegmentPath(segment.uuid())));
    }
  }
}

// A create that loses to a concurrent create of the same name removes the segment it built.
TEST(SegmentFiles, CreateThatLosesItsCommitRemovesItsSegment) {
  TempDirectory directory;
  auto stale = MakeDataset(directory);
  const IndexSpec spec{"id_idx", "id", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(auto winner, CreateIndex(*stale, spec));
  ASSERT_EQ(SegmentDirectories(*winner), 1u);
  auto loser = CreateIndex(*stale, spec);
  ASSERT_FALSE(loser.ok());
  EXPECT_EQ(KindOf(loser.status()), ErrorKind::kCommitConflict);
  EXPECT_EQ(SegmentDirectories(*winner), 1u) << "the loser's segment must not wait for cleanup";
}

// Optimize builds a delta and merges it away in one run: the intermediate never outlives it.
TEST(SegmentFiles, OptimizeLeavesOnlyTheSegmentsItCommits) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  const IndexSpec spec{"id_idx", "id", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(auto indexed, CreateIndex(*dataset, spec));
  ASSERT_OK_AND_ASSIGN(auto appended, indexed->Append(testing::SimpleReader(300, 50)));
  OptimizeOptions options;
  ASSERT_OK_AND_ASSIGN(options.merge, MergePolicy::Parse("1"));
  ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*appended, options));
  EXPECT_EQ(report.segments_built, 1);
  ASSERT_EQ(ListSegments(*report.dataset).size(), 1u);
  // The first segment (referenced by older versions) and the merged one; not the delta.
  EXPECT_EQ(SegmentDirectories(*report.dataset), 2u);
}

}  // namespace
}  // namespace tessera::index::segment_files_test
