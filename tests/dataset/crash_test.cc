// Crash safety (docs/design.md, "Commit protocol"): a writer process killed with SIGKILL at any
// point of a commit leaves the last committed version intact, the dataset keeps working, and
// cleanup reclaims what the dead writer left behind, but only once those files are older than the
// retention and the grace period.
//
// The victim is tests/helpers/tessera_test_writer.cc run with TESSERA_CRASH_AT=<point>
// (io/fault_injection.h): the library kills its own process there.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/child_process.h"
#include "support/dataset_inspection.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/writer_helper.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/format/paths.h"
#include "tessera/io/fault_injection.h"
#include "tessera/status.h"

namespace tessera::dataset::crash_test {
namespace {

using testing::ChildProcess;
using testing::ExitStatus;
using testing::IdRange;
using testing::ScanIds;

// The files of `files` under `directory` ("data", "_versions", ...).
std::set<std::string> Under(const std::set<std::string>& files, std::string_view directory) {
  std::set<std::string> selected;
  for (const auto& file : files) {
    if (file.rfind(std::string(directory) + "/", 0) == 0) selected.insert(file);
  }
  return selected;
}

std::string Join(const std::set<std::string>& files) {
  std::string text;
  for (const auto& file : files) text += "\n  " + file;
  return text;
}

// What the crashed writer was doing, and where it died.
struct CrashCase {
  std::string operation;  // "append", "delete" or "overwrite"
  std::string_view point;
};

void PrintTo(const CrashCase& crash, std::ostream* out) {
  *out << crash.operation << " killed at " << crash.point;
}

std::string CaseName(const ::testing::TestParamInfo<CrashCase>& info) {
  std::string name = info.param.operation + "_" + std::string(info.param.point);
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

class CrashTest : public ::testing::TestWithParam<CrashCase> {
 protected:
  std::string Uri() const { return directory_.Child("dataset"); }

  // Runs the writer with TESSERA_CRASH_AT=point and returns how it ended.
  ExitStatus RunVictim(const std::vector<std::string>& arguments, std::string_view point) {
    ChildProcess::Options options;
    options.environment["TESSERA_CRASH_AT"] = std::string(point);
    options.stdout_path = directory_.Child("victim.out");
    options.stderr_path = directory_.Child("victim.err");
    ChildProcess victim(testing::WriterProgram(), arguments, options);
    ExitStatus status = victim.Wait(std::chrono::minutes(3));
    victim_description_ = victim.command_line() + ": " + status.ToString() +
                          "\n  stdout: " + victim.Stdout() + "\n  stderr: " + victim.Stderr();
    return status;
  }

  testing::TempDirectory directory_;
  std::string victim_description_;
};

// Version 1: ids 0..99; version 2: append of 100..149; version 3: delete of 10..19, so that
// the dataset has several data files, transactions and a deletion file before the crash.
TEST_P(CrashTest, CrashLeavesPreviousVersionAndCleanupReclaimsOrphans) {
  const CrashCase& crash = GetParam();
  WriteOptions options;
  options.max_rows_per_file = 60;
  ASSERT_OK_AND_ASSIGN(auto dataset,
                       Dataset::Create(Uri(), testing::SimpleReader(0, 100), options));
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Append(testing::SimpleReader(100, 50), options));
  ASSERT_OK_AND_ASSIGN(dataset, dataset->Delete("id >= 10 AND id < 20"));
  ASSERT_EQ(dataset->version(), 3u);
  std::vector<int64_t> expected = IdRange(0, 10);
  for (int64_t id : IdRange(20, 150)) expected.push_back(id);
  const std::set<std::string> before = testing::ListDatasetFiles(Uri());

  // --- the crash ---
  std::vector<std::string> arguments = {crash.operation, Uri()};
  if (crash.operation == "delete") {
    arguments.insert(arguments.end(), {"--where", "id >= 30 AND id < 40"});
  } else {
    arguments.insert(arguments.end(), {"--commits", "1", "--rows", "50", "--first-id", "1000"});
  }
  const ExitStatus status = RunVictim(arguments, crash.point);
  ASSERT_TRUE(status.signaled && status.signal == SIGKILL) << victim_description_;

  // The writer died where it was told to: exactly the files written up to that point exist.
  const std::set<std::string> orphans = testing::NewFiles(before, testing::ListDatasetFiles(Uri()));
  const bool wrote_rows = crash.operation != "delete";
  const bool wrote_transaction = crash.point != io::kCrashAfterDataFiles;
  const bool wrote_temporary_manifest = crash.point == io::kCrashWhileWritingManifest;
  // A data file and its block checksums.
  EXPECT_EQ(Under(orphans, format::kDataDir).size(), wrote_rows ? 2u : 0u) << Join(orphans);
  EXPECT_EQ(Under(orphans, format::kDeletionsDir).size(), wrote_rows ? 0u : 1u) << Join(orphans);
  EXPECT_EQ(Under(orphans, format::kTransactionsDir).size(), wrote_transaction ? 1u : 0u)
      << Join(orphans);
  const std::set<std::string> temporary = Under(orphans, format::kVersionsDir);
  ASSERT_EQ(temporary.size(), wrote_temporary_manifest ? 1u : 0u) << Join(orphans);
  for (const auto& file : temporary) {
    EXPECT_NE(file.find("/.tmp-"), std::string::npos) << "a manifest appeared: " << file;
  }

  // --- the previous version is intact ---
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(Uri()));
  EXPECT_EQ(reopened->version(), 3u);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*reopened));
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(reopened->CountRows(), expected.size());
  ASSERT_OK_AND_ASSIGN(auto versions, reopened->ListVersions());
  EXPECT_EQ(versions.size(), 3u);
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));

  // --- cleanup keeps young orphans: a writer in flight looks exactly like a dead one ---
  CleanupOptions keep;
  keep.older_than = std::chrono::hours(1);
  ASSERT_OK_AND_ASSIGN(auto kept, reopened->Cleanup(keep));
  EXPECT_TRUE(kept.removed_versions.empty());
  EXPECT_TRUE(kept.removed_files.empty())
      << Join(std::set<std::string>(kept.removed_files.begin(), kept.removed_files.end()));
  std::set<std::string> all = before;
  all.insert(orphans.begin(), orphans.end());
  EXPECT_EQ(testing::ListDatasetFiles(Uri()), all);

  // --- the dataset keeps working: the next commit takes the version the victim wanted ---
  ASSERT_OK_AND_ASSIGN(auto next, reopened->Append(testing::SimpleReader(2000, 25)));
  EXPECT_EQ(next->version(), 4u);
  for (int64_t id : IdRange(2000, 2025)) expected.push_back(id);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*next));
  EXPECT_EQ(ids, expected);

  // Ten minutes after the crash, the orphans are past a retention of 0s but within the grace
  // period: a writer in flight could still commit them.
  auto age_orphans = [&](std::chrono::minutes age) {
    for (const auto& orphan : orphans) {
      testing::SetModificationTime(directory_.Child("dataset/" + orphan),
                                   std::chrono::system_clock::now() - age);
    }
  };
  age_orphans(std::chrono::minutes(10));
  CleanupOptions now;
  now.older_than = std::chrono::seconds(0);
  now.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto within_grace, next->Cleanup(now));
  for (const auto& orphan : orphans) {
    EXPECT_EQ(
        std::count(within_grace.removed_files.begin(), within_grace.removed_files.end(), orphan), 0)
        << orphan << " is younger than the grace period";
  }
  EXPECT_EQ(within_grace.kept_by_grace, orphans.size());

  // Past the grace period, a dry run reports the orphans and removes nothing.
  age_orphans(std::chrono::minutes(120));
  ASSERT_OK_AND_ASSIGN(auto planned, next->Cleanup(now));
  const std::set<std::string> listed_before_cleanup = testing::ListDatasetFiles(Uri());
  for (const auto& orphan : orphans) {
    EXPECT_EQ(std::count(planned.removed_files.begin(), planned.removed_files.end(), orphan), 1)
        << orphan << " is not in the dry run's report";
  }

  // --- cleanup with no retention removes the orphans and the old versions ---
  now.dry_run = false;
  ASSERT_OK_AND_ASSIGN(auto report, next->Cleanup(now));
  EXPECT_EQ(report.removed_versions, (std::vector<uint64_t>{1, 2, 3}));
  for (const auto& orphan : orphans) {
    EXPECT_EQ(std::count(report.removed_files.begin(), report.removed_files.end(), orphan), 1)
        << orphan << " was not removed";
  }
  const std::set<std::string> remaining = testing::ListDatasetFiles(Uri());
  EXPECT_EQ(remaining, testing::FilesReferencedBy(next->manifest()))
      << "left:" << Join(remaining)
      << "\nreferenced:" << Join(testing::FilesReferencedBy(next->manifest()));
  std::set<std::string> removed(report.removed_files.begin(), report.removed_files.end());
  for (uint64_t version : report.removed_versions) removed.insert(format::ManifestPath(version));
  EXPECT_EQ(testing::NewFiles(remaining, listed_before_cleanup), removed);

  // --- and the dataset still reads and writes correctly ---
  ASSERT_OK_AND_ASSIGN(auto cleaned, Dataset::Open(Uri()));
  EXPECT_EQ(cleaned->version(), 4u);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*cleaned));
  EXPECT_EQ(ids, expected);
  ASSERT_OK_AND_ASSIGN(auto after, cleaned->Delete("id >= 2000 AND id < 2005"));
  ASSERT_OK_AND_ASSIGN(after, after->Append(testing::SimpleReader(3000, 5)));
  EXPECT_EQ(after->version(), 6u);
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*after));
  EXPECT_EQ(ids.size(), expected.size() - 5 + 5);
  ASSERT_OK(testing::CheckEveryVersionReadable(Uri()));
}

