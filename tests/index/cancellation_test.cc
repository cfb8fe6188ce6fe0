// Progress and cancellation of the long library operations (util/operation_control.h): index
// create (scalar and vector, training included), optimize, append and compaction report their
// phases, and a cancellation requested in the middle of any of them returns Cancelled with the
// dataset's latest version unchanged and no file left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::index::cancellation_test {
namespace {

using dataset::Dataset;
using testing::SimpleReader;
using testing::TempDirectory;
using util::OperationControl;
using util::ProgressReport;

struct Seen {
  std::string phase;
  uint64_t done;
  uint64_t total;
};

// Records every report (interval 0) and requests cancellation once `cancel_when` holds.
class Observer {
 public:
  explicit Observer(std::function<bool(const ProgressReport&)> cancel_when = nullptr)
      : cancel_when_(std::move(cancel_when)),
        control_(
            [this](const ProgressReport& report) {
              seen_.push_back({std::string(report.phase), report.done, report.total});
              if (cancel_when_ && cancel_when_(report)) control_.RequestCancel();
            },
            std::chrono::milliseconds(0)) {}
  OperationControl* control() { return &control_; }
  const std::vector<Seen>& seen() const { return seen_; }
  bool Saw(const std::string& phase) const {
    for (const auto& report : seen_) {
      if (report.phase == phase) return true;
    }
    return false;
  }

 private:
  std::function<bool(const ProgressReport&)> cancel_when_;
  std::vector<Seen> seen_;
  OperationControl control_;
};

// Every file and directory under `root` but _indices/ itself, the home of every segment
// directory, which the first build creates.
std::set<std::string> AllFiles(const std::string& root) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "_indices") files.insert(entry.path().string());
  }
  return files;
}

std::shared_ptr<Dataset> MakeDataset(const TempDirectory& directory, int64_t rows = 2000) {
  dataset::WriteOptions options;
  options.max_rows_per_file = 500;
  options.rows_per_batch = 100;
  auto created = Dataset::Create(directory.Child("ds"), SimpleReader(0, rows), options);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return *created;
}

// The latest version of the dataset at `uri`.
uint64_t LatestVersion(const std::string& uri) {
  auto opened = Dataset::Open(uri);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  return opened.ok() ? (*opened)->version() : 0;
}

void ExpectCancelledLeavingNothing(const arrow::Status& status, const std::string& uri,
                                   uint64_t version_before,
                                   const std::set<std::string>& files_before) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kCancelled) << status.ToString();
  EXPECT_NE(status.message().find("nothing was committed"), std::string::npos) << status.message();
  EXPECT_EQ(LatestVersion(uri), version_before);
  EXPECT_EQ(AllFiles(uri), files_before);
}

TEST(Cancellation, AScalarBuildReportsItsRowsAndCommitsWhenNotCancelled) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  Observer observer;
  CreateIndexOptions options;
  options.control = observer.control();
  auto indexed = CreateIndex(*dataset, {"id_idx", "id", "BTREE", {}}, options);
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  ASSERT_FALSE(observer.seen().empty());
  EXPECT_EQ(observer.seen().front().phase, "building");
  EXPECT_EQ(observer.seen().front().done, 0u);
  EXPECT_EQ(observer.seen().back().done, 2000u);
  EXPECT_EQ(observer.seen().back().total, 2000u);
}

TEST(Cancellation, AScalarBuildCancelledHalfwayCommitsNothingAndLeavesNoFile) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  const auto files = AllFiles(dataset->uri());
  Observer observer([](const ProgressReport& report) { return report.done >= 1000; });
  CreateIndexOptions options;
  options.control = observer.control();
  auto indexed = CreateIndex(*dataset, {"id_idx", "id", "BTREE", {}}, options);
  ExpectCancelledLeavingNothing(indexed.status(), dataset->uri(), dataset->version(), files);
  EXPECT_LT(observer.seen().back().done, 2000u);  // it stopped before reading everything
}

TEST(Cancellation, AVectorBuildReportsTrainingThenBuildingAndCanBeCancelledInEither) {
  const Params params = {{"num_partitions", "4"}, {"num_sub_vectors", "2"}, {"max_iters", "8"}};
  {
    TempDirectory directory;
    auto dataset = MakeDataset(directory);
    Observer observer;
    CreateIndexOptions options;
    options.control = observer.control();
    auto indexed = CreateIndex(*dataset, {"v_idx", "vector", "IVF_PQ", params}, options);
    ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
    EXPECT_TRUE(observer.Saw("training"));
    EXPECT_EQ(observer.seen().back().phase, "building");
    EXPECT_EQ(observer.seen().back().done, 2000u);
  }
  for (const std::string phase : {"training", "building"}) {
    SCOPED_TRACE(phase);
    TempDirectory directory;
    auto dataset = MakeDataset(directory);
    const auto files = AllFiles(dataset->uri());
    Observer observer(
        [&](const ProgressReport& report) { return report.phase == phase && report.done >= 1; });
    CreateIndexOptions options;
    options.control = observer.control();
    auto indexed = CreateIndex(*dataset, {"v_idx", "vector", "IVF_PQ", params}, options);
    ExpectCancelledLeavingNothing(indexed.status(), dataset->uri(), dataset->version(), files);
    EXPECT_NE(indexed.status().message().find(phase), std::string::npos);
  }
}

