// query::Read / Count / Delete: what each costs in data files and rows (read statistics), that a
// count or delete an exact index answers reads no data file, that a limit stops the read early,
// that a 50%-selective read of millions of rows stays within a memory bound independent of the
// row count, and the edge cases (an empty dataset, `_rowaddr` alone, errors before any batch).
#include "tessera/query/filtered_read.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_TEST_SANITIZED 1
#endif
#endif

namespace tessera::query::filtered_read_test {
namespace {

using testing::AddBtree;
using testing::TempDirectory;

dataset::ReadStatistics& Statistics() { return dataset::GlobalReadStatistics(); }

// What a read cost, from the global read statistics.
struct Cost {
  uint64_t data_files = 0;
  uint64_t rows_scanned = 0;
  uint64_t rows_taken = 0;

  static Cost Now() {
    return {Statistics().data_files_opened.load(), Statistics().rows_scanned.load(),
            Statistics().rows_taken.load()};
  }
  std::string ToString() const {
    return "data_files_opened=" + std::to_string(data_files) +
           " rows_scanned=" + std::to_string(rows_scanned) +
           " rows_taken=" + std::to_string(rows_taken);
  }
};

// The ids of a scan of `dataset` with `filter`, unindexed.
std::vector<int64_t> PlainIds(const dataset::Dataset& dataset, const std::string& filter) {
  dataset::ScanOptions options;
  options.filter = filter;
  options.columns = {"id"};
  auto table = dataset.ScanToTable(options);
  EXPECT_TRUE(table.ok()) << filter << ": " << table.status().ToString();
  return table.ok() ? testing::Int64Column(**table, "id") : std::vector<int64_t>{};
}

// 3 fragments of 1,000 rows (ids 0..2999; value = id / 2, null when id % 7 == 3) with BTREEs
// on id and value, and rows 5, 50 and 1500 deleted.
class FilteredReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(data_, testing::CreateSimpleDataset(directory_.Child("ds"), 3000, 1000));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "id_idx", "id"));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "value_idx", "value"));
    ASSERT_OK_AND_ASSIGN(data_, data_->Delete("id IN (5, 50, 1500)"));
  }

  std::shared_ptr<const Snapshot> MakeSnapshot() const { return Snapshot::Make(data_, &cache_); }

  TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> data_;
  mutable SegmentCache cache_{uint64_t{1} << 40};
};

// Predicates the BTREE answers exactly, through AND / OR / NOT, nulls included.
const std::vector<std::string>& ExactPredicates() {
  static const std::vector<std::string> predicates = {
      "id < 100",
      "id = 5 OR id IN (7, 8)",
      "NOT (id >= 10) AND id IS NOT NULL",
      "id != 6 AND id < 20",
      "id BETWEEN 990 AND 1010",
      "value < 20",
      "value IS NULL",
      "NOT (value >= 10) AND value IS NOT NULL",
      "id < 10 OR value > 1400",
      "(id < 500 AND value >= 100) OR id IN (2998, 2999)",
  };
  return predicates;
}

// The acceptance criterion of issue 10: a count an exact index answers reads no data file and
// no row, only index answers and deletion vectors.
TEST_F(FilteredReadTest, CountWithAnExactPredicateReadsNoDataFile) {
  for (const std::string& filter : ExactPredicates()) {
    auto snapshot = MakeSnapshot();
    Explain explain;
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, filter, &explain));
    const Cost cost = Cost::Now();
    EXPECT_EQ(cost.data_files, 0u) << filter << ": " << cost.ToString();
    EXPECT_EQ(cost.rows_scanned, 0u) << filter << ": " << cost.ToString();
    EXPECT_EQ(cost.rows_taken, 0u) << filter << ": " << cost.ToString();
    EXPECT_NE(explain.ToString().find("exact)"), std::string::npos) << filter << "\n"
                                                                    << explain.ToString();
    ASSERT_OK_AND_ASSIGN(uint64_t expected, data_->CountRows(filter));
    EXPECT_EQ(count, expected) << filter;
    EXPECT_EQ(count, PlainIds(*data_, filter).size()) << filter;
  }
}

