// SegmentCache and the snapshots that open segments through it: each segment of a query's
// indexes is opened once per process across repeated queries on one version and on newer
// versions sharing it; the byte budget evicts least recently used readers; Clear() drops them;
// concurrent requests open a segment once; a failed open is not cached.
#include "tessera/query/segment_cache.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/indexed_dataset.h"
#include "support/ipc_file_surgery.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace tessera::query::segment_cache_test {
namespace {

using testing::AddBtree;
using testing::CreateSimpleDataset;
using testing::TempDirectory;

constexpr uint64_t kLargeBudget = uint64_t{1} << 40;

size_t SegmentCount(const dataset::Dataset& dataset) {
  size_t count = 0;
  for (const auto& definition : dataset.manifest().indexes()) {
    count += static_cast<size_t>(definition.segments_size());
  }
  return count;
}

const format::SegmentMeta& SegmentOf(const dataset::Dataset& dataset, int index) {
  return dataset.manifest().indexes(index).segments(0);
}

const index::IndexFamily& Btree() { return *index::FindFamily("BTREE"); }

// 3 fragments of 1,000 rows; BTREEs `id_idx` and `id_fine` (another page size) on id and
// `value_idx` on value: three indexes, one segment each.
class SegmentCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(data_, CreateSimpleDataset(directory_.Child("ds"), 3000, 1000));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "id_idx", "id"));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "id_fine", "id", {{"page_rows", "64"}}));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "value_idx", "value"));
    ASSERT_EQ(SegmentCount(*data_), 3u);
  }

  // Runs count, scan and delete-finding queries over both indexed columns on a fresh snapshot
  // of `dataset`, checking each against the unindexed path.
  static void QueryEverything(const std::shared_ptr<dataset::Dataset>& dataset,
                              SegmentCache* cache) {
    for (const std::string filter :
         {"id < 100", "id = 5 OR value < 20", "NOT (value >= 300) AND id > 10"}) {
      auto snapshot = Snapshot::Make(dataset, cache);
      ASSERT_OK_AND_ASSIGN(const uint64_t count, Count(*snapshot, filter));
      ASSERT_OK_AND_ASSIGN(const uint64_t expected, dataset->CountRows(filter));
      EXPECT_EQ(count, expected) << filter;

      dataset::ScanOptions options;
      options.filter = filter;
      options.columns = {"id"};
      ASSERT_OK_AND_ASSIGN(auto reader, Read(Snapshot::Make(dataset, cache), options));
      ASSERT_OK_AND_ASSIGN(auto table, testing::ReadAll(*reader));
      ASSERT_OK_AND_ASSIGN(auto plain, dataset->ScanToTable(options));
      EXPECT_TRUE(table->Equals(*plain)) << filter;

      ASSERT_OK_AND_ASSIGN(auto parsed, expr::Filter::Parse(filter, dataset->schema()));
      ASSERT_OK_AND_ASSIGN(auto rows, FindMatchingRows(*Snapshot::Make(dataset, cache), *parsed));
      uint64_t found = 0;
      for (const auto& [fragment, offsets] : rows) found += offsets.cardinality();
      EXPECT_EQ(found, expected) << filter;
    }
  }

  TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> data_;
};

