// Cleanup removes old versions and unreferenced files past the retention, never the latest
// version and never what a retained version references.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <filesystem>

#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/status.h"

namespace tessera::dataset {
namespace {

using testing::SimpleReader;
using testing::TempDirectory;

size_t CountFiles(const std::string& directory) {
  if (!std::filesystem::exists(directory)) return 0;
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    count += entry.is_regular_file() ? 1 : 0;
  }
  return count;
}

// Ages every file under `root` by `seconds`, as if written that long ago.
void AgeFiles(const std::string& root, int seconds) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    auto time = std::filesystem::last_write_time(entry.path());
    std::filesystem::last_write_time(entry.path(), time - std::chrono::seconds(seconds));
  }
}

TEST(DatasetCleanup, KeepsEverythingYoungerThanTheRetention) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto v1 = Dataset::Create(path, SimpleReader(0, 10));
  ASSERT_TRUE(v1.ok());
  auto v2 = (*v1)->Overwrite(SimpleReader(10, 10));
  ASSERT_TRUE(v2.ok());
  CleanupOptions options;
  options.older_than = std::chrono::hours(1);
  auto report = (*v2)->Cleanup(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->removed_versions.empty());
  EXPECT_TRUE(report->removed_files.empty());
  EXPECT_TRUE(Dataset::Open(path, 1).ok());
}

TEST(DatasetCleanup, RemovesOldVersionsAndTheirFilesButNeverTheLatest) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  auto v1 = Dataset::Create(path, SimpleReader(0, 10));
  ASSERT_TRUE(v1.ok());
  auto v2 = (*v1)->Overwrite(SimpleReader(10, 10));
  ASSERT_TRUE(v2.ok());
  auto v3 = (*v2)->Delete("id = 12");
  ASSERT_TRUE(v3.ok());
  AgeFiles(path, 3600);

  CleanupOptions dry;
  dry.older_than = std::chrono::seconds(0);
  dry.dry_run = true;
  auto preview = (*v3)->Cleanup(dry);
  ASSERT_TRUE(preview.ok()) << preview.status().ToString();
  EXPECT_EQ(preview->removed_versions, (std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(preview->removed_files.empty());
  EXPECT_TRUE(Dataset::Open(path, 1).ok()) << "a dry run removes nothing";

  CleanupOptions real = dry;
  real.dry_run = false;
  auto report = (*v3)->Cleanup(real);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->removed_files, preview->removed_files);
  EXPECT_EQ(KindOf(Dataset::Open(path, 1).status()), ErrorKind::kNotFound);
  // The version-1 data file is gone; the shared version-2 data file stays for version 3.
  EXPECT_EQ(CountFiles(path + "/data"), 2u);  // the data file and its checksums
  EXPECT_EQ(CountFiles(path + "/_versions"), 1u);
  EXPECT_EQ(CountFiles(path + "/_transactions"), 1u);
  EXPECT_EQ(CountFiles(path + "/_deletions"), 1u);
  auto latest = Dataset::Open(path);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 3u);
  EXPECT_EQ((*latest)->CountRows(), 9u);
  auto table = (*latest)->ScanToTable({});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ((*table)->num_rows(), 9);

  // With only the latest version left, a second cleanup has nothing to do.
  auto again = (*latest)->Cleanup(real);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->removed_versions.empty());
  EXPECT_TRUE(again->removed_files.empty());
}

TEST(DatasetCleanup, OfANonDatasetIsNotFound) {
  TempDirectory directory;
  auto dataset = Dataset::Create(directory.Child("ds"), SimpleReader(0, 1));
  ASSERT_TRUE(dataset.ok());
  std::filesystem::remove_all(directory.Child("ds") + "/_versions");
  auto report = (*dataset)->Cleanup({});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(KindOf(report.status()), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace tessera::dataset