// A superset answer costs its candidates only: taken and rechecked when they are few in their
// batches, the batches holding them evaluated when they fill a sixteenth of them
// (dataset/candidate_batches.h), never other batches; fragments without candidates are not
// opened.
TEST_F(FilteredReadTest, CountWithASupersetReadsOnlyTheCandidates) {
  const std::string sparse = "id IN (3, 300, 700) AND name LIKE 'name%'";
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(uint64_t sparse_count, Count(*MakeSnapshot(), sparse));
  const Cost sparse_cost = Cost::Now();
  EXPECT_EQ(sparse_cost.rows_taken, 3u) << sparse_cost.ToString();
  EXPECT_EQ(sparse_cost.rows_scanned, 0u) << sparse_cost.ToString();
  ASSERT_OK_AND_ASSIGN(uint64_t sparse_expected, data_->CountRows(sparse));
  EXPECT_EQ(sparse_count, sparse_expected);

  const std::string filter = "id < 100 AND name LIKE 'name1%'";
  Explain explain;
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*MakeSnapshot(), filter, &explain));
  const Cost cost = Cost::Now();
  // ids 0..99 less the deleted 5 and 50: 98 of the first batch's 256 rows.
  EXPECT_EQ(cost.rows_taken, 0u) << cost.ToString();
  EXPECT_EQ(cost.rows_scanned, 256u) << cost.ToString();
  EXPECT_EQ(cost.data_files, 1u) << cost.ToString();  // fragment 0 alone has candidates
  EXPECT_NE(explain.ToString().find("(98 candidates, rechecked)"), std::string::npos)
      << explain.ToString();
  ASSERT_OK_AND_ASSIGN(uint64_t expected, data_->CountRows(filter));
  EXPECT_EQ(count, expected);
  EXPECT_GT(count, 0u);

  // A fragment no index covers is scanned; the covered ones still cost nothing.
  ASSERT_OK_AND_ASSIGN(data_, testing::AppendSimpleRows(*data_, 3000, 1000, 1000));
  for (const std::string appended : {"id < 100 OR id >= 3990", "id = 7 OR id = 3007"}) {
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(count, Count(*MakeSnapshot(), appended));
    const Cost mixed = Cost::Now();
    EXPECT_EQ(mixed.rows_scanned, 1000u) << appended << ": " << mixed.ToString();
    EXPECT_EQ(mixed.rows_taken, 0u) << appended << ": " << mixed.ToString();
    EXPECT_EQ(mixed.data_files, 1u) << appended << ": " << mixed.ToString();
    ASSERT_OK_AND_ASSIGN(expected, data_->CountRows(appended));
    EXPECT_EQ(count, expected) << appended;
  }
}

// Issue 11: inside larger expressions the planner still answers the terms an index can
// (the rest is evaluated on the candidates: here the one batch of 256 rows holding them, of the
// fragment's 1000); an expression over an indexed column (abs(value) < 3) is evaluated, never
// answered by the index; both answer as a scan does.
TEST_F(FilteredReadTest, IndexesAnswerTheirTermsInsideExpressions) {
  const std::string with_expression = "id < 100 AND abs(value - 10) < 3";
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*MakeSnapshot(), with_expression));
  const Cost cost = Cost::Now();
  EXPECT_EQ(cost.rows_scanned, 256u) << cost.ToString();
  EXPECT_EQ(cost.rows_taken, 0u) << cost.ToString();
  EXPECT_EQ(count, PlainIds(*data_, with_expression).size());
  EXPECT_GT(count, 0u);

  for (const std::string scanned : {"abs(value) < 3", "value + 1 > 1400",
                                    "TRY_CAST(id AS int8) = 3", "coalesce(value, -1) = -1"}) {
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(count, Count(*MakeSnapshot(), scanned));
    EXPECT_EQ(Cost::Now().rows_taken, 0u) << scanned;
    EXPECT_EQ(count, PlainIds(*data_, scanned).size()) << scanned;
  }
  // A comparison with a constant expression folds to a literal and stays index-answerable.
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(count, Count(*MakeSnapshot(), "id < 10 * 10"));
  EXPECT_EQ(Cost::Now().rows_scanned, 0u);
  EXPECT_EQ(count, 98u);
}

