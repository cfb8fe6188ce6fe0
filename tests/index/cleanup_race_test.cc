// Cleanup racing writers (issue 9, finding 3): a child process runs cleanup with a retention of
// 0s in a loop while this process appends, deletes, builds BTREE and IVF_FLAT indexes and
// optimizes them. The grace period keeps every write in flight safe: afterwards every write
// that reported success is present, every committed segment has all its files, and scans and
// searches through the indexes work.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/child_process.h"
#include "support/dataset_inspection.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/writer_helper.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/filtered_scan.h"
#include "tessera/query/nearest.h"

namespace tessera::index::cleanup_race_test {
namespace {

using testing::ChildProcess;
using testing::TempDirectory;

// Every file a segment of a committed index needs, present.
void ExpectSegmentsComplete(const dataset::Dataset& snapshot) {
  for (const auto& [index, segment] : ListSegments(snapshot)) {
    const IndexFamily* family = FindFamily(segment.family());
    ASSERT_NE(family, nullptr) << segment.family();
    for (const auto& file : family->RequiredFiles(segment)) {
      const auto path = std::filesystem::path(snapshot.uri()) / SegmentPath(segment.uuid()) / file;
      EXPECT_TRUE(std::filesystem::exists(path))
          << "index '" << index << "' was committed without " << path;
    }
  }
}

TEST(CleanupRace, ZeroRetentionCleanupLoopLosesNoWrite) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto snapshot,
                       dataset::Dataset::Create(path, testing::SimpleReader(0, 200)));
  std::set<int64_t> expected;
  for (int64_t id = 0; id < 200; ++id) expected.insert(id);

  ChildProcess::Options child_options;
  child_options.stdout_path = directory.Child("cleanup.out");
  child_options.stderr_path = directory.Child("cleanup.err");
  const std::string stop = directory.Child("stop");
  const std::string ready = directory.Child("ready");
  ChildProcess cleaner(testing::WriterProgram(),
                       {"cleanup", path, "--until", stop, "--ready", ready}, child_options);
  ASSERT_TRUE(testing::WaitForFiles({ready}, std::chrono::seconds(60))) << cleaner.Stderr();

  // Several data files per append widen the window between a write's first file and its commit.
  dataset::WriteOptions small_files;
  small_files.max_rows_per_file = 16;
  IndexSpec btree{"id_idx", "id", "BTREE", {{"page_rows", "16"}}};
  IndexSpec ivf{"vector_idx", "vector", "IVF_FLAT", {{"num_partitions", "4"}, {"max_iters", "5"}}};
  int failed_writes = 0;
  auto note = [&](const arrow::Status& status, const std::string& what) {
    // A write may fail with a typed error; it must then have committed nothing (checked by the
    // row count below). Under the grace period none should fail at all.
    EXPECT_TRUE(status.ok()) << what << ": " << status.ToString();
    if (!status.ok()) ++failed_writes;
  };
  for (int step = 0; step < 15; ++step) {
    const int64_t first = 1000 + step * 50;
    auto appended = snapshot->Append(testing::SimpleReader(first, 50), small_files);
    note(appended.status(), "append " + std::to_string(step));
    if (appended.ok()) {
      snapshot = *appended;
      for (int64_t id = first; id < first + 50; ++id) expected.insert(id);
    }
    if (step % 3 == 2) {
      // Rows of the last append and of the first fragment: new deletion files for both.
      const int64_t from = first + 10;
      const std::string filter = "(id >= " + std::to_string(from) + " AND id < " +
                                 std::to_string(from + 5) + ") OR id = " + std::to_string(step);
      auto deleted = snapshot->Delete(filter);
      note(deleted.status(), "delete " + filter);
      if (deleted.ok()) {
        snapshot = *deleted;
        for (int64_t id = from; id < from + 5; ++id) expected.erase(id);
        expected.erase(step);
      }
    }
    if (step == 3 || step == 6) {
      const IndexSpec& spec = step == 3 ? btree : ivf;
      auto indexed = CreateIndex(*snapshot, spec);
      note(indexed.status(), "index create " + spec.name);
      if (indexed.ok()) snapshot = *indexed;
    }
    if (step == 9 || step == 14) {
      auto optimized = OptimizeIndexes(*snapshot);
      note(optimized.status(), "optimize");
      if (optimized.ok()) snapshot = optimized->dataset;
    }
  }
  std::FILE* stop_file = std::fopen(stop.c_str(), "w");
  ASSERT_NE(stop_file, nullptr);
  std::fclose(stop_file);
  const auto status = cleaner.Wait(std::chrono::seconds(60));
  ASSERT_TRUE(status.Succeeded()) << status.ToString() << ": " << cleaner.Stderr();
  const auto events = testing::ParseWriterEvents(cleaner.Stdout());
  ASSERT_EQ(events.size(), 1u) << cleaner.Stdout();
  EXPECT_GE(events[0].Integer("runs"), 1);
  EXPECT_GE(events[0].Integer("removed_versions"), 1) << "cleanup really ran meanwhile";

  // Every write that reported success is there, and nothing else.
  ASSERT_OK_AND_ASSIGN(auto latest, dataset::Dataset::Open(path));
  EXPECT_EQ(latest->version(), snapshot->version());
  ASSERT_OK_AND_ASSIGN(auto ids, testing::ScanIds(*latest));
  EXPECT_EQ(ids, std::vector<int64_t>(expected.begin(), expected.end()));
  EXPECT_EQ(latest->CountRows(), expected.size());

  // Every committed index is complete and answers.
  ASSERT_EQ(ListIndexes(*latest).size(), 2u);
  ExpectSegmentsComplete(*latest);
  dataset::ScanOptions range;
  range.filter = "id >= 1000 AND id < 1100";
  range.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto scanned, query::Scan(*latest, range));
  const auto in_range = std::count_if(expected.begin(), expected.end(),
                                      [](int64_t id) { return id >= 1000 && id < 1100; });
  EXPECT_EQ(scanned->num_rows(), in_range);
  const int64_t probe = *expected.rbegin();
  query::NearestOptions nearest;
  nearest.column = "vector";
  nearest.query = {static_cast<float>(probe), static_cast<float>(probe + 1),
                   static_cast<float>(probe + 2), static_cast<float>(probe + 3)};
  nearest.k = 1;
  nearest.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto found, query::Nearest(*latest, nearest));
  ASSERT_EQ(found->num_rows(), 1);
  EXPECT_EQ(testing::Int64Column(*found, "id")[0], probe);
  EXPECT_EQ(failed_writes, 0);
}

}  // namespace
}  // namespace tessera::index::cleanup_race_test
