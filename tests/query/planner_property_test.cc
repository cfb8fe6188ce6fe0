// Property: over random histories (appends, deletes, compactions, index creates and replaces,
// distributed builds over random fragment splits, optimizes with every merge policy, drops) with
// several indexes per column — exact BTREEs and superset MINMAX zone maps
// (tests/support/minmax_family.h) on the same columns — query::Read, Count and Delete give exactly
// what the unindexed path gives (Dataset::ScanToTable, CountRows, Delete) for random AND / OR / NOT
// predicates over two or more indexed columns mixed with leaves no index answers (LIKE, column
// against column), with projections, `_rowaddr` and limits.
//
// Bounded: fixed seeds, kSteps history steps and kQueriesPerCheck queries at two points of each
// history, on a few thousand rows.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/minmax_family.h"
#include "support/mixed_filters.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/compaction.h"
#include "tessera/dataset/dataset.h"
#include "tessera/expr/filter.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace tessera::query::planner_property_test {
namespace {

using testing::MixedFilterBatch;
using testing::PredicateGenerator;
using testing::ReaderOf;
using testing::SmallFiles;
using testing::TempDirectory;

constexpr int kSteps = 10;
constexpr int kQueriesPerCheck = 50;
// One query in this many is also run as a delete, on two copies of the dataset (each costs two
// durable commits); every query's matching rows are compared as FindMatchingRows finds them.
constexpr int kDeleteEvery = 50;

// The indexes a history may create: a BTREE and a MINMAX on i64 and on f64, MINMAX only on id
// (ascending, so zone maps narrow well), a BTREE and an NGRAM (bigrams: the words are short) on
// s, BTREE only on flag and ts; ZONEMAPs on id, i64, f64, s and ts and BLOOMFILTERs on i64, s
// and ts beside them.
const std::vector<index::IndexSpec>& IndexPool() {
  static const std::vector<index::IndexSpec> pool = {
      {"i64_btree", "i64", "BTREE", {{"page_rows", "16"}}},
      {"i64_zones", "i64", "MINMAX", {{"page_rows", "16"}}},
      {"f64_btree", "f64", "BTREE", {}},
      {"f64_zones", "f64", "MINMAX", {{"page_rows", "8"}}},
      {"id_zones", "id", "MINMAX", {{"page_rows", "32"}}},
      {"s_btree", "s", "BTREE", {}},
      {"s_ngram", "s", "NGRAM", {{"n", "2"}}},
      {"flag_btree", "flag", "BTREE", {}},
      {"ts_btree", "ts", "BTREE", {}},
      {"id_zonemap", "id", "ZONEMAP", {{"rows_per_zone", "32"}}},
      {"i64_zonemap", "i64", "ZONEMAP", {{"rows_per_zone", "16"}}},
      {"f64_zonemap", "f64", "ZONEMAP", {{"rows_per_zone", "8"}}},
      {"s_zonemap", "s", "ZONEMAP", {{"rows_per_zone", "16"}}},
      {"ts_zonemap", "ts", "ZONEMAP", {{"rows_per_zone", "16"}}},
      {"i64_bloom", "i64", "BLOOMFILTER", {{"rows_per_zone", "16"}}},
      {"s_bloom", "s", "BLOOMFILTER", {{"rows_per_zone", "16"}}},
      {"ts_bloom", "ts", "BLOOMFILTER", {{"rows_per_zone", "16"}}},
      {"s_bitmap", "s", "BITMAP", {}},
      {"flag_bitmap", "flag", "BITMAP", {}},
      {"i64_bitmap", "i64", "BITMAP", {{"max_cardinality", "64"}}},
      {"tags_labels", "tags", "LABEL_LIST", {}},
  };
  return pool;
}

const index::IndexSpec& Pooled(const std::string& name) {
  for (const auto& spec : IndexPool()) {
    if (spec.name == name) return spec;
  }
  static const index::IndexSpec kNone;
  ADD_FAILURE() << "no index " << name << " in the pool";
  return kNone;
}

// The fixed first steps of the history of `seed`: index names to create, or "append".
std::vector<std::string> Start(uint64_t seed) {
  switch (seed % 3) {
    case 0:
      return {"i64_btree", "s_btree", "append", "i64_zones", "id_zones", "s_ngram", "append"};
    case 1:
      return {"i64_zonemap", "f64_zones", "id_zones", "s_bloom", "s_ngram", "append", "ts_zonemap"};
    default:
      return {"f64_zones", "append", "f64_btree", "i64_btree", "id_zones", "append", "s_btree"};
  }
}

bool HasIndex(const dataset::Dataset& dataset, const std::string& name) {
  for (const auto& definition : dataset.manifest().indexes()) {
    if (definition.name() == name) return true;
  }
  return false;
}

struct History {
  std::shared_ptr<dataset::Dataset> dataset;
  int64_t next_id = 0;
  std::string log;  // the steps taken, for failure messages
};

void Append(History* history, std::mt19937_64& random) {
  const int64_t rows = 40 + static_cast<int64_t>(random() % 220);
  auto batch = MixedFilterBatch(random, history->next_id, rows);
  history->next_id += rows;
  ASSERT_OK_AND_ASSIGN(history->dataset, history->dataset->Append(ReaderOf(batch), SmallFiles()));
  history->log += "append " + std::to_string(rows) + "; ";
}

void DeleteSome(History* history, std::mt19937_64& random, PredicateGenerator& generator) {
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
      filter = generator.LeafOn("i64");
      break;
    default:
      filter = generator.LeafOn("f64") + " AND " + generator.LeafOn("s");
      break;
  }
  // Half of the history's deletes go through the indexes themselves.
  if (random() % 2 == 0) {
    ASSERT_OK_AND_ASSIGN(history->dataset, history->dataset->Delete(filter, SmallFiles()));
  } else {
    ASSERT_OK_AND_ASSIGN(history->dataset,
                         Delete(*Snapshot::Make(history->dataset), filter, SmallFiles()));
  }
  history->log += "delete where " + filter + "; ";
}