// Issue 11, finding 4: whether a filter fails is the same on every plan. `i8`-style overflow
// here: CAST(id AS int8) fails for ids beyond 127, but only rows the other terms keep are
// evaluated, so with or without the BTREE on id the filter answers instead of failing.
TEST_F(FilteredReadTest, AFilterThatCanFailFailsTheSameOnEveryPlan) {
  const std::string guarded = "id < 100 AND CAST(id AS int8) > 90";
  ASSERT_OK_AND_ASSIGN(uint64_t indexed, Count(*MakeSnapshot(), guarded));
  EXPECT_EQ(indexed, 9u);  // 91..99
  EXPECT_EQ(PlainIds(*data_, guarded).size(), 9u);
  // The written order does not matter: id < 120 runs first, on every plan.
  const std::string reversed = "CAST(id AS int8) > 90 AND id < 120";
  ASSERT_OK_AND_ASSIGN(uint64_t reversed_count, Count(*MakeSnapshot(), reversed));
  EXPECT_EQ(reversed_count, 29u);
  EXPECT_EQ(PlainIds(*data_, reversed).size(), 29u);
  // A live row the other terms keep overflows: the same error through the index and a scan.
  const std::string failing = "CAST(id AS int8) > 90 AND id < 1000";
  auto indexed_failure = Count(*MakeSnapshot(), failing);
  ASSERT_FALSE(indexed_failure.ok());
  dataset::ScanOptions options;
  options.filter = failing;
  auto scanned_failure = data_->ScanToTable(options);
  ASSERT_FALSE(scanned_failure.ok());
  EXPECT_EQ(indexed_failure.status().message(), scanned_failure.status().message());
  EXPECT_NE(indexed_failure.status().message().find("CAST(id AS int8)"), std::string::npos)
      << indexed_failure.status().ToString();
}

// A delete an exact index answers reads no data file, and deletes exactly the matching rows.
TEST_F(FilteredReadTest, DeleteWithAnExactPredicateReadsNoDataFile) {
  for (const std::string filter : {"id < 100 OR value IS NULL", "id BETWEEN 990 AND 1010",
                                   "NOT (value >= 100) AND value IS NOT NULL"}) {
    const std::vector<int64_t> all = PlainIds(*data_, "");
    const std::vector<int64_t> matching = PlainIds(*data_, filter);
    ASSERT_FALSE(matching.empty()) << filter;
    const std::set<int64_t> doomed(matching.begin(), matching.end());
    std::vector<int64_t> expected;
    for (int64_t id : all) {
      if (doomed.count(id) == 0) expected.push_back(id);
    }
    const uint64_t version = data_->version();

    Explain explain;
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(data_, Delete(*MakeSnapshot(), filter, {}, &explain));
    const Cost cost = Cost::Now();
    EXPECT_EQ(cost.data_files, 0u) << filter << ": " << cost.ToString();
    EXPECT_EQ(cost.rows_scanned, 0u) << filter << ": " << cost.ToString();
    EXPECT_EQ(cost.rows_taken, 0u) << filter << ": " << cost.ToString();
    EXPECT_NE(explain.ToString().find("exact)"), std::string::npos) << explain.ToString();
    EXPECT_EQ(data_->version(), version + 1);
    EXPECT_EQ(PlainIds(*data_, ""), expected) << filter;
    ASSERT_OK_AND_ASSIGN(uint64_t left, data_->CountRows(filter));
    EXPECT_EQ(left, 0u) << filter;
  }
  // A superset is rechecked on its candidates only: the two batches holding them.
  const std::string filter = "id < 300 AND name = 'name1'";
  const std::vector<int64_t> matching = PlainIds(*data_, filter);
  ASSERT_FALSE(matching.empty());
  const uint64_t before = data_->CountRows();
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(data_, Delete(*MakeSnapshot(), filter));
  const Cost cost = Cost::Now();
  EXPECT_LE(cost.rows_scanned, 512u) << cost.ToString();
  EXPECT_EQ(cost.data_files, 1u) << cost.ToString();
  EXPECT_EQ(cost.rows_taken, 0u) << cost.ToString();
  EXPECT_EQ(data_->CountRows(), before - matching.size());
  EXPECT_TRUE(PlainIds(*data_, filter).empty());

  // Nothing to delete: no new version.
  const uint64_t version = data_->version();
  ASSERT_OK_AND_ASSIGN(auto unchanged, Delete(*MakeSnapshot(), "id > 100000"));
  EXPECT_EQ(unchanged->version(), version);
}

