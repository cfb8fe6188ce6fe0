// Fragment statistics (dataset/fragment_statistics.h): what the writer records, that damage is
// detected, and that the planner skips fragments no row of which can match, answers fragments
// every row of which matches from metadata, and returns exactly the unindexed rows either way.
#include "tessera/dataset/fragment_statistics.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

namespace tessera::dataset::fragment_statistics_test {
namespace {

std::shared_ptr<arrow::RecordBatch> MixedBatch(
    const std::vector<std::optional<int64_t>>& ints,
    const std::vector<std::optional<double>>& doubles,
    const std::vector<std::optional<std::string>>& strings) {
  arrow::Int64Builder i;
  arrow::DoubleBuilder d;
  arrow::StringBuilder s;
  arrow::Int64Builder all_null;
  for (const auto& v : ints) EXPECT_TRUE((v ? i.Append(*v) : i.AppendNull()).ok());
  for (const auto& v : doubles) EXPECT_TRUE((v ? d.Append(*v) : d.AppendNull()).ok());
  for (const auto& v : strings) EXPECT_TRUE((v ? s.Append(*v) : s.AppendNull()).ok());
  EXPECT_TRUE(all_null.AppendNulls(static_cast<int64_t>(ints.size())).ok());
  auto schema =
      arrow::schema({arrow::field("i", arrow::int64()), arrow::field("d", arrow::float64()),
                     arrow::field("s", arrow::utf8()), arrow::field("n", arrow::int64()),
                     arrow::field("l", arrow::list(arrow::int64()))});
  arrow::ListBuilder lists(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  for (size_t k = 0; k < ints.size(); ++k) EXPECT_TRUE(lists.Append().ok());
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(ints.size()),
      {*i.Finish(), *d.Finish(), *s.Finish(), *all_null.Finish(), *lists.Finish()});
}

format::Fragment Collected(const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches) {
  StatisticsCollector collector(batches.front()->schema());
  format::Fragment fragment;
  for (const auto& batch : batches) EXPECT_OK(collector.Add(*batch));
  auto statistics = collector.Finish();
  EXPECT_TRUE(statistics.ok()) << statistics.status().ToString();
  *fragment.mutable_statistics() = *statistics;
  return fragment;
}

TEST(FragmentStatistics, RecordsRangesNullsAndNaNsOverEveryBatch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto first =
      MixedBatch({5, std::nullopt, -3}, {nan, 2.5, std::nullopt}, {"m", "b", std::nullopt});
  auto second = MixedBatch({40, 7, std::nullopt}, {-1.0, nan, 9.0}, {"z", "a", "q"});
  const format::Fragment fragment = Collected({first, second});
  ASSERT_OK_AND_ASSIGN(auto ranges, DecodeStatistics(fragment, *first->schema()));
  ASSERT_EQ(ranges.size(), 4u);  // the list column orders no values: not listed
  EXPECT_EQ(ranges[0].min->ToString(), "-3");
  EXPECT_EQ(ranges[0].max->ToString(), "40");
  EXPECT_EQ(ranges[0].null_count, 2u);
  EXPECT_EQ(ranges[1].min->ToString(), "-1");  // NaN is neither extreme
  EXPECT_EQ(ranges[1].max->ToString(), "9");
  EXPECT_EQ(ranges[1].nan_count, 2u);
  EXPECT_EQ(ranges[1].null_count, 1u);
  EXPECT_EQ(ranges[2].min->ToString(), "a");
  EXPECT_EQ(ranges[2].max->ToString(), "z");
  EXPECT_EQ(ranges[3].min, nullptr);  // only nulls
  EXPECT_EQ(ranges[3].null_count, 6u);
}

TEST(FragmentStatistics, LongStringExtremesAreNotListed) {
  auto batch = MixedBatch({1}, {1.0}, {std::string(kMaximumStringBytes + 1, 'x')});
  ASSERT_OK_AND_ASSIGN(auto ranges, DecodeStatistics(Collected({batch}), *batch->schema()));
  EXPECT_EQ(ranges.count(2), 0u);
  EXPECT_EQ(ranges.count(0), 1u);
}

TEST(FragmentStatistics, DamageIsCorruptAndAnotherSchemaIsIgnored) {
  auto batch = MixedBatch({1, 2}, {1.0, 2.0}, {"a", "b"});
  format::Fragment fragment = Collected({batch});
  format::Fragment damaged = fragment;
  damaged.mutable_statistics()->mutable_columns(0)->set_null_count(0);
  damaged.mutable_statistics()->mutable_columns(0)->set_null_count(7);
  EXPECT_EQ(KindOf(DecodeStatistics(damaged, *batch->schema()).status()), ErrorKind::kCorrupt);
  damaged = fragment;
  std::string ranges = damaged.statistics().ranges_ipc();
  ranges[ranges.size() / 2] ^= 0x5a;
  damaged.mutable_statistics()->set_ranges_ipc(ranges);
  EXPECT_EQ(KindOf(DecodeStatistics(damaged, *batch->schema()).status()), ErrorKind::kCorrupt);
  // The same positions under other names or types are not this fragment's columns.
  auto renamed =
      arrow::schema({arrow::field("j", arrow::int64()), arrow::field("d", arrow::int32()),
                     arrow::field("s", arrow::utf8())});
  ASSERT_OK_AND_ASSIGN(auto kept, DecodeStatistics(fragment, *renamed));
  EXPECT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept.count(2), 1u);
}

// 4 fragments of 1,000 sorted ids; rows 1200 and 2500 deleted.
class StatisticsPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(data_, testing::CreateSimpleDataset(directory_.Child("ds"), 4000, 1000));
    ASSERT_OK_AND_ASSIGN(data_, data_->Delete("id IN (1200, 2500)"));
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Dataset> data_;
  query::SegmentCache cache_{uint64_t{1} << 30};
};