// The acceptance criterion of issue 10: repeated queries on fresh snapshots of one version open
// each segment once; a newer version opens only the segments it does not share.
TEST_F(SegmentCacheTest, EachSegmentOpensOnceAcrossQueriesAndVersions) {
  SegmentCache cache(kLargeBudget);
  for (int round = 0; round < 4; ++round) {
    ASSERT_NO_FATAL_FAILURE(QueryEverything(data_, &cache));
  }
  EXPECT_EQ(cache.statistics().opens, 3u);
  EXPECT_EQ(cache.statistics().entries, 3u);
  EXPECT_EQ(cache.statistics().evictions, 0u);
  EXPECT_GT(cache.statistics().hits, 0u);
  uint64_t bytes = 0;
  for (const auto& definition : data_->manifest().indexes()) {
    bytes += definition.segments(0).size_bytes();
  }
  EXPECT_EQ(cache.statistics().bytes, bytes);

  // An append shares every segment with the version before it.
  const auto before_append = data_;
  ASSERT_OK_AND_ASSIGN(auto appended, testing::AppendSimpleRows(*data_, 3000, 1000, 1000));
  ASSERT_NO_FATAL_FAILURE(QueryEverything(appended, &cache));
  EXPECT_EQ(cache.statistics().opens, 3u);

  // A delete through the index shares them too.
  ASSERT_OK_AND_ASSIGN(auto deleted, Delete(*Snapshot::Make(appended, &cache), "id < 50"));
  ASSERT_NO_FATAL_FAILURE(QueryEverything(deleted, &cache));
  EXPECT_EQ(cache.statistics().opens, 3u);

  // Optimize adds a delta segment per index over the new fragment: only those are opened.
  index::OptimizeOptions optimize;
  optimize.merge.kind = index::MergePolicy::Kind::kNone;
  ASSERT_OK_AND_ASSIGN(auto optimized, index::OptimizeIndexes(*deleted, optimize));
  ASSERT_EQ(SegmentCount(*optimized.dataset), 6u);
  for (int round = 0; round < 3; ++round) {
    ASSERT_NO_FATAL_FAILURE(QueryEverything(optimized.dataset, &cache));
  }
  EXPECT_EQ(cache.statistics().opens, 6u);
  // The old versions still use the segments already open.
  ASSERT_NO_FATAL_FAILURE(QueryEverything(before_append, &cache));
  ASSERT_NO_FATAL_FAILURE(QueryEverything(appended, &cache));
  EXPECT_EQ(cache.statistics().opens, 6u);
  EXPECT_EQ(cache.statistics().entries, 6u);
}

// The same through the process-wide cache that Snapshot::Make uses by default (and Snapshot::Open
// and the CLI use): the datasets of this test are new, so opens grow by their segment count.
TEST_F(SegmentCacheTest, TheGlobalCacheOpensEachSegmentOnce) {
  SegmentCache& global = SegmentCache::Global();
  ASSERT_GE(global.budget_bytes(), uint64_t{1} << 20) << "TESSERA_SEGMENT_CACHE_BYTES too small";
  const uint64_t opens = global.statistics().opens;
  for (int round = 0; round < 3; ++round) {
    ASSERT_NO_FATAL_FAILURE(QueryEverything(data_, nullptr));
    // Spellings of one dataset's path are one dataset.
    for (const std::string& uri :
         {data_->uri(), directory_.Child("ds") + "/", directory_.Child("ds") + "/../ds/."}) {
      ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Open(uri));
      ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id < 10 AND value > 1"));
      EXPECT_EQ(count, 6u);  // 3..9 less 3, whose value is null
    }
  }
  EXPECT_EQ(global.statistics().opens - opens, 3u);
  ASSERT_OK_AND_ASSIGN(auto appended, testing::AppendSimpleRows(*data_, 3000, 500, 1000));
  ASSERT_NO_FATAL_FAILURE(QueryEverything(appended, nullptr));
  EXPECT_EQ(global.statistics().opens - opens, 3u);
}

// Under a budget smaller than any segment only the reader just asked for stays cached: queries
// alternating between indexes reopen them, and still answer right.
TEST_F(SegmentCacheTest, ATinyBudgetEvictsAndResultsStayRight) {
  SegmentCache cache(1);
  for (int round = 0; round < 3; ++round) {
    ASSERT_NO_FATAL_FAILURE(QueryEverything(data_, &cache));
  }
  const auto statistics = cache.statistics();
  EXPECT_GT(statistics.opens, 3u);
  EXPECT_EQ(statistics.evictions, statistics.opens - 1);
  EXPECT_EQ(statistics.entries, 1u);

  // A snapshot keeps the readers it opened, evicted or not.
  auto snapshot = Snapshot::Make(data_, &cache);
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id < 100 AND value < 20"));
  const uint64_t opens = cache.statistics().opens;
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(uint64_t again, Count(*snapshot, "id < 100 AND value < 20"));
    EXPECT_EQ(again, count);
  }
  EXPECT_EQ(cache.statistics().opens, opens);
  ASSERT_OK_AND_ASSIGN(uint64_t expected, data_->CountRows("id < 100 AND value < 20"));
  EXPECT_EQ(count, expected);
}