// A delete planned on a snapshot that concurrent commits passed rebases: fragments another
// delete touched are found again through the plan against their new deletion vector; rows
// appended meanwhile are not the delete's.
TEST_F(FilteredReadTest, DeleteFromAnOldSnapshotRebasesThroughThePlan) {
  const std::vector<std::string> filters = {"id < 100",
                                            "id < 100 AND (name != 'name9' OR name IS NULL)"};
  for (size_t round = 0; round < filters.size(); ++round) {
    const std::string& filter = filters[round];
    SCOPED_TRACE(filter);
    ASSERT_OK_AND_ASSIGN(
        data_, testing::CreateSimpleDataset(directory_.Child("rebase" + std::to_string(round)),
                                            3000, 1000));
    ASSERT_OK_AND_ASSIGN(data_, AddBtree(*data_, "id_idx", "id"));
    auto old = MakeSnapshot();
    ASSERT_OK_AND_ASSIGN(auto latest, data_->Delete("id < 50 OR id = 2000"));
    ASSERT_OK_AND_ASSIGN(latest, testing::AppendSimpleRows(*latest, 0, 100, 1000));
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto after, Delete(*old, filter, {}, &explain));
    EXPECT_NE(explain.ToString().find(round == 0 ? "exact)" : "rechecked)"), std::string::npos)
        << explain.ToString();
    EXPECT_EQ(after->version(), latest->version() + 1);
    EXPECT_EQ(after->CountRows(), 3000u - 100 - 1 + 100);
    ASSERT_OK_AND_ASSIGN(uint64_t low, after->CountRows("id < 100"));
    EXPECT_EQ(low, 100u);  // the appended ones
    EXPECT_EQ(PlainIds(*after, "id >= 100 AND id < 103"), (std::vector<int64_t>{100, 101, 102}));
  }
}

// Read, Count and Delete plan a filter the same way and explain it in the same lines.
TEST_F(FilteredReadTest, ReadCountAndDeleteExplainTheSamePlan) {
  for (const std::string filter :
       {"id < 100 AND name LIKE 'name1%'", "id = 5 OR value < 3", "name = 'name2'"}) {
    auto snapshot = MakeSnapshot();
    Explain read, count, deleted;
    dataset::ScanOptions options;
    options.filter = filter;
    ASSERT_OK_AND_ASSIGN(auto reader, Read(snapshot, options, &read));
    ASSERT_OK(Count(*snapshot, filter, &count).status());
    ASSERT_OK(Delete(*snapshot, filter, {}, &deleted).status());
    EXPECT_FALSE(read.lines.empty()) << filter;
    EXPECT_EQ(read.lines, count.lines) << filter;
    EXPECT_EQ(read.lines, deleted.lines) << filter;
  }
}