void CreateOrReplace(History* history, std::mt19937_64& random) {
  index::IndexSpec spec = IndexPool()[random() % IndexPool().size()];
  index::CreateIndexOptions options;
  options.replace = HasIndex(*history->dataset, spec.name);
  if (options.replace && spec.family == "MINMAX" && random() % 2 == 0) {
    spec.params["page_rows"] = std::to_string(4 + random() % 60);  // a new definition
  }
  ASSERT_OK_AND_ASSIGN(history->dataset, index::CreateIndex(*history->dataset, spec, options));
  history->log += std::string(options.replace ? "replace " : "create ") + spec.name + "; ";
}

void Optimize(History* history, std::mt19937_64& random) {
  index::OptimizeOptions options;
  if (random() % 2 == 0 && history->dataset->manifest().indexes_size() > 0) {
    const auto& indexes = history->dataset->manifest().indexes();
    options.name =
        indexes[static_cast<int>(random() % static_cast<uint64_t>(indexes.size()))].name();
  }
  static const char* const kPolicies[] = {"none", "auto", "1", "2"};
  const char* policy = kPolicies[random() % 4];
  ASSERT_OK_AND_ASSIGN(options.merge, index::MergePolicy::Parse(policy));
  ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*history->dataset, options));
  history->dataset = report.dataset;
  history->log += "optimize " + options.name.value_or("all") + " merge " + policy + "; ";
}

void Drop(History* history, std::mt19937_64& random) {
  const auto& indexes = history->dataset->manifest().indexes();
  if (indexes.empty()) return;
  const std::string name =
      indexes[static_cast<int>(random() % static_cast<uint64_t>(indexes.size()))].name();
  ASSERT_OK_AND_ASSIGN(history->dataset, index::DropIndex(*history->dataset, name));
  history->log += "drop " + name + "; ";
}

// Compaction with random targets: the rewritten fragments become unindexed until an optimize.
void Compact(History* history, std::mt19937_64& random) {
  dataset::CompactionOptions options;
  // Fragments hold up to 200 rows (SmallFiles): targets from below one to several of them.
  options.target_rows_per_fragment = 50 + random() % 900;
  options.max_deleted_fraction = static_cast<double>(random() % 20) / 100;
  ASSERT_OK_AND_ASSIGN(auto result, dataset::Compact(history->dataset, options, SmallFiles()));
  history->dataset = result.dataset;
  history->log += "compact " + std::to_string(options.target_rows_per_fragment) + " rows, " +
                  std::to_string(options.max_deleted_fraction) + " deleted (" +
                  std::to_string(result.plan.fragments()) + " fragments); ";
  // Usually the rewritten fragments are indexed again right away, as `tessera compact` advises.
  if (random() % 4 != 0) {
    ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*history->dataset));
    history->dataset = report.dataset;
    history->log += "optimize all; ";
  }
}

