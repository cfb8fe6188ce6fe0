// Cleanup removes old versions and unreferenced files past the retention, never the latest
// version and never what a retained version references; files no manifest references are kept
// for a grace period whatever the retention (unless delete_unverified); a damaged old manifest is
// reported, never fatal, and blocks the removal of files it might reference.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/format/paths.h"
#include "tessera/status.h"

namespace tessera::dataset::cleanup_test {
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

// Retentions and grace periods past the nanosecond clock's range (292 years) keep everything
// instead of overflowing (UBSan caught `now - older_than` with --older-than 26000w).
TEST(DatasetCleanup, ARetentionOfCenturiesKeepsEverything) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Overwrite(SimpleReader(10, 10)));
  AgeFiles(path, 3 * 3600);
  for (auto age : {std::chrono::seconds(std::chrono::hours(24 * 366 * 500)),
                   std::chrono::seconds(std::numeric_limits<int64_t>::max())}) {
    CleanupOptions options;
    options.older_than = age;
    ASSERT_OK_AND_ASSIGN(auto report, v2->Cleanup(options));
    EXPECT_TRUE(report.removed_versions.empty());
    EXPECT_TRUE(report.removed_files.empty());
  }
  CleanupOptions options;
  options.older_than = std::chrono::seconds(0);
  options.grace_period = std::chrono::seconds(std::numeric_limits<int64_t>::max());
  ASSERT_OK_AND_ASSIGN(auto report, v2->Cleanup(options));
  EXPECT_EQ(report.removed_versions, std::vector<uint64_t>{1});
  EXPECT_FALSE(Dataset::Open(path, 1).ok());
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

// An unreferenced file and an unreferenced segment directory, as a write in flight (or a crashed
// one) leaves them, `age` old.
struct Orphans {
  std::string file = "data/orphan.arrow";
  std::string segment = "_indices/00000000-0000-4000-8000-000000000000";
};

Orphans WriteOrphans(const std::string& root, std::chrono::seconds age) {
  Orphans orphans;
  std::filesystem::create_directories(root + "/" + orphans.segment);
  for (const std::string& path : {orphans.file, orphans.segment + "/pages.arrow"}) {
    std::ofstream(root + "/" + path) << "bytes";
    std::filesystem::last_write_time(root + "/" + path,
                                     std::filesystem::last_write_time(root + "/" + path) - age);
  }
  std::filesystem::last_write_time(
      root + "/" + orphans.segment,
      std::filesystem::last_write_time(root + "/" + orphans.segment) - age);
  return orphans;
}

bool Exists(const std::string& root, const std::string& path) {
  return std::filesystem::exists(root + "/" + path);
}

CleanupOptions NoRetention() {
  CleanupOptions options;
  options.older_than = std::chrono::seconds(0);
  return options;
}

TEST(DatasetCleanupGrace, FreshOrphansSurviveAZeroRetention) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(path, SimpleReader(0, 10)));
  // 30 minutes old: past any retention of 0s, within the grace period of 1 hour.
  const Orphans orphans = WriteOrphans(path, std::chrono::minutes(30));
  ASSERT_OK_AND_ASSIGN(auto report, dataset->Cleanup(NoRetention()));
  EXPECT_TRUE(report.removed_files.empty());
  EXPECT_EQ(report.kept_by_grace, 2u);
  EXPECT_TRUE(Exists(path, orphans.file));
  EXPECT_TRUE(Exists(path, orphans.segment + "/pages.arrow"));
}

TEST(DatasetCleanupGrace, DeleteUnverifiedRemovesFreshOrphans) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(path, SimpleReader(0, 10)));
  const Orphans orphans = WriteOrphans(path, std::chrono::seconds(1));
  CleanupOptions options = NoRetention();
  options.delete_unverified = true;
  ASSERT_OK_AND_ASSIGN(auto report, dataset->Cleanup(options));
  EXPECT_EQ(report.removed_files.size(), 2u);
  EXPECT_FALSE(Exists(path, orphans.file));
  EXPECT_FALSE(Exists(path, orphans.segment));
  // delete_unverified ignores the grace, not the retention.
  const Orphans again = WriteOrphans(path, std::chrono::seconds(1));
  options.older_than = std::chrono::hours(1);
  ASSERT_OK_AND_ASSIGN(report, dataset->Cleanup(options));
  EXPECT_TRUE(report.removed_files.empty());
  EXPECT_TRUE(Exists(path, again.file));
  EXPECT_OK(Dataset::Open(path).status());
}

TEST(DatasetCleanupGrace, OrphansOlderThanTheGraceGoWithoutTheFlag) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(path, SimpleReader(0, 10)));
  const Orphans orphans = WriteOrphans(path, std::chrono::hours(2));
  ASSERT_OK_AND_ASSIGN(auto report, dataset->Cleanup(NoRetention()));
  EXPECT_EQ(report.removed_files.size(), 2u);
  EXPECT_EQ(report.kept_by_grace, 0u);
  EXPECT_FALSE(Exists(path, orphans.file));
  EXPECT_FALSE(Exists(path, orphans.segment));
  // The grace period is an option of its own; a longer retention still wins over it.
  const Orphans again = WriteOrphans(path, std::chrono::hours(2));
  CleanupOptions options;
  options.older_than = std::chrono::hours(3);
  ASSERT_OK_AND_ASSIGN(report, dataset->Cleanup(options));
  EXPECT_TRUE(Exists(path, again.file));
  options.older_than = std::chrono::seconds(0);
  options.grace_period = std::chrono::hours(3);
  ASSERT_OK_AND_ASSIGN(report, dataset->Cleanup(options));
  EXPECT_TRUE(Exists(path, again.file));
  EXPECT_EQ(report.kept_by_grace, 2u);
}

