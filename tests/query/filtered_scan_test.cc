// query::Scan: the indexed filtered scan returns exactly what the unindexed scan returns, and a
// covered fragment costs O(candidates) rows.
#include "tessera/query/filtered_scan.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/mixed_filters.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"

namespace tessera::query::filtered_scan_test {
namespace {

using testing::MixedFilterBatch;
using testing::PredicateGenerator;
using testing::ReaderOf;
using testing::SmallFiles;
using testing::TempDirectory;

std::string Describe(const arrow::Table& table) { return table.ToString().substr(0, 2000); }

void ExpectSameScan(const dataset::Dataset& dataset, const dataset::ScanOptions& options,
                    int* indexed_queries) {
  Explain explain;
  auto indexed = Scan(dataset, options, &explain);
  auto plain = dataset.ScanToTable(options);
  ASSERT_EQ(indexed.ok(), plain.ok()) << options.filter << ": " << indexed.status().ToString()
                                      << " vs " << plain.status().ToString();
  if (!plain.ok()) {
    EXPECT_EQ(KindOf(indexed.status()), KindOf(plain.status())) << options.filter;
    return;
  }
  const auto equal = arrow::EqualOptions::Defaults().nans_equal(true);
  ASSERT_TRUE((*indexed)->Equals(**plain, equal)) << "filter: " << options.filter << "\nexplain:\n"
                                                  << explain.ToString() << "\nindexed:\n"
                                                  << Describe(**indexed) << "\nplain:\n"
                                                  << Describe(**plain);
  const std::string text = explain.ToString();
  if (text.find("candidates") != std::string::npos || text.find("exact)") != std::string::npos) {
    ++*indexed_queries;
  }
}

struct History {
  std::shared_ptr<dataset::Dataset> dataset;
  int64_t next_id = 0;
};

void Append(History* history, std::mt19937_64& random, int64_t rows) {
  auto batch = MixedFilterBatch(random, history->next_id, rows);
  history->next_id += rows;
  auto appended = history->dataset->Append(ReaderOf(batch), SmallFiles());
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  history->dataset = *appended;
}

void DeleteSome(History* history, std::mt19937_64& random) {
  std::string filter;
  switch (random() % 3) {
    case 0: {
      const int64_t start =
          static_cast<int64_t>(random() % static_cast<uint64_t>(history->next_id));
      filter = "id >= " + std::to_string(start) + " AND id < " +
               std::to_string(start + 1 + static_cast<int64_t>(random() % 250));
      break;
    }
    case 1:
      filter = "i64 = " + std::to_string(static_cast<int64_t>(random() % 41) - 20);
      break;
    default:
      filter = "f64 > 8 OR s = 'dog'";
      break;
  }
  auto deleted = history->dataset->Delete(filter, SmallFiles());
  ASSERT_TRUE(deleted.ok()) << filter << ": " << deleted.status().ToString();
  history->dataset = *deleted;
}

void CreateIndexes(History* history) {
  for (const std::string column : {"i64", "f64", "s", "ts", "flag"}) {
    index::IndexSpec spec;
    spec.name = column + "_idx";
    spec.column = column;
    spec.family = "BTREE";
    auto created = index::CreateIndex(*history->dataset, spec);
    ASSERT_TRUE(created.ok()) << column << ": " << created.status().ToString();
    history->dataset = *created;
  }
}

// Property: over random histories (appends and deletes before and after the indexes were
// built, optimized or not), query::Scan returns exactly what the unindexed scan returns for
// random predicates over indexed and unindexed columns.
TEST(QueryFilteredScan, EquivalentToUnindexedScanOverRandomHistories) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    TempDirectory directory;
    History history;
    {
      auto batch = MixedFilterBatch(random, 0, 500);
      history.next_id = 500;
      ASSERT_OK_AND_ASSIGN(
          history.dataset,
          dataset::Dataset::Create(directory.Child("mixed"), ReaderOf(batch), SmallFiles()));
    }
    DeleteSome(&history, random);
    Append(&history, random, 150 + static_cast<int64_t>(random() % 200));
    CreateIndexes(&history);
    DeleteSome(&history, random);
    Append(&history, random, 100 + static_cast<int64_t>(random() % 250));
    if (seed != 1) {
      // A delta segment over the new fragments; then more unindexed data.
      index::OptimizeOptions optimize;
      optimize.merge.kind = index::MergePolicy::Kind::kNone;
      auto optimized = index::OptimizeIndexes(*history.dataset, optimize);
      ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
      history.dataset = optimized->dataset;
      Append(&history, random, 120);
    }
    DeleteSome(&history, random);

