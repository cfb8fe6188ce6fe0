// The commit checks the files a write adds before it publishes (issue 9, finding 3), and a write
// that fails removes the files it wrote (finding 7): a file removed between the write and the
// commit gives a retryable CommitConflict and no manifest; a commit that loses leaves no orphan.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/dataset_inspection.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/commit.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_writer.h"
#include "tessera/dataset/operation.h"
#include "tessera/format/paths.h"
#include "tessera/status.h"

namespace tessera::dataset::commit_new_files_test {
namespace {

using testing::SimpleReader;
using testing::TempDirectory;

std::set<std::string> Files(const std::string& root, std::string_view directory) {
  std::set<std::string> files;
  const auto path = std::filesystem::path(root) / directory;
  if (!std::filesystem::exists(path)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    files.insert(std::string(directory) + "/" + entry.path().filename().string());
  }
  return files;
}

void ExpectNothingCommitted(const std::string& root, const std::set<std::string>& before) {
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(root));
  EXPECT_EQ(latest->version(), 1u);
  EXPECT_FALSE(std::filesystem::exists(root + "/" + format::ManifestPath(2)));
  EXPECT_EQ(testing::ListDatasetFiles(root), before) << "the failed commit left files behind";
}

TEST(CommitNewFiles, AppendWhoseDataFileVanishedPublishesNothing) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(path, SimpleReader(0, 10)));
  const auto before = testing::ListDatasetFiles(path);
  WriteOptions options;
  options.max_rows_per_file = 4;
  auto source = SimpleReader(10, 10);
  ASSERT_OK_AND_ASSIGN(auto fragments,
                       WriteFragments(*dataset->storage(), *source, dataset->schema(), options));
  ASSERT_EQ(fragments.size(), 3u);
  // What a cleanup run with delete_unverified does to a write in flight.
  std::filesystem::remove(path + "/" + fragments[1].files(0).path());

  AppendOperation operation(fragments);
  auto committed = CommitOperation(*dataset->storage(),
                                   std::make_shared<const format::Manifest>(dataset->manifest()),
                                   operation, options);
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(KindOf(committed.status()), ErrorKind::kCommitConflict);
  EXPECT_TRUE(IsRetryable(committed.status()));
  EXPECT_NE(committed.status().message().find(fragments[1].files(0).path()), std::string::npos)
      << committed.status().ToString();
  // No manifest, and neither the surviving data files nor the transaction stay behind.
  ExpectNothingCommitted(path, before);
}

TEST(CommitNewFiles, DeleteWhoseDeletionFileVanishedPublishesNothing) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto dataset, Dataset::Create(path, SimpleReader(0, 10)));
  const auto before = testing::ListDatasetFiles(path);
  ASSERT_OK_AND_ASSIGN(
      auto operation,
      DeleteOperation::Plan(dataset->storage(), dataset->manifest(), dataset->schema(), "id < 3"));
  const auto written = Files(path, format::kDeletionsDir);
  ASSERT_EQ(written.size(), 1u);
  std::filesystem::remove(path + "/" + *written.begin());
  auto committed = CommitOperation(*dataset->storage(),
                                   std::make_shared<const format::Manifest>(dataset->manifest()),
                                   *operation, {});
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(KindOf(committed.status()), ErrorKind::kCommitConflict);
  ExpectNothingCommitted(path, before);
}

TEST(CommitNewFiles, AppendThatLosesToAnOverwriteRemovesItsFiles) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Overwrite(SimpleReader(100, 10)));
  const auto before = testing::ListDatasetFiles(path);
  auto lost = v1->Append(SimpleReader(10, 10));
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kCommitConflict);
  EXPECT_EQ(testing::ListDatasetFiles(path), before)
      << "the append's data file and transaction must not wait for cleanup";
}

// A delete that loses the race to another delete of the same fragment plans that fragment
// again; the deletion file of its first plan is never committed and goes at once.
TEST(CommitNewFiles, RebasedDeleteRemovesTheDeletionFileItReplaced) {
  TempDirectory directory;
  const std::string path = directory.Child("ds");
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Create(path, SimpleReader(0, 10)));
  ASSERT_OK_AND_ASSIGN(auto v2, v1->Delete("id < 3"));
  ASSERT_OK_AND_ASSIGN(auto v3, v1->Delete("id >= 8"));  // from the stale snapshot: rebases
  EXPECT_EQ(v3->version(), 3u);
  EXPECT_EQ(v3->CountRows(), 5u);
  EXPECT_EQ(Files(path, format::kDeletionsDir),
            (std::set<std::string>{v2->manifest().fragments(0).deletion().path(),
                                   v3->manifest().fragments(0).deletion().path()}));
  EXPECT_EQ(Files(path, format::kTransactionsDir).size(), 3u);
}

}  // namespace
}  // namespace tessera::dataset::commit_new_files_test