// The distributed build of a pooled index: segments over a random split of every fragment,
// built separately, some merged, committed at once.
void DistributedBuild(History* history, std::mt19937_64& random) {
  const index::IndexSpec& spec = IndexPool()[random() % IndexPool().size()];
  std::vector<std::vector<uint32_t>> parts(1 + random() % 3);
  for (const auto& fragment : history->dataset->manifest().fragments()) {
    parts[random() % parts.size()].push_back(fragment.id());
  }
  std::vector<format::SegmentMeta> segments;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    ASSERT_OK_AND_ASSIGN(auto segment, index::BuildSegment(*history->dataset, spec, part, nullptr));
    segments.push_back(std::move(segment));
  }
  if (segments.empty()) return;
  if (segments.size() >= 2 && random() % 2 == 0) {
    ASSERT_OK_AND_ASSIGN(auto merged,
                         index::MergeSegments(*history->dataset, {segments[0], segments[1]}));
    segments.erase(segments.begin(), segments.begin() + 2);
    segments.push_back(std::move(merged));
  }
  if (HasIndex(*history->dataset, spec.name)) {
    // Its definition may differ from the pool's (a replace changed parameters): drop it first.
    ASSERT_OK_AND_ASSIGN(history->dataset, index::DropIndex(*history->dataset, spec.name));
    history->log += "drop " + spec.name + "; ";
  }
  ASSERT_OK_AND_ASSIGN(history->dataset, index::CommitSegments(*history->dataset, spec, segments));
  history->log +=
      "distributed build " + spec.name + " in " + std::to_string(segments.size()) + " segments; ";
}

void RandomStep(History* history, std::mt19937_64& random, PredicateGenerator& generator) {
  const int choice = static_cast<int>(random() % 100);
  if (choice < 24) return Append(history, random);
  if (choice < 40) return DeleteSome(history, random, generator);
  if (choice < 64) return CreateOrReplace(history, random);
  if (choice < 76) return Optimize(history, random);
  if (choice < 86) return Compact(history, random);
  if (choice < 95) return DistributedBuild(history, random);
  return Drop(history, random);
}

// A random filter; most combine leaves on two or more indexed columns (`*multi_column`).
std::string RandomFilter(std::mt19937_64& random, PredicateGenerator& generator,
                         bool* multi_column) {
  *multi_column = false;
  if (random() % 3 == 0) return generator.Predicate(static_cast<int>(random() % 4));
  static const std::vector<std::string> kIndexed = {"i64", "f64", "s", "id", "flag", "ts", "tags"};
  const std::string first = kIndexed[random() % kIndexed.size()];
  std::string second = kIndexed[random() % kIndexed.size()];
  while (second == first) second = kIndexed[random() % kIndexed.size()];
  *multi_column = true;
  const std::string a = "(" + generator.LeafOn(first) + ")";
  const std::string b = "(" + generator.LeafOn(second) + ")";
  const char* join = random() % 2 == 0 ? " AND " : " OR ";
  switch (random() % 6) {
    case 0:
      return a + join + b;
    case 1:
      return "NOT (" + a + join + b + ")";
    case 2:  // an unindexed leaf or a nested predicate beside them
      return a + join + "(" + b + (random() % 2 ? " OR " : " AND ") + generator.Leaf() + ")";
    case 3:
      return a + " AND " + b + " AND (" + generator.Predicate(1) + ")";
    case 4:
      return "(" + a + " OR " + generator.LeafOn(first) + ") AND (" + b + " OR " +
             generator.LeafOn(second) + ")";
    default:
      return a + join + b + join + "flag";
  }
}