    PredicateGenerator generator(random);
    int indexed_queries = 0;
    const int kQueries = 150;
    for (int query = 0; query < kQueries; ++query) {
      dataset::ScanOptions options;
      options.filter = generator.Predicate(static_cast<int>(random() % 4));
      options.with_row_address = random() % 2 == 0;
      switch (random() % 3) {
        case 0:
          options.columns = {"id"};
          break;
        case 1:
          options.columns = {"s", "id", "f64"};
          break;
        default:
          break;  // every column
      }
      if (random() % 5 == 0) options.limit = random() % 40;
      ASSERT_NO_FATAL_FAILURE(ExpectSameScan(*history.dataset, options, &indexed_queries));
    }
    // The property means little unless most queries went through the index.
    EXPECT_GT(indexed_queries, kQueries / 3);
  }
}

TEST(QueryFilteredScan, PlainCasesMatchTheDatasetScan) {
  std::mt19937_64 random(7);
  TempDirectory directory;
  History history;
  auto batch = MixedFilterBatch(random, 0, 300);
  history.next_id = 300;
  ASSERT_OK_AND_ASSIGN(history.dataset, dataset::Dataset::Create(directory.Child("plain"),
                                                                 ReaderOf(batch), SmallFiles()));
  CreateIndexes(&history);
  int indexed = 0;
  for (const std::string filter : {"", "TRUE", "FALSE", "i64 = NULL", "1 = 1"}) {
    dataset::ScanOptions options;
    options.filter = filter;
    options.with_row_address = true;
    ASSERT_NO_FATAL_FAILURE(ExpectSameScan(*history.dataset, options, &indexed));
  }
  // Errors are the unindexed scan's.
  for (const auto& [columns, filter] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"nope"}, "i64 = 1"}, {{"id"}, "nope = 1"}, {{"id"}, "i64 = "}, {{"id", "id"}, ""}}) {
    dataset::ScanOptions options;
    options.columns = columns;
    options.filter = filter;
    ASSERT_NO_FATAL_FAILURE(ExpectSameScan(*history.dataset, options, &indexed));
  }
  // Limits, including 0 and limits that stop inside an index-answered fragment.
  for (uint64_t limit : {0u, 1u, 3u, 50u, 1000u}) {
    dataset::ScanOptions options;
    options.filter = "i64 >= 0 AND f64 < 5";
    options.limit = limit;
    ASSERT_NO_FATAL_FAILURE(ExpectSameScan(*history.dataset, options, &indexed));
  }
}

