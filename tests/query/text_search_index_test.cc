// query::TextSearch over INVERTED segments: the same rows as one segment, several segments of
// random fragment groups, partly unindexed, after merging and after appends give identical
// scores (bitwise: the global statistics are identical) and rankings, before and after
// deletions (including a fragment deleted whole, which its segment still covers); phrases need
// positions; explain names the segments.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/text_corpus.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/text_search.h"
#include "tessera/status.h"

namespace tessera::query::text_search_index_test {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

constexpr int64_t kRows = 240;
constexpr uint64_t kRowsPerFile = 24;

struct Hit {
  int64_t id;
  float score;
  bool operator==(const Hit& other) const { return id == other.id && score == other.score; }
};

std::ostream& operator<<(std::ostream& stream, const Hit& hit) {
  return stream << "(" << hit.id << ", " << hit.score << ")";
}

dataset::WriteOptions Files() {
  dataset::WriteOptions options;
  options.max_rows_per_file = kRowsPerFile;
  options.rows_per_batch = 16;
  return options;
}

index::IndexSpec Spec(bool positions = true) {
  index::IndexSpec spec;
  spec.name = "body_idx";
  spec.column = "body";
  spec.family = "INVERTED";
  if (!positions) spec.params["with_position"] = "false";
  return spec;
}

std::vector<uint32_t> FragmentIds(const dataset::Dataset& data) {
  std::vector<uint32_t> ids;
  for (const auto& fragment : data.manifest().fragments()) ids.push_back(fragment.id());
  return ids;
}

// Commits one segment per group of consecutive fragments (random group sizes); with `skip`,
// every group but the first of each two is left unindexed.
std::shared_ptr<dataset::Dataset> IndexInGroups(std::shared_ptr<dataset::Dataset> data,
                                                std::mt19937& random, bool skip) {
  const auto ids = FragmentIds(*data);
  std::vector<format::SegmentMeta> segments;
  size_t group = 0;
  for (size_t begin = 0; begin < ids.size(); ++group) {
    const size_t size = std::uniform_int_distribution<size_t>(1, 4)(random);
    const std::vector<uint32_t> part(
        ids.begin() + static_cast<std::ptrdiff_t>(begin),
        ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), begin + size)));
    begin += size;
    if (skip && group % 2 == 1) continue;
    auto built = index::BuildSegment(*data, Spec(), part, nullptr);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    segments.push_back(*built);
  }
  auto committed = index::CommitSegments(*data, Spec(), segments);
  EXPECT_TRUE(committed.ok()) << committed.status().ToString();
  return *committed;
}

class TextSearchIndexTest : public ::testing::Test {
 protected:
  std::shared_ptr<dataset::Dataset> Create(const std::string& name, int64_t first, int64_t rows) {
    auto created = dataset::Dataset::Create(
        directory_.Child(name), ReaderOf(testing::TextCorpusBatch(first, rows, 9)), Files());
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return *created;
  }

  // The same rows (ids 0..kRows-1, the same texts), stored and indexed in different ways.
  std::vector<std::shared_ptr<dataset::Dataset>> Variants() {
    std::mt19937 random(3);
    std::vector<std::shared_ptr<dataset::Dataset>> variants;
    variants.push_back(Create("unindexed", 0, kRows));
    auto one = Create("one", 0, kRows);
    variants.push_back(index::CreateIndex(*one, Spec()).ValueOrDie());
    variants.push_back(IndexInGroups(Create("groups", 0, kRows), random, false));
    variants.push_back(IndexInGroups(Create("partly", 0, kRows), random, true));
    auto merged = IndexInGroups(Create("merged", 0, kRows), random, false);
    index::OptimizeOptions optimize;
    optimize.merge.kind = index::MergePolicy::Kind::kMaxSegments;
    optimize.merge.max_segments = 1;
    variants.push_back(index::OptimizeIndexes(*merged, optimize).ValueOrDie().dataset);
    // Rows 0..kRows/2 indexed, the rest appended after (the unindexed tail).
    auto appended = Create("appended", 0, kRows / 2);
    appended = index::CreateIndex(*appended, Spec()).ValueOrDie();
    const auto all = testing::TextCorpusBatch(0, kRows, 9);
    appended = appended->Append(ReaderOf(all->Slice(kRows / 2)), Files()).ValueOrDie();
    variants.push_back(appended);
    // The variants are what they claim to be.
    auto summary = [](const dataset::Dataset& data) {
      return index::DescribeIndex(data, "body_idx").ValueOrDie();
    };
    EXPECT_EQ(summary(*variants[1]).num_segments, 1);
    EXPECT_GT(summary(*variants[2]).num_segments, 2);
    EXPECT_EQ(summary(*variants[2]).unindexed_fragments, 0u);
    EXPECT_GT(summary(*variants[3]).unindexed_fragments, 0u);
    EXPECT_GT(summary(*variants[3]).num_segments, 1);
    EXPECT_EQ(summary(*variants[4]).num_segments, 1);
    EXPECT_GT(summary(*variants[5]).unindexed_fragments, 0u);
    return variants;
  }