// Least recently used readers leave first; hits refresh recency; the budget can be changed.
TEST_F(SegmentCacheTest, BudgetEvictsTheLeastRecentlyUsed) {
  const auto& a = SegmentOf(*data_, 0);
  const auto& b = SegmentOf(*data_, 1);
  const auto& c = SegmentOf(*data_, 2);
  ASSERT_GT(a.size_bytes(), 0u);
  ASSERT_GT(b.size_bytes(), 0u);
  ASSERT_GT(c.size_bytes(), 0u);
  SegmentCache cache(a.size_bytes() + b.size_bytes() + c.size_bytes() - 1);
  const auto& storage = data_->storage();
  ASSERT_OK_AND_ASSIGN(auto reader_a, cache.Get(storage, Btree(), a));
  ASSERT_OK(cache.Get(storage, Btree(), b).status());
  ASSERT_OK_AND_ASSIGN(auto hit_a, cache.Get(storage, Btree(), a));  // a is now the most recent
  EXPECT_EQ(hit_a, reader_a);
  EXPECT_EQ(cache.statistics().hits, 1u);
  ASSERT_OK(cache.Get(storage, Btree(), c).status());  // over the budget: b leaves
  auto statistics = cache.statistics();
  EXPECT_EQ(statistics.opens, 3u);
  EXPECT_EQ(statistics.evictions, 1u);
  EXPECT_EQ(statistics.entries, 2u);
  EXPECT_EQ(statistics.bytes, a.size_bytes() + c.size_bytes());
  ASSERT_OK(cache.Get(storage, Btree(), a).status());  // still cached: a hit
  EXPECT_EQ(cache.statistics().opens, 3u);
  EXPECT_EQ(cache.statistics().hits, 2u);
  ASSERT_OK(cache.Get(storage, Btree(), b).status());  // reopened; c is now the oldest and leaves
  statistics = cache.statistics();
  EXPECT_EQ(statistics.opens, 4u);
  EXPECT_EQ(statistics.evictions, 2u);
  EXPECT_EQ(statistics.bytes, a.size_bytes() + b.size_bytes());
  ASSERT_OK(cache.Get(storage, Btree(), a).status());
  EXPECT_EQ(cache.statistics().opens, 4u);

  // Raising the budget evicts nothing; lowering it evicts at once, down to nothing.
  cache.set_budget_bytes(kLargeBudget);
  EXPECT_EQ(cache.budget_bytes(), kLargeBudget);
  EXPECT_EQ(cache.statistics().entries, 2u);
  cache.set_budget_bytes(a.size_bytes());
  EXPECT_EQ(cache.statistics().entries, 1u);  // b, the least recent, left
  EXPECT_EQ(cache.statistics().bytes, a.size_bytes());
  ASSERT_OK(cache.Get(storage, Btree(), a).status());
  EXPECT_EQ(cache.statistics().opens, 4u);
  cache.set_budget_bytes(0);
  statistics = cache.statistics();
  EXPECT_EQ(statistics.entries, 0u);
  EXPECT_EQ(statistics.bytes, 0u);
  EXPECT_EQ(statistics.evictions, 4u);
  // A reader larger than the budget is still returned, and cached until the next one comes.
  ASSERT_OK(cache.Get(storage, Btree(), c).status());
  EXPECT_EQ(cache.statistics().entries, 1u);
  ASSERT_OK(cache.Get(storage, Btree(), c).status());
  EXPECT_EQ(cache.statistics().opens, 5u);
  // An evicted reader stays usable by whoever holds it.
  EXPECT_EQ(reader_a->meta().uuid(), a.uuid());
}

TEST_F(SegmentCacheTest, ClearDropsEveryReaderButNotTheirUsers) {
  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data_, &cache);
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id = 5 OR value < 20"));
  EXPECT_EQ(cache.statistics().opens, 3u);
  cache.Clear();
  auto statistics = cache.statistics();
  EXPECT_EQ(statistics.entries, 0u);
  EXPECT_EQ(statistics.bytes, 0u);
  EXPECT_EQ(statistics.opens, 3u);  // counters are cumulative
  // The snapshot still holds its readers.
  ASSERT_OK_AND_ASSIGN(uint64_t again, Count(*snapshot, "id = 5 OR value < 20"));
  EXPECT_EQ(again, count);
  EXPECT_EQ(cache.statistics().opens, 3u);
  // A new snapshot opens them again, once.
  ASSERT_NO_FATAL_FAILURE(QueryEverything(data_, &cache));
  ASSERT_NO_FATAL_FAILURE(QueryEverything(data_, &cache));
  EXPECT_EQ(cache.statistics().opens, 6u);
  EXPECT_EQ(cache.statistics().entries, 3u);
}