INSTANTIATE_TEST_SUITE_P(CrashPoints, CrashTest,
                         ::testing::Values(CrashCase{"append", io::kCrashAfterDataFiles},
                                           CrashCase{"append", io::kCrashBeforeManifest},
                                           CrashCase{"append", io::kCrashWhileWritingManifest},
                                           CrashCase{"delete", io::kCrashAfterDataFiles},
                                           CrashCase{"delete", io::kCrashBeforeManifest},
                                           CrashCase{"delete", io::kCrashWhileWritingManifest},
                                           CrashCase{"overwrite", io::kCrashAfterDataFiles},
                                           CrashCase{"overwrite", io::kCrashBeforeManifest},
                                           CrashCase{"overwrite", io::kCrashWhileWritingManifest}),
                         CaseName);

// A writer working from a stale snapshot (another writer committed since) dies while publishing:
// the other writer's version is intact, and cleanup reclaims the orphans.
TEST(CrashOfStaleWriter, LeavesNewerVersionIntact) {
  testing::TempDirectory directory;
  const std::string uri = directory.Child("dataset");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(uri, testing::SimpleReader(0, 40)));
  ASSERT_OK_AND_ASSIGN(auto winner, dataset->Append(testing::SimpleReader(100, 10)));
  ASSERT_EQ(winner->version(), 2u);
  const std::set<std::string> before = testing::ListDatasetFiles(uri);

  // The victim starts from version 1, one version behind, and dies while publishing.
  ChildProcess::Options options;
  options.environment["TESSERA_CRASH_AT"] = std::string(io::kCrashWhileWritingManifest);
  options.stderr_path = directory.Child("victim.err");
  ChildProcess victim(testing::WriterProgram(),
                      {"append", uri, "--version", "1", "--rows", "10", "--first-id", "1000"},
                      options);
  const ExitStatus status = victim.Wait(std::chrono::minutes(3));
  ASSERT_TRUE(status.signaled && status.signal == SIGKILL) << status.ToString() << "\n"
                                                           << victim.Stderr();

  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(latest->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto ids, ScanIds(*latest));
  std::vector<int64_t> expected = IdRange(0, 40);
  for (int64_t id : IdRange(100, 110)) expected.push_back(id);
  EXPECT_EQ(ids, expected);

  const std::set<std::string> orphans = testing::NewFiles(before, testing::ListDatasetFiles(uri));
  // Its data file, its transaction and its temporary manifest.
  EXPECT_EQ(Under(orphans, format::kDataDir).size(), 2u) << Join(orphans);
  EXPECT_EQ(Under(orphans, format::kTransactionsDir).size(), 1u) << Join(orphans);
  EXPECT_EQ(Under(orphans, format::kVersionsDir).size(), 1u) << Join(orphans);
  // Older than the grace period, as if the crash happened two hours ago.
  for (const auto& orphan : orphans) {
    testing::SetModificationTime(directory.Child("dataset/" + orphan),
                                 std::chrono::system_clock::now() - std::chrono::minutes(120));
  }
  CleanupOptions now;
  now.older_than = std::chrono::seconds(0);
  ASSERT_OK_AND_ASSIGN(auto report, latest->Cleanup(now));
  EXPECT_EQ(report.removed_versions, (std::vector<uint64_t>{1}));
  EXPECT_EQ(testing::ListDatasetFiles(uri), testing::FilesReferencedBy(latest->manifest()));
  ASSERT_OK_AND_ASSIGN(latest, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(ids, ScanIds(*latest));
  EXPECT_EQ(ids, expected);
}

}  // namespace
}  // namespace tessera::dataset::crash_test