  TempDirectory directory_;
};

std::vector<Hit> Search(const dataset::Dataset& data, const TextSearchOptions& options) {
  auto table = TextSearch(data, options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  std::vector<Hit> hits;
  if (!table.ok() || (*table)->num_rows() == 0) return hits;
  auto batch = (*table)->CombineChunksToBatch().ValueOrDie();
  const auto& ids = static_cast<const arrow::Int64Array&>(*batch->GetColumnByName("id"));
  const auto& scores = static_cast<const arrow::FloatArray&>(*batch->GetColumnByName("_score"));
  for (int64_t i = 0; i < batch->num_rows(); ++i) hits.push_back({ids.Value(i), scores.Value(i)});
  return hits;
}

std::vector<TextSearchOptions> Queries() {
  std::vector<TextSearchOptions> queries;
  auto add = [&](std::string text, TextQueryType type) -> TextSearchOptions& {
    TextSearchOptions options;
    options.columns = {{"body", 1.0}};
    options.text = std::move(text);
    options.type = type;
    options.k = 15;
    options.projection = {"id"};
    queries.push_back(options);
    return queries.back();
  };
  add("cat", TextQueryType::kMatch);
  add("dog bird fish", TextQueryType::kMatch);
  add("tree river stone cloud", TextQueryType::kMatch).k = 200;
  add("cat dog", TextQueryType::kMatch).operator_and = true;
  add("cat dog bird", TextQueryType::kMatch).minimum_should_match = 2;
  add("cat dog", TextQueryType::kPhrase);
  add("dog cat", TextQueryType::kPhrase).slop = 2;
  add("+cat -dog (bird fish) \"tree river\"", TextQueryType::kBoolean);
  add("bird dog*", TextQueryType::kBoolean);
  add("s", TextQueryType::kPrefix).max_expansions = 3;
  add("mlik", TextQueryType::kFuzzy);
  auto& multi = add("cat fish", TextQueryType::kMultiMatch);
  multi.columns = {{"body", 1.0}, {"title", 1.5}};
  auto& filtered = add("cat bird", TextQueryType::kMatch);
  filtered.filter = "n < 3";
  filtered.prefilter = true;
  return queries;
}

void ExpectSameAnswers(const std::vector<std::shared_ptr<dataset::Dataset>>& variants) {
  const auto queries = Queries();
  for (size_t q = 0; q < queries.size(); ++q) {
    const auto expected = Search(*variants[0], queries[q]);
    if (q < 3) {
      EXPECT_FALSE(expected.empty()) << q;
    }
    for (size_t v = 1; v < variants.size(); ++v) {
      EXPECT_EQ(Search(*variants[v], queries[q]), expected)
          << "query " << q << " (" << queries[q].text << "), variant " << v;
    }
    auto exhaustive = queries[q];
    exhaustive.exhaustive = true;
    EXPECT_EQ(Search(*variants[1], exhaustive), expected) << "query " << q;
  }
}

TEST_F(TextSearchIndexTest, ScoresDoNotDependOnSegmentsOrTheTail) {
  auto variants = Variants();
  ExpectSameAnswers(variants);
  // Deletions after indexing: segments keep the deleted rows, the statistics leave them out;
  // ids 24..47 are a whole fragment, which leaves the version while segments still cover it.
  for (auto& variant : variants) {
    variant = variant->Delete("id % 7 = 3 OR (id >= 24 AND id < 48)").ValueOrDie();
  }
  ExpectSameAnswers(variants);
}

// Over INVERTED segments of several posting blocks and an unindexed tail, with deletions: a
// phrase's bounds and the one-term WAND return exactly what scoring every posting does, the
// top k filling in the first source or only later ones.
TEST_F(TextSearchIndexTest, PhraseBoundsAndOneTermWandEqualTheExhaustivePath) {
  dataset::WriteOptions files;
  files.max_rows_per_file = 400;
  files.rows_per_batch = 100;
  ASSERT_OK_AND_ASSIGN(
      auto data, dataset::Dataset::Create(directory_.Child("blocks"),
                                          ReaderOf(testing::TextCorpusBatch(0, 3200, 21)), files));
  std::mt19937 random(22);
  data = IndexInGroups(data, random, true);
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id % 13 = 6"));
  ASSERT_GT(index::DescribeIndex(*data, "body_idx").ValueOrDie().unindexed_fragments, 0u);
  const auto& words = testing::TextCorpusWords();
  auto word = [&](size_t first) {
    return words[std::uniform_int_distribution<size_t>(first, first + 9)(random)];
  };
  for (int round = 0; round < 30; ++round) {
    TextSearchOptions options;
    options.columns = {{"body", 1.0}};
    options.projection = {"id"};
    // Common and rarer words, so that the top k fills in the first segment or only later.
    const size_t first = round % 3 == 0 ? 10 : 0;
    if (round % 5 == 4) {
      options.text = word(first);
      options.type = TextQueryType::kMatch;
    } else {
      options.text = word(first) + " " + word(first);
      if (round % 2 == 1) options.text += " " + word(0);
      options.type = TextQueryType::kPhrase;
      options.slop = std::uniform_int_distribution<int>(0, 3)(random);
    }
    options.k = std::uniform_int_distribution<int64_t>(1, 25)(random);
    if (round % 7 == 6) {
      options.filter = "n < 5";
      options.prefilter = true;
    }
    const auto bounded = Search(*data, options);
    options.exhaustive = true;
    EXPECT_EQ(bounded, Search(*data, options))
        << options.text << " slop " << options.slop << " k " << options.k;
  }
}

// A list column: each element continues one position sequence after a gap, in segments and in
// the unindexed tail alike, so a phrase does not span two elements unless its slop covers the
// gap, and scores agree.
TEST_F(TextSearchIndexTest, ListValuesAgreeIndexedAndUnindexed) {
  std::mt19937 random(8);
  const auto& words = testing::TextCorpusWords();
  arrow::Int64Builder ids;
  auto values = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder lists(arrow::default_memory_pool(), values);
  for (int64_t i = 0; i < 120; ++i) {
    ASSERT_OK(ids.Append(i));
    ASSERT_OK(lists.Append());
    for (int e = std::uniform_int_distribution<int>(0, 3)(random); e > 0; --e) {
      std::string text;
      for (int w = std::uniform_int_distribution<int>(1, 4)(random); w > 0; --w) {
        text += words[std::uniform_int_distribution<size_t>(0, 9)(random)] + " ";
      }
      ASSERT_OK(values->Append(text));
    }
  }
  ASSERT_OK(lists.Append());  // "cat" ends one element, "dog" starts the next
  ASSERT_OK(values->Append("red cat"));
  ASSERT_OK(values->Append("dog green"));
  ASSERT_OK(ids.Append(120));
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("body", arrow::list(arrow::utf8()))});
  auto batch = arrow::RecordBatch::Make(schema, 121, {*ids.Finish(), *lists.Finish()});
  ASSERT_OK_AND_ASSIGN(
      auto plain, dataset::Dataset::Create(directory_.Child("lists"), ReaderOf(batch), Files()));
  ASSERT_OK_AND_ASSIGN(auto indexed, dataset::Dataset::Create(directory_.Child("lists_indexed"),
                                                              ReaderOf(batch), Files()));
  ASSERT_OK_AND_ASSIGN(indexed, index::CreateIndex(*indexed, Spec()));
  TextSearchOptions options;
  options.columns = {{"body", 1.0}};
  options.projection = {"id"};
  options.k = 50;
  for (const char* text : {"cat", "dog bird", "red green blue"}) {
    options.text = text;
    options.type = TextQueryType::kMatch;
    const auto expected = Search(*plain, options);
    EXPECT_FALSE(expected.empty()) << text;
    EXPECT_EQ(Search(*indexed, options), expected) << text;
  }
  options.text = "cat dog";
  options.type = TextQueryType::kPhrase;
  for (int slop : {0, 100, 101}) {
    options.slop = slop;
    const auto expected = Search(*plain, options);
    EXPECT_EQ(Search(*indexed, options), expected) << slop;
    bool spans = false;
    for (const auto& hit : expected) spans |= hit.id == 120;
    EXPECT_EQ(spans, slop >= 100) << slop;
  }
}

