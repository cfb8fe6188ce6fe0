// query::Scan: the indexed filtered scan returns exactly what the unindexed scan returns, and a
// covered fragment costs O(candidates) rows.
#include "tessera/query/filtered_scan.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"

namespace tessera::query {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

constexpr int64_t kSecond = 1000000;
constexpr int64_t kEpoch2024 = 1704067200LL * kSecond;  // 2024-01-01 00:00:00 UTC, in µs

std::shared_ptr<arrow::Schema> MixedSchema() {
  return arrow::schema({
      arrow::field("id", arrow::int64()),
      arrow::field("i64", arrow::int64()),
      arrow::field("f64", arrow::float64()),
      arrow::field("s", arrow::utf8()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)),
      arrow::field("flag", arrow::boolean()),
  });
}

const std::vector<std::string>& Words() {
  static const std::vector<std::string> words = {"", "a", "ab", "b", "ba", "c", "cat", "dog", "z"};
  return words;
}

// Rows with ids [first_id, first_id + rows): small value domains so that predicates match
// several rows, with nulls everywhere, NaN, -0.0 and 0.0 among the floats.
std::shared_ptr<arrow::RecordBatch> MixedBatch(std::mt19937_64& random, int64_t first_id,
                                               int64_t rows) {
  arrow::Int64Builder id, i64;
  arrow::DoubleBuilder f64;
  arrow::StringBuilder s;
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO),
                             arrow::default_memory_pool());
  arrow::BooleanBuilder flag;
  auto chance = [&](int percent) { return static_cast<int>(random() % 100) < percent; };
  for (int64_t row = 0; row < rows; ++row) {
    EXPECT_OK(id.Append(first_id + row));
    if (chance(10)) {
      EXPECT_OK(i64.AppendNull());
    } else {
      EXPECT_OK(i64.Append(static_cast<int64_t>(random() % 41) - 20));
    }
    const int kind = static_cast<int>(random() % 100);
    if (kind < 8) {
      EXPECT_OK(f64.AppendNull());
    } else if (kind < 13) {
      EXPECT_OK(f64.Append(std::nan("")));
    } else if (kind < 16) {
      EXPECT_OK(f64.Append(-0.0));
    } else if (kind < 19) {
      EXPECT_OK(f64.Append(0.0));
    } else {
      EXPECT_OK(f64.Append(static_cast<double>(static_cast<int>(random() % 81) - 40) * 0.25));
    }
    if (chance(10)) {
      EXPECT_OK(s.AppendNull());
    } else {
      EXPECT_OK(s.Append(Words()[random() % Words().size()]));
    }
    if (chance(10)) {
      EXPECT_OK(ts.AppendNull());
    } else {
      EXPECT_OK(ts.Append(kEpoch2024 + static_cast<int64_t>(random() % 100) * kSecond));
    }
    if (chance(10)) {
      EXPECT_OK(flag.AppendNull());
    } else {
      EXPECT_OK(flag.Append(chance(50)));
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> arrays(6);
  EXPECT_OK(id.Finish(&arrays[0]));
  EXPECT_OK(i64.Finish(&arrays[1]));
  EXPECT_OK(f64.Finish(&arrays[2]));
  EXPECT_OK(s.Finish(&arrays[3]));
  EXPECT_OK(ts.Finish(&arrays[4]));
  EXPECT_OK(flag.Finish(&arrays[5]));
  return arrow::RecordBatch::Make(MixedSchema(), rows, arrays);
}

dataset::WriteOptions SmallFiles() {
  dataset::WriteOptions options;
  options.max_rows_per_file = 200;
  options.rows_per_batch = 64;
  return options;
}

// --- random predicates over the mixed schema ---

class PredicateGenerator {
 public:
  explicit PredicateGenerator(std::mt19937_64& random) : random_(random) {}

  std::string Predicate(int depth) {
    const int choice = depth <= 0 ? 0 : Pick(10);
    if (choice < 5) return Leaf();
    if (choice < 7) return Join(" AND ", depth);
    if (choice < 9) return Join(" OR ", depth);
    return "NOT (" + Predicate(depth - 1) + ")";
  }

 private:
  int Pick(int n) { return static_cast<int>(random_() % static_cast<uint64_t>(n)); }

  std::string Join(const char* op, int depth) {
    const int count = 2 + Pick(2);
    std::string text = "(" + Predicate(depth - 1);
    for (int i = 1; i < count; ++i) text += op + Predicate(depth - 1);
    return text + ")";
  }

  std::string Int() { return std::to_string(Pick(45) - 22); }
  std::string Float() {
    static const char* const kSpecial[] = {"0", "-0.0", "0.0", "1.5", "-2.25", "10", "-10.5"};
    if (Pick(3) == 0) return kSpecial[Pick(7)];
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(Pick(85) - 42) * 0.25);
    return text;
  }
  std::string Word() {
    static const char* const kExtra[] = {"aa", "bz", "cab", "zz"};
    if (Pick(5) == 0) return std::string("'") + kExtra[Pick(4)] + "'";
    return "'" + Words()[static_cast<size_t>(Pick(static_cast<int>(Words().size())))] + "'";
  }
  std::string Time() {
    const int seconds = Pick(105);
    char text[64];
    std::snprintf(text, sizeof(text), "TIMESTAMP '2024-01-01 00:%02d:%02d'", seconds / 60,
                  seconds % 60);
    return text;
  }

  // A column with a random literal generator.
  std::pair<std::string, std::string> ColumnAndLiteral(bool* is_string) {
    *is_string = false;
    switch (Pick(4)) {
      case 0:
        return {"i64", Int()};
      case 1:
        return {"f64", Float()};
      case 2:
        *is_string = true;
        return {"s", Word()};
      default:
        return {"ts", Time()};
    }
  }

  std::string Literal(const std::string& column) {
    if (column == "i64") return Int();
    if (column == "f64") return Float();
    if (column == "s") return Word();
    return Time();
  }

  std::string Leaf() {
    bool is_string = false;
    auto [column, literal] = ColumnAndLiteral(&is_string);
    static const char* const kOps[] = {"=", "!=", "<", "<=", ">", ">="};
    switch (Pick(14)) {
      case 0:
      case 1:
      case 2:
        return column + " " + kOps[Pick(6)] + " " + literal;
      case 3:
        return literal + " " + kOps[Pick(6)] + " " + column;  // the binder flips it
      case 4:
        return column + (Pick(2) ? " NOT" : "") + " BETWEEN " + literal + " AND " + Literal(column);
      case 5: {
        std::string list = literal;
        const int extra = Pick(4);
        for (int i = 0; i < extra; ++i) list += ", " + Literal(column);
        if (Pick(4) == 0) list += ", NULL";
        return column + (Pick(2) ? " NOT" : "") + " IN (" + list + ")";
      }
      case 6:
        return column + (Pick(2) ? " IS NOT NULL" : " IS NULL");
      case 7:
        return Pick(2) ? "flag" : (Pick(2) ? "flag = TRUE" : "flag != FALSE");
      case 8:
        return "id < " + std::to_string(Pick(1600));  // an unindexed column
      case 9:
        return "s LIKE '" + std::string(Pick(2) ? "a" : "c") + "%'";  // no index answers LIKE
      case 10:
        return "i64 < id";  // column against column: only rechecked
      case 11: {
        static const char* const kConstants[] = {"TRUE", "FALSE", "i64 = NULL"};
        return kConstants[Pick(3)];
      }
      default:
        return column + " = " + literal;
    }
  }

  std::mt19937_64& random_;
};

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
  auto batch = MixedBatch(random, history->next_id, rows);
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
      auto batch = MixedBatch(random, 0, 500);
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
  auto batch = MixedBatch(random, 0, 300);
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
  EXPECT_NE(text.find("fragments [0..2]: BTREE index 'key_idx' segment " + uuid + " answers '" +
                      "key < 10" + "' (10 candidates, rechecked)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fragment 3: scan (not covered by an index on key)"), std::string::npos)
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
}  // namespace tessera::query