TEST(Cancellation, AnOptimizeCancelledInItsDeltaBuildKeepsTheIndexAsItWas) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_OK_AND_ASSIGN(auto indexed, CreateIndex(*dataset, {"id_idx", "id", "BTREE", {}}));
  ASSERT_OK_AND_ASSIGN(auto appended, indexed->Append(SimpleReader(2000, 1000)));
  const auto files = AllFiles(appended->uri());
  Observer observer([](const ProgressReport& report) { return report.done >= 100; });
  OptimizeOptions options;
  options.control = observer.control();
  auto optimized = OptimizeIndexes(*appended, options);
  ExpectCancelledLeavingNothing(optimized.status(), appended->uri(), appended->version(), files);
}

TEST(Cancellation, AnOptimizeCancelledInItsSecondIndexSaysTheFirstStaysCommitted) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  ASSERT_OK_AND_ASSIGN(auto indexed, CreateIndex(*dataset, {"a_idx", "id", "BTREE", {}}));
  ASSERT_OK_AND_ASSIGN(indexed, CreateIndex(*indexed, {"b_idx", "value", "BTREE", {}}));
  ASSERT_OK_AND_ASSIGN(auto appended, indexed->Append(SimpleReader(2000, 1000)));
  int phases = 0;
  Observer observer([&](const ProgressReport& report) {
    phases += report.done == 0 ? 1 : 0;
    return phases == 2;  // the second index's build has begun
  });
  OptimizeOptions options;
  options.control = observer.control();
  auto optimized = OptimizeIndexes(*appended, options);
  ASSERT_FALSE(optimized.ok());
  EXPECT_EQ(KindOf(optimized.status()), ErrorKind::kCancelled);
  EXPECT_EQ(LatestVersion(appended->uri()), appended->version() + 1);  // a_idx's commit
  EXPECT_NE(optimized.status().message().find("optimizing index 'b_idx'"), std::string::npos)
      << optimized.status().message();
  EXPECT_NE(optimized.status().message().find("stay committed (version " +
                                              std::to_string(appended->version() + 1) + ")"),
            std::string::npos)
      << optimized.status().message();
}

TEST(Cancellation, ACreateCancelledWhileWritingLeavesNoDirectory) {
  TempDirectory directory;
  const std::string path = directory.Child("new");
  Observer observer([](const ProgressReport& report) { return report.done >= 300; });
  dataset::WriteOptions options;
  options.control = observer.control();
  auto created = Dataset::Create(path, SimpleReader(0, 1000, 4, 100), options);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(path));  // the path is free for another create
}

TEST(Cancellation, AnAppendCancelledWhileWritingLeavesNoDataFile) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  const auto files = AllFiles(dataset->uri());
  Observer observer([](const ProgressReport& report) { return report.done >= 300; });
  dataset::WriteOptions options;
  options.max_rows_per_file = 200;  // some files are complete when the request comes
  options.control = observer.control();
  auto appended = dataset->Append(SimpleReader(2000, 1000, 4, 100), options);
  ExpectCancelledLeavingNothing(appended.status(), dataset->uri(), dataset->version(), files);
  EXPECT_EQ(observer.seen().front().phase, "writing");
}

TEST(Cancellation, ACompactionReportsItsLiveRowsAndCancelledLeavesNoFile) {
  TempDirectory directory;
  auto dataset = MakeDataset(directory);
  dataset::CompactionOptions compaction;
  compaction.target_rows_per_fragment = 1000;
  {
    Observer observer;
    dataset::WriteOptions writing;
    writing.control = observer.control();
    TempDirectory copy_directory;
    auto copy = MakeDataset(copy_directory);
    auto compacted = dataset::Compact(copy, compaction, writing);
    ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
    EXPECT_EQ(observer.seen().front().phase, "rewriting");
    EXPECT_EQ(observer.seen().front().total, 2000u);
    EXPECT_EQ(observer.seen().back().done, 2000u);
  }
  const auto files = AllFiles(dataset->uri());
  Observer observer([](const ProgressReport& report) { return report.done >= 1200; });
  dataset::WriteOptions writing;
  writing.control = observer.control();
  auto compacted = dataset::Compact(dataset, compaction, writing);
  ExpectCancelledLeavingNothing(compacted.status(), dataset->uri(), dataset->version(), files);
}

}  // namespace
}  // namespace tessera::index::cancellation_test