TEST_F(TextSearchIndexTest, PhraseNeedsPositions) {
  auto data = Create("nopositions", 0, 100);
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, Spec(/*positions=*/false)));
  TextSearchOptions options;
  options.columns = {{"body", 1.0}};
  options.text = "cat dog";
  options.type = TextQueryType::kPhrase;
  auto result = TextSearch(*data, options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(result.status().message().find("with_position=true"), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("body_idx"), std::string::npos);
  // Other query types work without positions.
  options.type = TextQueryType::kMatch;
  ASSERT_OK_AND_ASSIGN(auto table, TextSearch(*data, options));
  EXPECT_GT(table->num_rows(), 0);
}

TEST_F(TextSearchIndexTest, ExplainNamesSegmentsAndTheTail) {
  auto data = Create("explain", 0, 120);
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, Spec()));
  ASSERT_OK_AND_ASSIGN(data, data->Append(ReaderOf(testing::TextCorpusBatch(120, 30, 4)), Files()));
  TextSearchOptions options;
  options.columns = {{"body", 1.0}};
  options.text = "cat";
  Explain explain;
  ASSERT_OK(TextSearch(*data, options, &explain).status());
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("INVERTED index 'body_idx' segment"), std::string::npos) << text;
  EXPECT_NE(text.find("unindexed, analyzed on the fly (30 documents)"), std::string::npos) << text;
  EXPECT_NE(text.find("N 150"), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera::query::text_search_index_test