TEST_F(StatisticsPlan, FragmentsNoRowOfWhichMatchesAreSkipped) {
  auto snapshot = query::Snapshot::Make(data_, &cache_);
  for (const std::string filter :
       {"id < 1500", "id >= 3100 AND value IS NOT NULL", "id BETWEEN 990 AND 1010", "id = 2500",
        "1500 > id", "NOT (id >= 1500)", "id < 1500 OR id > 3500", "value > 1000.0",
        "value IS NULL", "name = 'name1' AND id < 500"}) {
    query::Explain explain;
    GlobalReadStatistics().Reset();
    ASSERT_OK_AND_ASSIGN(uint64_t count, query::Count(*snapshot, filter, &explain));
    ASSERT_OK_AND_ASSIGN(uint64_t expected, data_->CountRows(filter));
    EXPECT_EQ(count, expected) << filter << "\n" << explain.ToString();
    ScanOptions options;
    options.filter = filter;
    ASSERT_OK_AND_ASSIGN(auto reader, query::Read(snapshot, options));
    ASSERT_OK_AND_ASSIGN(auto table, testing::ReadAll(*reader));
    ASSERT_OK_AND_ASSIGN(auto plain, data_->ScanToTable(options));
    EXPECT_TRUE(table->Equals(*plain)) << filter;
  }
  query::Explain explain;
  GlobalReadStatistics().Reset();
  snapshot = query::Snapshot::Make(data_, &cache_);  // no reader open yet
  ASSERT_OK_AND_ASSIGN(uint64_t count, query::Count(*snapshot, "id < 1500", &explain));
  EXPECT_EQ(count, 1499u);
  // Fragment 0 holds only matching rows (counted from metadata), fragments 2 and 3 none.
  EXPECT_EQ(GlobalReadStatistics().data_files_opened.load(), 1u) << explain.ToString();
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("fragment 0: every live row: fragment statistics show 'id < 1500' holds "
                      "on every row"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fragments [2..3]: skipped: fragment statistics show 'id < 1500' matches "
                      "no row"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fragment 1: scan"), std::string::npos) << text;
}

// Statistics are an optional manifest field (format 2 unchanged): fragments written before they
// existed have none, open, and are scanned with the same answers.
TEST_F(StatisticsPlan, FragmentsWrittenBeforeStatisticsAreScanned) {
  format::Manifest older = data_->manifest();
  older.set_version(data_->version() + 1);
  for (auto& fragment : *older.mutable_fragments()) fragment.clear_statistics();
  ASSERT_OK_AND_ASSIGN(bool published, TryPublishManifest(*data_->storage(), older));
  ASSERT_TRUE(published);
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(data_->uri()));
  EXPECT_EQ(reopened->manifest().format_version(), kManifestFormatVersion);
  EXPECT_FALSE(reopened->manifest().fragments(0).has_statistics());
  auto snapshot = query::Snapshot::Make(reopened, &cache_);
  query::Explain explain;
  ASSERT_OK_AND_ASSIGN(uint64_t count, query::Count(*snapshot, "id < 1500", &explain));
  EXPECT_EQ(count, 1499u);
  EXPECT_NE(explain.ToString().find("fragments [0..3]: scan"), std::string::npos)
      << explain.ToString();
}

}  // namespace
}  // namespace tessera::dataset::fragment_statistics_test
