// OpenFragments (dataset/open_fragments.h): readers kept within a budget of data-file bytes and
// readers, the least recently used dropped first; a dropped reader stays valid for its holder.
#include "tessera/dataset/open_fragments.h"

#include <gtest/gtest.h>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"

namespace tessera::dataset::open_fragments_test {
namespace {

class OpenFragmentsBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(data_, testing::CreateSimpleDataset(directory_.Child("ds"), 4000, 1000));
    ASSERT_EQ(data_->manifest().fragments_size(), 4);
    for (const auto& fragment : data_->manifest().fragments()) {
      file_bytes_ = std::max<uint64_t>(file_bytes_, fragment.files(0).size_bytes());
    }
    ASSERT_GT(file_bytes_, 0u);
  }

  OpenFragments Make(uint64_t bytes, size_t readers) const {
    return OpenFragments(data_->storage(), data_->schema(), nullptr, {bytes, readers});
  }
  const format::Fragment& Fragment(int position) const {
    return data_->manifest().fragments(position);
  }
  // Gets fragment `position`'s reader; true when that opened its data file.
  bool Opened(const OpenFragments& open, int position) {
    const uint64_t before = GlobalReadStatistics().data_files_opened.load();
    auto reader = open.Get(Fragment(position), {0});
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    return GlobalReadStatistics().data_files_opened.load() > before;
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Dataset> data_;
  uint64_t file_bytes_ = 0;  // the largest data file's size
};

TEST_F(OpenFragmentsBudgetTest, KeepsTheMostRecentlyUsedReadersWithinItsBytes) {
  // Room for two of the four data files (all of one size).
  const OpenFragments open = Make(2 * file_bytes_ + file_bytes_ / 2, 100);
  EXPECT_TRUE(Opened(open, 0));
  EXPECT_TRUE(Opened(open, 1));
  EXPECT_FALSE(Opened(open, 0)) << "kept";
  EXPECT_TRUE(Opened(open, 2)) << "drops fragment 1, the least recently used";
  EXPECT_EQ(open.kept_readers(), 2u);
  EXPECT_LE(open.kept_bytes(), 2 * file_bytes_);
  EXPECT_FALSE(Opened(open, 0));
  EXPECT_FALSE(Opened(open, 2));
  EXPECT_TRUE(Opened(open, 1)) << "was dropped";
}

TEST_F(OpenFragmentsBudgetTest, KeepsAtMostItsNumberOfReaders) {
  const OpenFragments open = Make(100 * file_bytes_, 1);
  EXPECT_TRUE(Opened(open, 0));
  EXPECT_TRUE(Opened(open, 1));
  EXPECT_TRUE(Opened(open, 0)) << "one reader kept: fragment 1's";
  EXPECT_EQ(open.kept_readers(), 1u);
  // Other columns of a fragment are another reader.
  const uint64_t before = GlobalReadStatistics().data_files_opened.load();
  ASSERT_OK(open.Get(Fragment(0), {1}).status());
  EXPECT_GT(GlobalReadStatistics().data_files_opened.load(), before);
}

TEST_F(OpenFragmentsBudgetTest, AReaderLargerThanTheBudgetIsNeverKept) {
  const OpenFragments open = Make(Fragment(0).files(0).size_bytes() - 1, 100);
  EXPECT_TRUE(Opened(open, 0));
  EXPECT_TRUE(Opened(open, 0));
  EXPECT_EQ(open.kept_readers(), 0u);
  EXPECT_EQ(open.kept_bytes(), 0u);
}

TEST_F(OpenFragmentsBudgetTest, ADroppedReaderStaysValidForItsHolder) {
  const OpenFragments open = Make(file_bytes_, 100);
  ASSERT_OK_AND_ASSIGN(auto held, open.Get(Fragment(0), {0}));
  ASSERT_OK(open.Get(Fragment(1), {0}).status());  // drops fragment 0's reader
  EXPECT_EQ(open.kept_readers(), 1u);
  ASSERT_OK_AND_ASSIGN(auto batch, held->ReadBatch(held->num_batches() - 1));
  EXPECT_GT(batch->num_rows(), 0);
}

TEST(OpenFragmentsBudgetDefault, IsAQuarterOfMemoryUnlessTheEnvironmentSaysOtherwise) {
  const OpenFragmentsBudget budget = OpenFragmentsBudget::Default();
  EXPECT_GT(budget.readers, 0u);
  if (std::getenv("TESSERA_OPEN_FRAGMENT_BYTES") == nullptr) {
    EXPECT_GE(budget.bytes, uint64_t{64} << 20);
  }
}

}  // namespace
}  // namespace tessera::dataset::open_fragments_test