// An index answer is read by taking its rows when they are few in their batches, and by
// filtering the batches that hold them when they fill a sixteenth of those batches (their rows
// then come as slices of the file, dataset/candidate_batches.h); batches without candidates are
// never read; both equal the unindexed scan.
TEST_F(FilteredReadTest, AnIndexAnswerIsTakenWhenSparseAndItsBatchesFilteredWhenDense) {
  struct Case {
    std::string filter;
    uint64_t taken;
    uint64_t scanned;
  };
  for (const Case& test : std::vector<Case>{
           {"id IN (3, 300, 700)", 3, 0},                     // one row in each of three batches
           {"id < 100", 0, 256},                              // 98 rows of the first batch
           {"id < 100 AND name LIKE 'name1%'", 0, 256},       // rechecked: the same batch
           {"id IN (3, 300, 700) AND name LIKE 'n%'", 3, 0},  // rechecked, taken
       }) {
    dataset::ScanOptions options;
    options.filter = test.filter;
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(auto reader, Read(MakeSnapshot(), options));
    ASSERT_OK_AND_ASSIGN(auto table, testing::ReadAll(*reader));
    const Cost cost = Cost::Now();
    EXPECT_EQ(cost.rows_taken, test.taken) << test.filter << ": " << cost.ToString();
    EXPECT_EQ(cost.rows_scanned, test.scanned) << test.filter << ": " << cost.ToString();
    EXPECT_EQ(testing::Int64Column(*table, "id"), PlainIds(*data_, test.filter)) << test.filter;
  }
}

// With a limit, an index-answered read takes about the rows it returns, and a scanned one stops
// after the batch that fills it.
TEST_F(FilteredReadTest, ALimitStopsTheReadEarly) {
  struct Case {
    std::string filter;
    uint64_t limit;
    uint64_t most_taken;
    uint64_t most_scanned;
  };
  for (const Case& test : std::vector<Case>{
           {"id >= 2", 10, 10, 0},   // exact: only the rows returned
           {"id >= 0", 10, 0, 256},  // exact and every live row: scanned unfiltered, one batch
           // Rechecked: a first chunk (statistics show `id >= 2` holds in the later fragments).
           {"id >= 2 AND name = 'name1'", 10, 256, 0},
           {"name = 'name1'", 10, 0, 256},  // scanned: one batch
           {"id >= 0", 0, 0, 0},
       }) {
    dataset::ScanOptions options;
    options.filter = test.filter;
    options.limit = test.limit;
    options.columns = {"id", "name"};
    Statistics().Reset();
    ASSERT_OK_AND_ASSIGN(auto reader, Read(MakeSnapshot(), options));
    ASSERT_OK_AND_ASSIGN(auto table, testing::ReadAll(*reader));
    const Cost cost = Cost::Now();
    EXPECT_LE(cost.rows_taken, test.most_taken) << test.filter << ": " << cost.ToString();
    EXPECT_LE(cost.rows_scanned, test.most_scanned) << test.filter << ": " << cost.ToString();
    EXPECT_EQ(table->num_rows(), static_cast<int64_t>(test.limit)) << test.filter;
    ASSERT_OK_AND_ASSIGN(auto plain, data_->ScanToTable(options));
    EXPECT_TRUE(table->Equals(*plain)) << test.filter;
  }
}

// Index-answered fragments stream in batches of at most kReadBatchRows rows, never the whole
// fragment's candidates at once; the stream equals the unindexed scan.
TEST(QueryFilteredRead, CandidatesStreamInBoundedBatches) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data,
                       testing::CreateSimpleDataset(directory.Child("ds"), 40000, 20000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  for (const std::string filter : {"id >= 100", "id >= 100 AND name != 'name3'"}) {
    dataset::ScanOptions options;
    options.filter = filter;
    options.with_row_address = true;
    ASSERT_OK_AND_ASSIGN(auto reader, Read(Snapshot::Make(data), options));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ASSERT_OK(reader->ReadNext(&batch));
      if (batch == nullptr) break;
      EXPECT_LE(batch->num_rows(), static_cast<int64_t>(kReadBatchRows)) << filter;
      EXPECT_GT(batch->num_rows(), 0) << filter;
      batches.push_back(std::move(batch));
    }
    EXPECT_GE(batches.size(), 5u) << filter;
    ASSERT_OK_AND_ASSIGN(auto table, arrow::Table::FromRecordBatches(reader->schema(), batches));
    ASSERT_OK_AND_ASSIGN(auto plain, data->ScanToTable(options));
    EXPECT_TRUE(table->Equals(*plain)) << filter;
  }
}

