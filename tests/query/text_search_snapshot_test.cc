// TextSearch on a kept snapshot (query/text_search.h): what the snapshot keeps between queries
// (segments, fragment readers) never shows in the answers — each query on it equals a fresh
// TextSearch on its version, before and after a delete commits a new version.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/snapshot.h"
#include "tessera/query/text_search.h"
#include "tessera/status.h"

namespace tessera::query::text_search_snapshot_test {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

std::shared_ptr<arrow::RecordBatch> Documents() {
  const std::vector<std::string> bodies = {"the quick brown fox jumps over the lazy dog",
                                           "quick brown dogs",
                                           "the brown quick fox",
                                           "a lazy cat sleeps",
                                           "foxes and cats and dogs",
                                           "brown bears and brown foxes",
                                           "colour of the sky",
                                           "color of the sea",
                                           "a fox, a dog and a cat"};
  arrow::Int64Builder ids, ns;
  arrow::StringBuilder body;
  for (size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_OK(ids.Append(static_cast<int64_t>(i)));
    EXPECT_OK(ns.Append(static_cast<int64_t>(i % 2)));
    EXPECT_OK(body.Append(bodies[i]));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("body", arrow::utf8()),
                     arrow::field("n", arrow::int64())});
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(bodies.size()),
      {ids.Finish().ValueOrDie(), body.Finish().ValueOrDie(), ns.Finish().ValueOrDie()});
}

std::vector<TextSearchOptions> Queries() {
  std::vector<TextSearchOptions> queries;
  auto add = [&](TextQueryType type, std::string text) {
    TextSearchOptions options;
    options.columns = {{"body", 1.0}};
    options.type = type;
    options.text = std::move(text);
    options.k = 4;
    options.projection = {"id", "body"};
    options.with_row_address = true;
    queries.push_back(options);
    return &queries.back();
  };
  add(TextQueryType::kMatch, "fox dog");
  add(TextQueryType::kPhrase, "brown fox");
  add(TextQueryType::kBoolean, "+brown -dogs fox");
  add(TextQueryType::kMatch, "cat")->highlight = true;
  auto* postfiltered = add(TextQueryType::kMatch, "fox dog cat");
  postfiltered->filter = "n = 0";
  auto* prefiltered = add(TextQueryType::kMatch, "fox dog cat");
  prefiltered->filter = "n = 1";
  prefiltered->prefilter = true;
  return queries;
}

void ExpectSameAnswers(const std::shared_ptr<const Snapshot>& snapshot) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& query : Queries()) {
      ASSERT_OK_AND_ASSIGN(auto kept, TextSearch(snapshot, query));
      ASSERT_OK_AND_ASSIGN(auto fresh, TextSearch(snapshot->dataset(), query));
      EXPECT_TRUE(kept->Equals(*fresh)) << "query '" << query.text << "', pass " << pass << "\n"
                                        << kept->ToString() << "\n"
                                        << fresh->ToString();
    }
  }
}

// The documents in fragments of 4 rows, batches of 2: takes and sources cross both.
arrow::Result<std::shared_ptr<dataset::Dataset>> CreateSmallFragments(
    const TempDirectory& directory) {
  dataset::WriteOptions write;
  write.max_rows_per_file = 4;
  write.rows_per_batch = 2;
  return dataset::Dataset::Create(directory.Child("data"), ReaderOf(Documents()), write);
}

class TextSearchSnapshotTest : public ::testing::TestWithParam<bool> {};

TEST_P(TextSearchSnapshotTest, QueriesOnAKeptSnapshotEqualFreshSearches) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSmallFragments(directory));
  if (GetParam()) {
    index::IndexSpec spec{"body_fts", "body", "INVERTED", {{"with_position", "true"}}};
    ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  }
  auto before = Snapshot::Make(data);
  ExpectSameAnswers(before);

  ASSERT_OK_AND_ASSIGN(auto deleted, data->Delete("id = 2 OR id = 5"));
  auto after = Snapshot::Make(deleted);
  ExpectSameAnswers(after);
  // The deleted rows are gone from the new version only.
  ASSERT_OK_AND_ASSIGN(auto old_answer, TextSearch(before, Queries()[1]));
  ASSERT_OK_AND_ASSIGN(auto new_answer, TextSearch(after, Queries()[1]));
  EXPECT_GT(old_answer->num_rows(), new_answer->num_rows());
  ExpectSameAnswers(before);
}

INSTANTIATE_TEST_SUITE_P(Indexed, TextSearchSnapshotTest, ::testing::Bool());

TEST(SnapshotTakeTest, KeptReadersReturnWhatDatasetTakeReturns) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSmallFragments(directory));
  ASSERT_OK_AND_ASSIGN(auto deleted, data->Delete("id = 1"));
  auto snapshot = Snapshot::Make(deleted);
  const std::vector<uint64_t> addresses = {
      dataset::MakeRowAddress(2, 0), dataset::MakeRowAddress(0, 3), dataset::MakeRowAddress(0, 0)};
  for (const std::vector<std::string>& columns :
       {std::vector<std::string>{"id"}, std::vector<std::string>{"body", "id"},
        std::vector<std::string>{"id"}}) {
    ASSERT_OK_AND_ASSIGN(auto kept, snapshot->Take(addresses, columns));
    ASSERT_OK_AND_ASSIGN(auto fresh, deleted->Take(addresses, columns));
    EXPECT_TRUE(kept->Equals(*fresh)) << kept->ToString() << "\n" << fresh->ToString();
  }
  // A deleted row stays NotFound through a kept reader.
  for (int pass = 0; pass < 2; ++pass) {
    auto taken = snapshot->Take({dataset::MakeRowAddress(0, 1)}, {"id"});
    ASSERT_FALSE(taken.ok());
    EXPECT_EQ(KindOf(taken.status()), ErrorKind::kNotFound) << taken.status().ToString();
  }
}

TEST(SnapshotDerivedTest, MadeOnceThenSharedAndErrorsAreNotKept) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data,
                       dataset::Dataset::Create(directory.Child("data"), ReaderOf(Documents())));
  auto snapshot = Snapshot::Make(data);
  int made = 0;
  std::function<arrow::Result<std::shared_ptr<const int>>()> make =
      [&]() -> arrow::Result<std::shared_ptr<const int>> {
    ++made;
    return std::make_shared<const int>(made);
  };
  ASSERT_OK_AND_ASSIGN(auto first, snapshot->Derived<int>("a", make));
  ASSERT_OK_AND_ASSIGN(auto second, snapshot->Derived<int>("a", make));
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(made, 1);
  std::function<arrow::Result<std::shared_ptr<const int>>()> failing =
      []() -> arrow::Result<std::shared_ptr<const int>> { return NotFound("not yet"); };
  EXPECT_FALSE(snapshot->Derived<int>("b", failing).ok());
  ASSERT_OK_AND_ASSIGN(auto third, snapshot->Derived<int>("b", make));
  EXPECT_EQ(*third, 2);
}

}  // namespace
}  // namespace tessera::query::text_search_snapshot_test