// Index key and data for the row-counter tests: key = id.
std::shared_ptr<arrow::RecordBatch> KeyBatch(int64_t first, int64_t rows) {
  arrow::Int64Builder key;
  arrow::StringBuilder name;
  for (int64_t row = 0; row < rows; ++row) {
    EXPECT_OK(key.Append(first + row));
    EXPECT_OK(name.Append("n" + std::to_string((first + row) % 10)));
  }
  auto schema =
      arrow::schema({arrow::field("key", arrow::int64()), arrow::field("name", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, rows,
                                  {key.Finish().ValueOrDie(), name.Finish().ValueOrDie()});
}

// A point query on fragments a BTREE covers reads O(candidates) rows: nothing is scanned there,
// and only the matching rows are taken.
TEST(QueryFilteredScan, PointQueryOnCoveredFragmentsReadsOnlyCandidates) {
  TempDirectory directory;
  dataset::WriteOptions write;
  write.max_rows_per_file = 1000;
  write.rows_per_batch = 256;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(directory.Child("keys"),
                                                           ReaderOf(KeyBatch(0, 4000)), write));
  index::IndexSpec spec{"key_idx", "key", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("key = 1501"));

  auto& statistics = dataset::GlobalReadStatistics();
  dataset::ScanOptions options;
  options.filter = "key = 1234";
  options.with_row_address = true;
  statistics.Reset();
  ASSERT_OK_AND_ASSIGN(auto table, Scan(*data, options));
  EXPECT_EQ(table->num_rows(), 1);
  EXPECT_EQ(statistics.rows_scanned.load(), 0u);
  EXPECT_EQ(statistics.rows_taken.load(), 1u);

  options.filter = "key IN (5, 1500, 1501, 2999, 99999) AND name != 'n7'";
  statistics.Reset();
  ASSERT_OK_AND_ASSIGN(table, Scan(*data, options));
  EXPECT_EQ(table->num_rows(), 3);  // 1501 is deleted, 99999 does not exist
  EXPECT_EQ(statistics.rows_scanned.load(), 0u);
  EXPECT_EQ(statistics.rows_taken.load(), 3u);

  // An unindexed fragment appended afterwards is scanned; the covered ones still are not.
  ASSERT_OK_AND_ASSIGN(data, data->Append(ReaderOf(KeyBatch(4000, 1000)), write));
  options.filter = "key = 1234 OR key = 4321";
  statistics.Reset();
  ASSERT_OK_AND_ASSIGN(table, Scan(*data, options));
  EXPECT_EQ(table->num_rows(), 2);
  EXPECT_EQ(statistics.rows_scanned.load(), 1000u);  // the new fragment only
  EXPECT_EQ(statistics.rows_taken.load(), 1u);       // 1234, from a covered fragment
  ASSERT_OK_AND_ASSIGN(auto expected, data->ScanToTable(options));
  EXPECT_TRUE(table->Equals(*expected));
}

TEST(QueryFilteredScan, ExplainNamesIndexesAndScansPerFragmentGroup) {
  TempDirectory directory;
  dataset::WriteOptions write;
  write.max_rows_per_file = 1000;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(directory.Child("explain"),
                                                           ReaderOf(KeyBatch(0, 3000)), write));
  index::IndexSpec spec{"key_idx", "key", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  ASSERT_OK_AND_ASSIGN(data, data->Append(ReaderOf(KeyBatch(3000, 1000)), write));
  const std::string uuid = data->manifest().indexes(0).segments(0).uuid().substr(0, 8);

  dataset::ScanOptions options;
  options.filter = "key < 10 AND name LIKE 'n1%'";
  Explain explain;
  ASSERT_OK_AND_ASSIGN(auto table, Scan(*data, options, &explain));
  EXPECT_EQ(table->num_rows(), 1);  // key 1
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("fragment 0: BTREE index 'key_idx' segment " + uuid + " answers '" +
                      "key < 10" + "' (10 candidates, rechecked)"),
            std::string::npos)
      << text;
  // Statistics, asked before any index, rule out the fragments with keys from 1000, covered by
  // the index (1 and 2) or not (3, appended): one group.
  EXPECT_NE(
      text.find("fragments [1..3]: skipped: fragment statistics show 'key < 10' matches no row"),
      std::string::npos)
      << text;

  // A filter the index cannot narrow scans every fragment and says why.
  options.filter = "key < 10 OR name LIKE 'n1%'";
  explain = Explain();
  ASSERT_OK_AND_ASSIGN(table, Scan(*data, options, &explain));
  EXPECT_NE(explain.ToString().find("fragments [0..2]: scan (index 'key_idx' covers it but "
                                    "cannot narrow the filter)"),
            std::string::npos)
      << explain.ToString();

  // NOT, != and NOT IN go through the index too.
  options.filter = "NOT (key >= 5) AND key != 2 AND key NOT IN (3, 4)";
  explain = Explain();
  ASSERT_OK_AND_ASSIGN(table, Scan(*data, options, &explain));
  EXPECT_EQ(testing::Int64Column(*table, "key"), (std::vector<int64_t>{0, 1}));
  EXPECT_NE(explain.ToString().find("(2 rows, exact)"), std::string::npos) << explain.ToString();
}

}  // namespace
}  // namespace tessera::query::filtered_scan_test