// A dataset without rows: every entry point answers, with the output schema and no batch.
TEST(QueryFilteredRead, AnEmptyDatasetReadsNothing) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, testing::CreateSimpleDataset(directory.Child("ds"), 2000, 1000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("TRUE"));
  ASSERT_EQ(data->manifest().fragments_size(), 0);
  // And one created without rows.
  ASSERT_OK_AND_ASSIGN(auto created, dataset::Dataset::Create(directory.Child("created"),
                                                              testing::SimpleReader(0, 0, 2)));
  ASSERT_EQ(created->manifest().fragments_size(), 0);
  for (const auto& [empty, filter] :
       std::vector<std::pair<std::shared_ptr<dataset::Dataset>, std::string>>{
           {data, ""},
           {data, "id < 10"},
           {data, "name = 'name1'"},
           {data, "FALSE"},
           {data, "TRUE"},
           {created, ""},
           {created, "id < 10"}}) {
    auto snapshot = Snapshot::Make(empty);
    dataset::ScanOptions options;
    options.filter = filter;
    options.columns = {"name", "id"};
    options.with_row_address = true;
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto reader, Read(snapshot, options, &explain));
    EXPECT_EQ(reader->schema()->num_fields(), 3) << filter;
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_OK(reader->ReadNext(&batch));
    EXPECT_EQ(batch, nullptr) << filter;
    ASSERT_OK(reader->ReadNext(&batch));  // and stays at the end
    EXPECT_EQ(batch, nullptr) << filter;
    ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, filter));
    EXPECT_EQ(count, 0u) << filter;
    if (!filter.empty()) {
      ASSERT_OK_AND_ASSIGN(auto after, Delete(*snapshot, filter));
      EXPECT_EQ(after->version(), empty->version()) << filter;
    }
  }
  // Bad input is still an error.
  dataset::ScanOptions options;
  options.filter = "nope < 1";
  EXPECT_EQ(KindOf(Read(Snapshot::Make(data), options).status()), ErrorKind::kInvalidArgument);
}

// Errors of the options come from Read itself, before any batch.
TEST_F(FilteredReadTest, BadOptionsFailBeforeTheFirstBatch) {
  dataset::ScanOptions options;
  options.columns = {"nope"};
  EXPECT_EQ(KindOf(Read(MakeSnapshot(), options).status()), ErrorKind::kInvalidArgument);
  options.columns = {"id", "id"};
  EXPECT_EQ(KindOf(Read(MakeSnapshot(), options).status()), ErrorKind::kInvalidArgument);
  options.columns = {};
  for (const std::string filter : {"id <", "nope = 1", "id = 'text'"}) {
    options.filter = filter;
    auto read = Read(MakeSnapshot(), options);
    EXPECT_EQ(KindOf(read.status()), ErrorKind::kInvalidArgument) << filter;
    EXPECT_EQ(KindOf(Count(*MakeSnapshot(), filter).status()), ErrorKind::kInvalidArgument)
        << filter;
    EXPECT_EQ(KindOf(Delete(*MakeSnapshot(), filter).status()), ErrorKind::kInvalidArgument)
        << filter;
  }
  EXPECT_EQ(KindOf(Delete(*MakeSnapshot(), "").status()), ErrorKind::kInvalidArgument);
}