dataset::ScanOptions RandomOptions(std::mt19937_64& random, std::string filter) {
  dataset::ScanOptions options;
  options.filter = std::move(filter);
  options.with_row_address = random() % 2 == 0;
  switch (random() % 6) {
    case 0:
      options.columns = {"id"};
      break;
    case 1:
      options.columns = {"s", "id", "f64"};
      break;
    case 2:
      options.columns = {"flag"};  // a column the filter may not read
      break;
    case 3:
      // `_rowaddr` alone: ScanOptions has no way to ask for it (empty columns mean all), so
      // this is an unknown column to both paths today; they must still agree.
      options.columns = {dataset::kRowAddressColumn};
      options.with_row_address = true;
      break;
    default:
      break;  // every column
  }
  if (random() % 5 == 0) options.limit = random() % 40;
  return options;
}

std::string Describe(const arrow::Table& table) { return table.ToString().substr(0, 3000); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Whether some explain line combines the answers of two different indexes ("rows = ...").
bool CombinesTwoIndexes(const std::string& explain) {
  for (const auto& line : Lines(explain)) {
    if (line.find("; rows = ") == std::string::npos) continue;
    std::set<std::string> names;
    for (size_t at = line.find(" index '"); at != std::string::npos;
         at = line.find(" index '", at + 1)) {
      const size_t begin = at + 8;
      names.insert(line.substr(begin, line.find('\'', begin) - begin));
    }
    if (names.size() >= 2) return true;
  }
  return false;
}

struct Tally {
  int queries = 0;
  int indexed = 0;      // explain shows an index-answered fragment group
  int minmax = 0;       // ... answered (partly) by a MINMAX zone map
  int ngram = 0;        // ... answered (partly) by an NGRAM index
  int two_indexes = 0;  // ... with one line combining two indexes' answers
  int postings = 0;     // ... answered (partly) by a BITMAP or LABEL_LIST index
  int deletes = 0;
};

// The read, count and (sometimes) delete of `options` through the planner equal the unindexed
// path's on `dataset`.
void ExpectSameAsUnindexed(const std::shared_ptr<dataset::Dataset>& dataset,
                           const dataset::ScanOptions& options, bool check_delete,
                           const TempDirectory& scratch, Tally* tally) {
  SCOPED_TRACE("filter: " + options.filter);
  const auto snapshot = Snapshot::Make(dataset);
  Explain explain;
  auto reader = Read(snapshot, options, &explain);
  auto plain = dataset->ScanToTable(options);
  ASSERT_EQ(reader.ok(), plain.ok())
      << reader.status().ToString() << " vs " << plain.status().ToString();
  ++tally->queries;
  if (!plain.ok()) {
    // A projection both refuse (the filters themselves are valid).
    ASSERT_EQ(KindOf(reader.status()), KindOf(plain.status()));
  } else {
    ASSERT_OK_AND_ASSIGN(auto table, (*reader)->ToTable());
    ASSERT_TRUE(table->Equals(**plain, arrow::EqualOptions::Defaults().nans_equal(true)))
        << "explain:\n"
        << explain.ToString() << "indexed:\n"
        << Describe(*table) << "\nplain:\n"
        << Describe(**plain);
  }
  Explain count_explain;
  auto counted = Count(*snapshot, options.filter, &count_explain);
  auto expected_count = dataset->CountRows(options.filter);
  ASSERT_EQ(counted.ok(), expected_count.ok())
      << counted.status().ToString() << " vs " << expected_count.status().ToString();
  if (!counted.ok()) {
    // A filter both refuse: nothing more to compare.
    ASSERT_EQ(KindOf(counted.status()), KindOf(expected_count.status()));
    ASSERT_FALSE(plain.ok());
    return;
  }
  ASSERT_EQ(*counted, *expected_count) << "explain:\n" << count_explain.ToString();
  // The count plans exactly as the read does (and also when the read refused its projection).
  const std::string text = count_explain.ToString();
  if (text.find("candidates, rechecked)") != std::string::npos ||
      text.find(" rows, exact)") != std::string::npos) {
    ++tally->indexed;
  }
  if (text.find("MINMAX index '") != std::string::npos) ++tally->minmax;
  if (text.find("NGRAM index '") != std::string::npos) ++tally->ngram;
  if (text.find("BITMAP index '") != std::string::npos ||
      text.find("LABEL_LIST index '") != std::string::npos) {
    ++tally->postings;
  }
  if (CombinesTwoIndexes(text)) ++tally->two_indexes;

  if (options.filter.empty()) return;
  // The rows a delete would remove, per fragment, as the planner finds them.
  ASSERT_OK_AND_ASSIGN(auto bound, expr::Filter::Parse(options.filter, snapshot->schema()));
  ASSERT_OK_AND_ASSIGN(RowsByFragment found, FindMatchingRows(*snapshot, *bound));
  dataset::ScanOptions addresses;
  addresses.columns = {"id"};
  addresses.filter = options.filter;
  addresses.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto matching, dataset->ScanToTable(addresses));
  RowsByFragment expected;
  for (const auto& fragment : dataset->manifest().fragments()) expected[fragment.id()];
  for (const auto& chunk : matching->GetColumnByName(dataset::kRowAddressColumn)->chunks()) {
    const auto& values = static_cast<const arrow::UInt64Array&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i) {
      expected[dataset::FragmentOf(values.Value(i))].add(dataset::OffsetOf(values.Value(i)));
    }
  }
  ASSERT_EQ(found.size(), expected.size());
  for (const auto& [fragment, rows] : expected) {
    ASSERT_TRUE(found.count(fragment) == 1 && found.at(fragment) == rows)
        << "fragment " << fragment << ": " << rows.cardinality() << " rows expected";
  }

  if (!check_delete) return;
  // The same version in two directories: one deletes through the planner, one without.
  const std::string number = std::to_string(tally->deletes++);
  const std::string indexed_copy = scratch.Child("indexed" + number);
  const std::string plain_copy = scratch.Child("plain" + number);
  std::filesystem::copy(dataset->uri(), indexed_copy, std::filesystem::copy_options::recursive);
  std::filesystem::copy(dataset->uri(), plain_copy, std::filesystem::copy_options::recursive);
  ASSERT_OK_AND_ASSIGN(auto indexed_base, dataset::Dataset::Open(indexed_copy, dataset->version()));
  ASSERT_OK_AND_ASSIGN(auto plain_base, dataset::Dataset::Open(plain_copy, dataset->version()));
  Explain delete_explain;
  ASSERT_OK_AND_ASSIGN(auto indexed_after, Delete(*Snapshot::Make(indexed_base), options.filter,
                                                  SmallFiles(), &delete_explain));
  ASSERT_OK_AND_ASSIGN(auto plain_after, plain_base->Delete(options.filter, SmallFiles()));
  dataset::ScanOptions live;
  live.columns = {"id"};
  live.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto indexed_rows, indexed_after->ScanToTable(live));
  ASSERT_OK_AND_ASSIGN(auto plain_rows, plain_after->ScanToTable(live));
  ASSERT_TRUE(indexed_rows->Equals(*plain_rows))
      << "delete explain:\n"
      << delete_explain.ToString() << "through the planner:\n"
      << Describe(*indexed_rows) << "\nunindexed:\n"
      << Describe(*plain_rows);
  std::filesystem::remove_all(indexed_copy);
  std::filesystem::remove_all(plain_copy);
}