// Files that a removed version referenced were committed once: no writer can be about to
// reference them again, so they go by the retention alone, however young.
TEST(DatasetCleanupGrace, FilesOfRemovedVersionsGoByTheRetentionAlone) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Overwrite(SimpleReader(10, 10)));
  const std::string old_data = v1->manifest().fragments(0).files(0).path();
  ASSERT_OK_AND_ASSIGN(auto report, v2->Cleanup(NoRetention()));
  EXPECT_EQ(report.removed_versions, (std::vector<uint64_t>{1}));
  EXPECT_FALSE(Exists(path, old_data));
  EXPECT_FALSE(Exists(path, v1->manifest().transaction_file()));
  EXPECT_EQ(report.kept_by_grace, 0u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(path));
  ASSERT_OK_AND_ASSIGN(auto table, latest->ScanToTable({}));
  EXPECT_EQ(table->num_rows(), 10);
}

void Damage(const std::string& root, uint64_t version) {
  std::ofstream(root + "/" + format::ManifestPath(version), std::ios::trunc) << "not a manifest";
}

TEST(DatasetCleanupCorruptManifest, VersionsListsItAsUnreadable) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(SimpleReader(10, 10)));
  ASSERT_OK_AND_ASSIGN(auto v3, v2->Append(SimpleReader(20, 10)));
  Damage(path, 1);
  ASSERT_OK_AND_ASSIGN(auto versions, v3->ListVersions());
  ASSERT_EQ(versions.size(), 3u);
  EXPECT_EQ(versions[0].version, 1u);
  EXPECT_NE(versions[0].unreadable.find("Corrupt"), std::string::npos) << versions[0].unreadable;
  EXPECT_TRUE(versions[1].unreadable.empty());
  EXPECT_EQ(versions[1].num_rows, 20u);
  EXPECT_EQ(versions[2].num_rows, 30u);
}

// Nobody knows what a damaged manifest references: cleanup keeps it, reports it and removes no
// file while it is there, but still removes the old versions it can read.
TEST(DatasetCleanupCorruptManifest, CleanupReportsItAndRemovesNoFile) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Overwrite(SimpleReader(10, 10)));
  ASSERT_OK_AND_ASSIGN(auto v3, v2->Overwrite(SimpleReader(20, 10)));
  const std::string v2_data = v2->manifest().fragments(0).files(0).path();
  Damage(path, 1);
  const Orphans orphans = WriteOrphans(path, std::chrono::hours(2));

  ASSERT_OK_AND_ASSIGN(auto report, v3->Cleanup(NoRetention()));
  ASSERT_EQ(report.unreadable_versions.size(), 1u);
  EXPECT_EQ(report.unreadable_versions[0].version, 1u);
  EXPECT_NE(report.unreadable_versions[0].error.find("Corrupt"), std::string::npos);
  EXPECT_EQ(report.removed_versions, (std::vector<uint64_t>{2}));
  EXPECT_TRUE(report.removed_files.empty());
  EXPECT_TRUE(Exists(path, format::ManifestPath(1)));
  EXPECT_TRUE(Exists(path, v2_data));
  EXPECT_TRUE(Exists(path, orphans.file));

  // Once the damaged manifest is dealt with, cleanup resumes. Version 2's files, whose manifest
  // went while they were kept, are now referenced by nothing: they wait for the grace period.
  std::filesystem::remove(path + "/" + format::ManifestPath(1));
  ASSERT_OK_AND_ASSIGN(report, v3->Cleanup(NoRetention()));
  EXPECT_TRUE(report.unreadable_versions.empty());
  EXPECT_FALSE(Exists(path, orphans.file));
  EXPECT_TRUE(Exists(path, v2_data));
  EXPECT_GE(report.kept_by_grace, 1u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(path));
  EXPECT_EQ(latest->version(), 3u);
  EXPECT_EQ(latest->CountRows(), 10u);
}

// With the latest manifest damaged, the newest readable version is kept too: cleanup never
// leaves a dataset without a version that opens.
TEST(DatasetCleanupCorruptManifest, KeepsTheNewestReadableVersion) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Append(SimpleReader(10, 10)));
  ASSERT_OK_AND_ASSIGN(auto v3, v2->Append(SimpleReader(20, 10)));
  Damage(path, 3);
  ASSERT_OK_AND_ASSIGN(auto report, v1->Cleanup(NoRetention()));
  EXPECT_EQ(report.removed_versions, (std::vector<uint64_t>{1}));
  ASSERT_OK_AND_ASSIGN(auto readable, Dataset::Open(path, 2));
  ASSERT_OK_AND_ASSIGN(auto table, readable->ScanToTable({}));
  EXPECT_EQ(table->num_rows(), 20);
}

}  // namespace
}  // namespace tessera::dataset::cleanup_test