// Row addresses alone, for rows an exact index answers, come from the index: no data file.
TEST_F(FilteredReadTest, RowAddressesAloneOfAnExactAnswerReadNoDataFile) {
  dataset::ScanOptions options;
  options.filter = "id < 100 OR id BETWEEN 1490 AND 1510";
  options.columns = {dataset::kRowAddressColumn};
  options.with_row_address = true;
  Statistics().Reset();
  ASSERT_OK_AND_ASSIGN(auto reader, Read(MakeSnapshot(), options));
  ASSERT_OK_AND_ASSIGN(auto table, testing::ReadAll(*reader));
  const Cost cost = Cost::Now();
  EXPECT_EQ(cost.data_files, 0u) << cost.ToString();
  EXPECT_EQ(cost.rows_taken, 0u) << cost.ToString();
  ASSERT_EQ(table->num_columns(), 1);
  EXPECT_EQ(table->schema()->field(0)->name(), dataset::kRowAddressColumn);
  EXPECT_EQ(table->num_rows(), 98 + 20);  // less 5, 50 and 1500, deleted
  dataset::ScanOptions plain = options;
  plain.columns = {"id"};
  ASSERT_OK_AND_ASSIGN(auto expected, data_->ScanToTable(plain));
  EXPECT_TRUE(table->column(0)->Equals(*expected->GetColumnByName(dataset::kRowAddressColumn)));
}

// --- memory ---

// Rows [first, first + rows) of the memory test's table: key = row, bucket = row % 10,
// payload = row * 7.
std::shared_ptr<arrow::RecordBatch> WideBatch(int64_t first, int64_t rows) {
  arrow::Int64Builder key, bucket, payload;
  EXPECT_OK(key.Reserve(rows));
  EXPECT_OK(bucket.Reserve(rows));
  EXPECT_OK(payload.Reserve(rows));
  for (int64_t row = first; row < first + rows; ++row) {
    key.UnsafeAppend(row);
    bucket.UnsafeAppend(row % 10);
    payload.UnsafeAppend(row * 7);
  }
  auto schema =
      arrow::schema({arrow::field("key", arrow::int64()), arrow::field("bucket", arrow::int64()),
                     arrow::field("payload", arrow::int64())});
  return arrow::RecordBatch::Make(
      schema, rows,
      {key.Finish().ValueOrDie(), bucket.Finish().ValueOrDie(), payload.Finish().ValueOrDie()});
}

class WideReader final : public arrow::RecordBatchReader {
 public:
  WideReader(int64_t rows, int64_t batch_rows) : rows_(rows), batch_rows_(batch_rows) {}
  std::shared_ptr<arrow::Schema> schema() const override { return WideBatch(0, 0)->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = next_ < rows_ ? WideBatch(next_, std::min(batch_rows_, rows_ - next_)) : nullptr;
    next_ += batch_rows_;
    return arrow::Status::OK();
  }

 private:
  int64_t rows_;
  int64_t batch_rows_;
  int64_t next_ = 0;
};

// The line tessera_test_reader prints, as numbers by name.
std::map<std::string, int64_t> ParseFigures(const std::string& line) {
  std::map<std::string, int64_t> figures;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const size_t equal = word.find('=');
    if (equal != std::string::npos)
      figures[word.substr(0, equal)] = std::stoll(word.substr(equal + 1));
  }
  return figures;
}

// Reads `filter` in a fresh process and returns what it measured.
// The readers the reader process keeps mapped (dataset/open_fragments.h): one fragment of the
// dataset below (24 MiB), so that the scan's resident pages are bounded by this and by those of
// the fragments in flight, not by the dataset's size.
constexpr int64_t kOpenFragmentBytes = 32 << 20;

std::map<std::string, int64_t> MeasureRead(const TempDirectory& directory, const std::string& uri,
                                           const std::string& filter) {
  testing::ChildProcess::Options options;
  options.environment["TESSERA_OPEN_FRAGMENT_BYTES"] = std::to_string(kOpenFragmentBytes);
  options.stdout_path = directory.Child("reader.out");
  options.stderr_path = directory.Child("reader.err");
  testing::ChildProcess child(testing::HelperProgram("tessera_test_reader"),
                              {uri, "--where", filter}, options);
  const testing::ExitStatus status = child.Wait(std::chrono::seconds(120));
  EXPECT_TRUE(status.Succeeded()) << status.ToString() << ": " << child.Stderr();
  return ParseFigures(child.Stdout());
}

