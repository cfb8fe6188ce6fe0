// query::Count of one indexed predicate from the segments' counts (query/segment_count.h):
// equal to the unindexed count for random leaves on BTREE (pages of 16 rows, so ranges span
// pages) and BITMAP columns, taken only while the index covers every fragment and no row is
// deleted (explain says which way), and reading no data file when taken.
#include "tessera/query/segment_count.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/mixed_filters.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"

namespace tessera::query::segment_count_test {
namespace {

using testing::MixedFilterBatch;
using testing::PredicateGenerator;
using testing::ReaderOf;
using testing::SmallFiles;

bool CountedFromSegments(const Explain& explain) {
  return explain.lines.size() == 1 && explain.lines[0].find("' counts ") != std::string::npos;
}

class SegmentCount : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        data_, dataset::Dataset::Create(directory_.Child("ds"),
                                        ReaderOf(MixedFilterBatch(random_, 0, 600)), SmallFiles()));
    ASSERT_GT(data_->manifest().fragments_size(), 2);
    for (const index::IndexSpec& spec :
         {index::IndexSpec{"i64_btree", "i64", "BTREE", {{"page_rows", "16"}}},
          index::IndexSpec{"f64_btree", "f64", "BTREE", {{"page_rows", "16"}}},
          index::IndexSpec{"ts_btree", "ts", "BTREE", {{"page_rows", "16"}}},
          index::IndexSpec{"s_bitmap", "s", "BITMAP", {}},
          index::IndexSpec{"flag_bitmap", "flag", "BITMAP", {}}}) {
      ASSERT_OK_AND_ASSIGN(data_, index::CreateIndex(*data_, spec));
    }
  }

  // Random leaves on the indexed columns: Count equals the unindexed count; returns how many
  // were counted from segments.
  int ExpectCountsEqual(int queries) {
    auto snapshot = Snapshot::Make(data_);
    PredicateGenerator generator(random_);
    const std::vector<std::string> columns = {"i64", "f64", "ts", "s", "flag"};
    int from_segments = 0;
    for (int q = 0; q < queries; ++q) {
      const std::string filter = generator.LeafOn(columns[static_cast<size_t>(q) % columns.size()]);
      SCOPED_TRACE(filter);
      auto expected = data_->CountRows(filter);
      Explain explain;
      auto counted = Count(*snapshot, filter, &explain);
      EXPECT_EQ(counted.ok(), expected.ok()) << counted.status().ToString();
      if (!counted.ok() || !expected.ok()) continue;
      EXPECT_EQ(*counted, *expected);
      if (CountedFromSegments(explain)) ++from_segments;
    }
    return from_segments;
  }

  testing::TempDirectory directory_;
  std::mt19937_64 random_{23};
  std::shared_ptr<dataset::Dataset> data_;
};

TEST_F(SegmentCount, EqualsTheUnindexedCountAndIsTakenWhileTheIndexCoversEveryLiveRow) {
  EXPECT_GT(ExpectCountsEqual(200), 50);

  // Appended rows no segment covers: every count planned as usual.
  ASSERT_OK_AND_ASSIGN(data_,
                       data_->Append(ReaderOf(MixedFilterBatch(random_, 600, 100)), SmallFiles()));
  EXPECT_EQ(ExpectCountsEqual(60), 0);

  // Optimized: a delta segment beside each first one, the counts added up again.
  ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*data_));
  data_ = report.dataset;
  EXPECT_GT(ExpectCountsEqual(200), 50);

  // Deleted rows: segments count them, so every count is planned as usual.
  ASSERT_OK_AND_ASSIGN(data_, data_->Delete("id % 7 = 3"));
  EXPECT_EQ(ExpectCountsEqual(60), 0);
}

TEST_F(SegmentCount, ACountFromSegmentsReadsNoDataFileAndSaysSo) {
  auto snapshot = Snapshot::Make(data_);
  auto& statistics = dataset::GlobalReadStatistics();
  statistics.Reset();
  Explain explain;
  ASSERT_OK_AND_ASSIGN(uint64_t counted, Count(*snapshot, "i64 BETWEEN -5 AND 7", &explain));
  EXPECT_EQ(statistics.data_files_opened.load(), 0u);
  ASSERT_OK_AND_ASSIGN(uint64_t expected, data_->CountRows("i64 BETWEEN -5 AND 7"));
  EXPECT_EQ(counted, expected);
  ASSERT_EQ(explain.lines.size(), 1u) << explain.lines[0];
  EXPECT_NE(explain.lines[0].find("BTREE index 'i64_btree' counts"), std::string::npos)
      << explain.lines[0];

  // Two leaves: answered through the plan (an AND of answers), not from counts.
  Explain both;
  ASSERT_OK(Count(*snapshot, "i64 > 0 AND s = 'a'", &both).status());
  EXPECT_FALSE(CountedFromSegments(both));
}

}  // namespace
}  // namespace tessera::query::segment_count_test