TEST_F(SegmentCacheTest, ConcurrentRequestsForOneSegmentOpenItOnce) {
  constexpr int kThreads = 8;
  for (int round = 0; round < 3; ++round) {
    SegmentCache cache(kLargeBudget);
    std::vector<std::shared_ptr<index::SegmentReader>> readers(kThreads);
    std::vector<arrow::Status> statuses(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int thread = 0; thread < kThreads; ++thread) {
      threads.emplace_back([&, thread] {
        start.arrive_and_wait();
        auto reader = cache.Get(data_->storage(), Btree(), SegmentOf(*data_, 0));
        statuses[thread] = reader.status();
        if (reader.ok()) readers[thread] = *reader;
      });
    }
    for (auto& thread : threads) thread.join();
    for (int thread = 0; thread < kThreads; ++thread) {
      ASSERT_OK(statuses[thread]);
      EXPECT_EQ(readers[thread], readers[0]);
    }
    EXPECT_EQ(cache.statistics().opens, 1u);
    EXPECT_EQ(cache.statistics().hits, static_cast<uint64_t>(kThreads - 1));
  }
}

// Many threads querying one snapshot open each of its segments once.
TEST_F(SegmentCacheTest, ConcurrentQueriesOnOneSnapshotOpenEachSegmentOnce) {
  constexpr int kThreads = 6;
  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data_, &cache);
  ASSERT_OK_AND_ASSIGN(const uint64_t expected, data_->CountRows("id < 700 OR value < 20"));
  std::vector<arrow::Result<uint64_t>> counts(kThreads, arrow::Status::UnknownError("not run"));
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      start.arrive_and_wait();
      counts[thread] = Count(*snapshot, "id < 700 OR value < 20");
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& count : counts) {
    ASSERT_OK(count.status());
    EXPECT_EQ(*count, expected);
  }
  EXPECT_EQ(cache.statistics().opens, 3u);
  EXPECT_EQ(cache.statistics().hits, 0u);  // the snapshot asks the cache once per index
}

// A segment that cannot be opened fails with Corrupt naming it; the failure is not cached, so the
// request after a repair opens it.
TEST_F(SegmentCacheTest, AFailedOpenIsNotCached) {
  const auto& segment = SegmentOf(*data_, 0);
  const std::string lookup =
      directory_.Child("ds") + "/_indices/" + segment.uuid() + "/lookup.arrow";
  const std::string original = testing::ReadBytes(lookup);
  ASSERT_FALSE(original.empty()) << lookup;
  std::string damaged = original;
  for (size_t at = 0; at < damaged.size(); at += 7) damaged[at] = static_cast<char>(~damaged[at]);
  testing::WriteBytes(lookup, damaged);

  SegmentCache cache(kLargeBudget);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto reader = cache.Get(data_->storage(), Btree(), segment);
    ASSERT_FALSE(reader.ok());
    EXPECT_EQ(KindOf(reader.status()), ErrorKind::kCorrupt) << reader.status().ToString();
    EXPECT_NE(reader.status().message().find(segment.uuid()), std::string::npos)
        << reader.status().ToString();
    EXPECT_NE(reader.status().message().find("id_idx"), std::string::npos)
        << reader.status().ToString();
  }
  // Through a snapshot: the error reaches the query, and is not cached by the snapshot either.
  auto snapshot = Snapshot::Make(data_, &cache);
  auto count = Count(*snapshot, "id < 100");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(KindOf(count.status()), ErrorKind::kCorrupt) << count.status().ToString();
  EXPECT_FALSE(snapshot->Index(0).ok());
  auto statistics = cache.statistics();
  EXPECT_EQ(statistics.opens, 0u);
  EXPECT_EQ(statistics.entries, 0u);
  EXPECT_EQ(statistics.bytes, 0u);

  testing::WriteBytes(lookup, original);
  ASSERT_OK_AND_ASSIGN(const OpenedIndex* opened, snapshot->Index(0));
  EXPECT_EQ(opened->segments.size(), 1u);
  // Two leaves: planned, so both indexes on id are asked.
  ASSERT_OK_AND_ASSIGN(uint64_t repaired, Count(*snapshot, "id < 100 AND id >= 0"));
  EXPECT_EQ(repaired, 100u);
  EXPECT_EQ(cache.statistics().opens, 2u);  // id_idx and id_fine, both on id
  EXPECT_EQ(cache.statistics().entries, 2u);
}

}  // namespace
}  // namespace tessera::query::segment_cache_test