// The acceptance criterion of issue 10: a 50%-selective filtered read of millions of rows,
// consumed batch by batch, holds a bounded amount of memory, independent of the row count —
// whether it scans, takes exact index candidates, or rechecks superset candidates. Measured in a
// fresh process (Arrow's pool and the kernel only know their peak since the process began):
// the peak of Arrow's default memory pool, which every Arrow buffer the read allocates comes
// from (builders, Take, Filter), and, for the record, the growth of peak RSS, which also counts
// pages of the memory-mapped data files and the planner's row sets.
TEST(QueryFilteredRead, AHalfSelectiveReadOfMillionsOfRowsStaysWithinAMemoryBound) {
#ifdef TESSERA_TEST_SANITIZED
  constexpr int64_t kRows = 500'000;  // ASan is ~6x slower; the bounds do not depend on it
#else
  constexpr int64_t kRows = 4'000'000;
#endif
  constexpr int64_t kPoolBound = 8 << 20;
  // Peak RSS also counts the mapped pages of the data file being read (up to a fragment of 1M
  // rows, 24 MiB here), those of the fragments kept open (kOpenFragmentBytes) and the process's
  // own growth; not checked under sanitizers, whose shadow memory grows with everything.
  [[maybe_unused]] constexpr int64_t kScanRssBound = (64 << 20) + kOpenFragmentBytes;
  // Every column of half the rows, materialized: what a read into one table would hold.
  constexpr int64_t kMaterialized = kRows / 2 * 3 * 8;
  TempDirectory directory;
  const std::string uri = directory.Child("wide");
  {
    ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(uri, std::make_shared<WideReader>(
                                                                      kRows, int64_t{1} << 16)));
    ASSERT_OK(AddBtree(*data, "key_idx", "key").status());
  }
  const std::string half = std::to_string(kRows / 2);
  const std::string all = std::to_string(kRows);
  for (const auto& [path, filter] : std::vector<std::pair<std::string, std::string>>{
           {"scan", "bucket < 5"},
           {"exact index answer", "key < " + half},
           {"superset index answer, rechecked", "key < " + all + " AND bucket >= 5"},
       }) {
    const auto figures = MeasureRead(directory, uri, filter);
    ASSERT_EQ(figures.count("pool_peak"), 1u) << filter;
    EXPECT_EQ(figures.at("rows"), kRows / 2) << filter;
    EXPECT_LE(figures.at("largest_batch"), static_cast<int64_t>(kReadBatchRows)) << filter;
    EXPECT_LT(figures.at("pool_peak"), kPoolBound) << filter;
    const int64_t rss_growth = figures.at("rss_peak_kib") - figures.at("rss_before_kib");
#ifndef TESSERA_TEST_SANITIZED
    // Index answers are planned as row sets of every matching row, and the segment's pages stay
    // mapped: only the scan's RSS is independent of the row count today.
    if (path == "scan") {
      EXPECT_LT(rss_growth * 1024, kScanRssBound) << filter;
    }
#endif
    std::printf(
        "memory of a 50%%-selective read of %lld rows (%s, '%s'): Arrow pool peak %.1f MiB "
        "(bound %.0f MiB; the result materialized: %.0f MiB), peak RSS growth %.1f MiB "
        "(anonymous %.1f MiB), %lld batches\n",
        static_cast<long long>(kRows), path.c_str(), filter.c_str(),
        static_cast<double>(figures.at("pool_peak")) / (1 << 20),
        static_cast<double>(kPoolBound) / (1 << 20), static_cast<double>(kMaterialized) / (1 << 20),
        static_cast<double>(rss_growth) / 1024,
        static_cast<double>(figures.at("anon_peak_kib") - figures.at("anon_before_kib")) / 1024,
        static_cast<long long>(figures.at("batches")));
  }
#ifndef TESSERA_TEST_SANITIZED
  static_assert(kMaterialized > 4 * kPoolBound, "the bound must be far below the result");
#endif
}

}  // namespace
}  // namespace tessera::query::filtered_read_test