void RunQueries(const History& history, std::mt19937_64& random, PredicateGenerator& generator,
                const TempDirectory& scratch, Tally* tally) {
  SCOPED_TRACE("history: " + history.log);
  for (int query = 0; query < kQueriesPerCheck; ++query) {
    bool multi_column = false;
    const std::string filter = RandomFilter(random, generator, &multi_column);
    const auto options = RandomOptions(random, filter);
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameAsUnindexed(history.dataset, options, query % kDeleteEvery == 0, scratch, tally));
  }
}

TEST(QueryPlannerProperty, ReadCountAndDeleteEqualTheUnindexedPathOverRandomHistories) {
  ASSERT_OK(testing::RegisterMinMaxFamily());
  Tally tally;
  for (uint64_t seed : {11u, 12u, 13u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    PredicateGenerator generator(random);
    TempDirectory directory;
    History history;
    {
      const int64_t rows = 300 + static_cast<int64_t>(random() % 200);
      auto batch = MixedFilterBatch(random, 0, rows);
      history.next_id = rows;
      ASSERT_OK_AND_ASSIGN(
          history.dataset,
          dataset::Dataset::Create(directory.Child("data"), ReaderOf(batch), SmallFiles()));
    }
    // Each seed starts differently, so that exact and superset indexes cover different
    // fragments of one column: a BTREE before a MINMAX and an NGRAM, appends between them;
    // superset indexes alone (MINMAX, ZONEMAP, BLOOMFILTER, NGRAM); a MINMAX before a BTREE.
    for (const std::string& step : Start(seed)) {
      if (step == "append") {
        ASSERT_NO_FATAL_FAILURE(Append(&history, random));
        continue;
      }
      ASSERT_OK_AND_ASSIGN(history.dataset, index::CreateIndex(*history.dataset, Pooled(step)));
      history.log += "create " + step + "; ";
    }
    for (int step = 0; step < kSteps; ++step) {
      ASSERT_NO_FATAL_FAILURE(RandomStep(&history, random, generator));
      if (step == kSteps / 2) {
        ASSERT_NO_FATAL_FAILURE(RunQueries(history, random, generator, directory, &tally));
      }
    }
    ASSERT_NO_FATAL_FAILURE(RunQueries(history, random, generator, directory, &tally));
  }
  // The property says little unless the indexes answered a good share of the queries, the
  // zone maps among them, and answers of several indexes were combined.
  EXPECT_GT(tally.indexed, tally.queries / 3) << tally.indexed << " of " << tally.queries;
  EXPECT_GT(tally.minmax, tally.queries / 10) << tally.minmax << " of " << tally.queries;
  EXPECT_GT(tally.two_indexes, tally.queries / 10) << tally.two_indexes << " of " << tally.queries;
  EXPECT_GT(tally.ngram, 0);
  EXPECT_GT(tally.postings, 0) << "no query used a BITMAP or LABEL_LIST index";
  EXPECT_GT(tally.deletes, 0);
  std::printf(
      "[ planner property ] %d queries: %d index-answered, %d by MINMAX, %d by NGRAM, %d by "
      "BITMAP or LABEL_LIST, %d combining two indexes; %d deletes\n",
      tally.queries, tally.indexed, tally.minmax, tally.ngram, tally.postings, tally.two_indexes,
      tally.deletes);
}

// Fragments with more candidates than one read chunk (kReadBatchRows): reads by row address
// come in bounded batches and stop at limits inside, at and around chunk boundaries.
TEST(QueryPlannerProperty, LargeFragmentsStreamInBoundedBatchesAndStopAtLimits) {
  ASSERT_OK(testing::RegisterMinMaxFamily());
  std::mt19937_64 random(21);
  PredicateGenerator generator(random);
  TempDirectory directory;
  dataset::WriteOptions large;
  large.max_rows_per_file = 12000;
  large.rows_per_batch = 1000;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory.Child("large"),
                                          ReaderOf(MixedFilterBatch(random, 0, 24000)), large));
  for (const char* name : {"i64_btree", "id_zones", "f64_zones", "s_btree"}) {
    ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, Pooled(name)));
  }
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id >= 5000 AND id < 5100"));
  const auto snapshot = Snapshot::Make(data);
  int indexed = 0;
  const std::vector<std::optional<uint64_t>> limits = {std::nullopt, 1, 8191, 8192, 8193, 15000};
  for (int query = 0; query < 12; ++query) {
    dataset::ScanOptions options;
    options.filter = query % 3 == 0 ? "i64 >= -15 AND id < 20000"
                                    : generator.LeafOn(query % 2 ? "i64" : "id") + " OR " +
                                          generator.LeafOn("s");
    options.columns = {"id", "f64"};
    options.with_row_address = query % 2 == 0;
    options.limit = limits[static_cast<size_t>(query) % limits.size()];
    SCOPED_TRACE(options.filter);
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto reader, Read(snapshot, options, &explain));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
      if (batch == nullptr) break;
      EXPECT_LE(static_cast<uint64_t>(batch->num_rows()), kReadBatchRows);
      batches.push_back(std::move(batch));
    }
    ASSERT_OK_AND_ASSIGN(auto table, arrow::Table::FromRecordBatches(reader->schema(), batches));
    ASSERT_OK_AND_ASSIGN(auto plain, data->ScanToTable(options));
    ASSERT_TRUE(table->Equals(*plain, arrow::EqualOptions::Defaults().nans_equal(true)))
        << explain.ToString() << table->num_rows() << " rows vs " << plain->num_rows();
    if (explain.ToString().find(" index '") != std::string::npos) ++indexed;
  }
  EXPECT_GE(indexed, 6);
}

}  // namespace
}  // namespace tessera::query::planner_property_test
