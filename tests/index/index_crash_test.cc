// Index builds in separate processes: a build killed after writing its segment and before
// committing leaves no visible index, and cleanup reclaims the segment directory only once it
// is older than the retention and the grace period; concurrent creators of one name leave exactly
// one index.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include "support/child_process.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/io/fault_injection.h"

namespace tessera::index::index_crash_test {
namespace {

using testing::ChildProcess;
using testing::TempDirectory;

size_t SegmentDirectories(const std::string& dataset) {
  const auto path = std::filesystem::path(dataset) / "_indices";
  if (!std::filesystem::exists(path)) return 0;
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path),
                                           std::filesystem::directory_iterator()));
}

TEST(IndexCrash, KilledBuildLeavesNoIndexAndCleanupReclaimsItsDirectory) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto created = dataset::Dataset::Create(path, testing::SimpleReader(0, 500));
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  ChildProcess::Options options;
  options.environment["TESSERA_CRASH_AT"] = std::string(io::kCrashAfterSegmentBuild);
  options.stdout_path = directory.Child("stdout.txt");
  options.stderr_path = directory.Child("stderr.txt");
  ChildProcess child(
      TESSERA_CLI_PATH,
      {"index", "create", path, "--name", "id_idx", "--column", "id", "--type", "BTREE"}, options);
  const auto status = child.Wait(std::chrono::seconds(60));
  ASSERT_TRUE(status.signaled && status.signal == SIGKILL) << status.ToString();

  auto latest = dataset::Dataset::Open(path);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ((*latest)->version(), 1u);
  EXPECT_TRUE(ListIndexes(**latest, /*include_system=*/true).empty());
  ASSERT_EQ(SegmentDirectories(path), 1u) << "the killed build wrote its segment";

  dataset::CleanupOptions retention;
  retention.older_than = std::chrono::hours(1);
  ASSERT_TRUE((*latest)->Cleanup(retention).ok());
  EXPECT_EQ(SegmentDirectories(path), 1u) << "young orphans are kept: a build may be running";
  dataset::CleanupOptions no_retention;
  no_retention.older_than = std::chrono::seconds(0);
  ASSERT_TRUE((*latest)->Cleanup(no_retention).ok());
  EXPECT_EQ(SegmentDirectories(path), 1u)
      << "whatever the retention, orphans younger than the grace period are kept";

  // Age files and directories alike, as if the crash happened two hours ago.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    std::filesystem::last_write_time(
        entry.path(), std::filesystem::last_write_time(entry.path()) - std::chrono::hours(2));
  }
  auto report = (*latest)->Cleanup(retention);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(SegmentDirectories(path), 0u);

  auto indexed = CreateIndex(**latest, {"id_idx", "id", "BTREE", {}});
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_EQ(ListIndexes(**indexed)[0].indexed_rows, 500u);
}

// Four processes create one index name at once: exactly one wins; every other fails with a
// typed error — CommitConflict when it planned on the version before the winner's commit,
// AlreadyExists when it started after it — and the dataset holds one index.
TEST(IndexConcurrency, ProcessesCreatingOneNameHaveOneWinner) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto created = dataset::Dataset::Create(path, testing::SimpleReader(0, 100000, 4, 10000));
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  std::vector<ChildProcess> children;
  for (int i = 0; i < 4; ++i) {
    ChildProcess::Options options;
    options.stdout_path = directory.Child("stdout" + std::to_string(i));
    options.stderr_path = directory.Child("stderr" + std::to_string(i));
    children.emplace_back(TESSERA_CLI_PATH,
                          std::vector<std::string>{"index", "create", path, "--name", "same",
                                                   "--column", "id", "--type", "BTREE"},
                          options);
  }
  int winners = 0;
  for (int i = 0; i < 4; ++i) {
    const auto status = children[static_cast<size_t>(i)].Wait(std::chrono::seconds(120));
    ASSERT_TRUE(status.exited) << status.ToString();
    if (status.code == 0) {
      ++winners;
      continue;
    }
    const std::string error = testing::ReadTextFile(directory.Child("stderr" + std::to_string(i)));
    EXPECT_TRUE(error.rfind("error: CommitConflict:", 0) == 0 ||
                error.rfind("error: AlreadyExists:", 0) == 0)
        << error;
  }
  EXPECT_EQ(winners, 1);
  auto latest = dataset::Dataset::Open(path);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 2u);
  ASSERT_EQ(ListIndexes(**latest).size(), 1u);
  EXPECT_EQ(ListIndexes(**latest)[0].indexed_rows, 100000u);
}

}  // namespace
}  // namespace tessera::index::index_crash_test
