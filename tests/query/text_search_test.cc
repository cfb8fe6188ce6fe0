// query::TextSearch end to end: BM25 values against a hand computation and a brute-force
// reference, every query type, filters, bad input, block-max WAND equal to the exhaustive path,
// and scores that do not depend on how the rows are split into fragments (unindexed here;
// text_search_index_test.cc covers INVERTED segments).
#include "tessera/query/text_search.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/text_corpus.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/status.h"

namespace tessera::query::text_search_test {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

struct Hit {
  int64_t id;
  float score;
  bool operator==(const Hit& other) const { return id == other.id && score == other.score; }
};

std::ostream& operator<<(std::ostream& stream, const Hit& hit) {
  return stream << "(" << hit.id << ", " << hit.score << ")";
}

std::vector<Hit> Hits(const arrow::Table& table) {
  auto batch = table.CombineChunksToBatch().ValueOrDie();
  std::vector<Hit> hits;
  if (batch == nullptr || batch->num_rows() == 0) return hits;
  const auto& ids = static_cast<const arrow::Int64Array&>(*batch->GetColumnByName("id"));
  const auto& scores = static_cast<const arrow::FloatArray&>(*batch->GetColumnByName("_score"));
  for (int64_t i = 0; i < batch->num_rows(); ++i) hits.push_back({ids.Value(i), scores.Value(i)});
  return hits;
}

std::vector<int64_t> Ids(const std::vector<Hit>& hits) {
  std::vector<int64_t> ids;
  for (const auto& hit : hits) ids.push_back(hit.id);
  return ids;
}

std::set<int64_t> IdSet(const std::vector<Hit>& hits) {
  auto ids = Ids(hits);
  return {ids.begin(), ids.end()};
}

TextSearchOptions Query(std::string text, TextQueryType type = TextQueryType::kMatch,
                        int64_t k = 10, std::string column = "body") {
  TextSearchOptions options;
  options.columns = {{std::move(column), 1.0}};
  options.text = std::move(text);
  options.type = type;
  options.k = k;
  options.projection = {"id"};
  return options;
}

std::vector<Hit> Search(const dataset::Dataset& data, const TextSearchOptions& options) {
  auto table = TextSearch(data, options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return {};
  return Hits(**table);
}

std::shared_ptr<arrow::RecordBatch> SmallBatch() {
  const std::vector<std::optional<std::string>> bodies = {
      "the quick brown fox jumps over the lazy dog",
      "quick brown dogs",
      "the brown quick fox",
      "a lazy cat sleeps",
      "foxes and cats and dogs",
      std::nullopt,
      "colour of the sky",
      "color of the sea"};
  const std::vector<std::string> titles = {"fox story", "dogs",  "fox", "cat",
                                           "animals",   "empty", "sky", "sea"};
  arrow::Int64Builder ids, ns;
  arrow::StringBuilder body, title;
  for (size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_OK(ids.Append(static_cast<int64_t>(i)));
    EXPECT_OK(ns.Append(static_cast<int64_t>(i % 2)));
    EXPECT_OK(bodies[i] ? body.Append(*bodies[i]) : body.AppendNull());
    EXPECT_OK(title.Append(titles[i]));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("body", arrow::utf8()),
                     arrow::field("title", arrow::utf8()), arrow::field("n", arrow::int64())});
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(bodies.size()),
                                  {ids.Finish().ValueOrDie(), body.Finish().ValueOrDie(),
                                   title.Finish().ValueOrDie(), ns.Finish().ValueOrDie()});
}

dataset::WriteOptions RowsPerFile(uint64_t rows) {
  dataset::WriteOptions options;
  options.max_rows_per_file = rows;
  options.rows_per_batch = std::max<uint64_t>(1, rows / 2);
  return options;
}

class TextSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(small_, dataset::Dataset::Create(directory_.Child("small"),
                                                          ReaderOf(SmallBatch()), RowsPerFile(3)));
  }
  TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> small_;
};

TEST_F(TextSearchTest, Bm25MatchesAHandComputation) {
  // Documents (analyzed): [cat dog] [cat] [bird fish bird]; N 3, average length 2.
  arrow::Int64Builder ids;
  arrow::StringBuilder bodies;
  for (const char* text : {"cat dog", "cat", "bird fish bird"}) {
    ASSERT_OK(ids.Append(ids.length()));
    ASSERT_OK(bodies.Append(text));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("body", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(schema, 3, {*ids.Finish(), *bodies.Finish()});
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(directory_.Child("hand"),
                                                           ReaderOf(batch), RowsPerFile(2)));
  const auto hits = Search(*data, Query("bird cat"));
  ASSERT_EQ(hits.size(), 3u);
  const double k1 = 1.2, b = 0.75, n = 3, average = 2;
  const double idf_bird = std::log(1 + (n - 1 + 0.5) / (1 + 0.5));
  const double idf_cat = std::log(1 + (n - 2 + 0.5) / (2 + 0.5));
  auto part = [&](double tf, double length) {
    return tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average));
  };
  EXPECT_EQ(hits[0].id, 2);
  EXPECT_FLOAT_EQ(hits[0].score, static_cast<float>(idf_bird * part(2, 3)));
  EXPECT_EQ(hits[1].id, 1);  // shorter than document 0
  EXPECT_FLOAT_EQ(hits[1].score, static_cast<float>(idf_cat * part(1, 1)));
  EXPECT_EQ(hits[2].id, 0);
  EXPECT_FLOAT_EQ(hits[2].score, static_cast<float>(idf_cat * part(1, 2)));
  // A repeated query term counts twice.
  const auto twice = Search(*data, Query("cat cat"));
  ASSERT_EQ(twice.size(), 2u);
  EXPECT_FLOAT_EQ(twice[0].score, static_cast<float>(2 * idf_cat * part(1, 1)));
}

TEST_F(TextSearchTest, MatchEqualsTheReferenceOverLiveRows) {
  ASSERT_OK_AND_ASSIGN(
      auto data,
      dataset::Dataset::Create(directory_.Child("corpus"),
                               ReaderOf(testing::TextCorpusBatch(0, 400, 7)), RowsPerFile(90)));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id % 7 = 2 OR (id >= 180 AND id < 270)"));
  std::mt19937 random(11);
  const auto& words = testing::TextCorpusWords();
  for (int round = 0; round < 12; ++round) {
    std::string text;
    const int terms = std::uniform_int_distribution<int>(1, 4)(random);
    for (int t = 0; t < terms; ++t) {
      text += " " + words[std::uniform_int_distribution<size_t>(0, words.size() - 1)(random)];
    }
    const auto reference = testing::ReferenceBm25(*data, "body", text);
    auto options = Query(text, TextQueryType::kMatch, 1000);
    options.projection = {};
    options.with_row_address = true;
    ASSERT_OK_AND_ASSIGN(auto table, TextSearch(*data, options));
    ASSERT_OK_AND_ASSIGN(auto batch, table->CombineChunksToBatch());
    ASSERT_EQ(static_cast<size_t>(batch->num_rows()), reference.size()) << text;
    const auto& scores = static_cast<const arrow::FloatArray&>(*batch->GetColumnByName("_score"));
    const auto& addresses =
        static_cast<const arrow::UInt64Array&>(*batch->GetColumnByName("_rowaddr"));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      auto it = reference.find(addresses.Value(i));
      ASSERT_NE(it, reference.end()) << text;
      EXPECT_NEAR(scores.Value(i), it->second, 1e-5 * it->second) << text;
      if (i > 0) {
        EXPECT_GE(scores.Value(i - 1), scores.Value(i));
      }
    }
  }
}

TEST_F(TextSearchTest, ScoresDoNotDependOnFragmentSplits) {
  const auto batch = testing::TextCorpusBatch(0, 300, 3);
  std::vector<std::shared_ptr<dataset::Dataset>> splits;
  for (uint64_t rows : {300, 41}) {
    ASSERT_OK_AND_ASSIGN(auto data,
                         dataset::Dataset::Create(directory_.Child("split" + std::to_string(rows)),
                                                  ReaderOf(batch), RowsPerFile(rows)));
    ASSERT_OK_AND_ASSIGN(data, data->Delete("id % 5 = 1"));
    splits.push_back(data);
  }
  for (const char* text : {"cat", "dog bird", "quick brown fox", "honey peach melon"}) {
    for (auto type : {TextQueryType::kMatch, TextQueryType::kPhrase, TextQueryType::kBoolean}) {
      const auto expected = Search(*splits[0], Query(text, type, 25));
      EXPECT_FALSE(expected.empty() && type == TextQueryType::kMatch) << text;
      for (size_t s = 1; s < splits.size(); ++s) {
        EXPECT_EQ(Search(*splits[s], Query(text, type, 25)), expected) << text;
      }
    }
  }
  const auto prefix = Search(*splits[0], Query("me", TextQueryType::kPrefix, 25));
  EXPECT_FALSE(prefix.empty());
  EXPECT_EQ(Search(*splits[1], Query("me", TextQueryType::kPrefix, 25)), prefix);
}

// The scored and total postings of explain's scoring line ("..., S of P postings scored").
std::pair<uint64_t, uint64_t> ScoredPostings(const Explain& explain) {
  const std::string text = explain.ToString();
  const size_t end = text.find(" postings scored");
  const size_t of = text.rfind(" of ", end);
  const size_t start = text.rfind(", ", of);
  if (end == std::string::npos || of == std::string::npos || start == std::string::npos) {
    ADD_FAILURE() << text;
    return {0, 0};
  }
  return {std::stoull(text.substr(start + 2, of - start - 2)),
          std::stoull(text.substr(of + 4, end - of - 4))};
}

// A phrase's top k skips documents and blocks by their bounds and still returns exactly what
// scoring every matching document does, with deletions, a prefilter and slop; over many
// posting blocks, fewer postings are scored.
TEST_F(TextSearchTest, PhraseBoundsFindTheExhaustiveTopK) {
  ASSERT_OK_AND_ASSIGN(
      auto data,
      dataset::Dataset::Create(directory_.Child("corpus"),
                               ReaderOf(testing::TextCorpusBatch(0, 3000, 11)), RowsPerFile(700)));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id % 11 = 4"));
  std::mt19937 random(12);
  const auto& words = testing::TextCorpusWords();
  uint64_t scored = 0, postings = 0;
  for (int round = 0; round < 40; ++round) {
    std::string text;
    for (int t = std::uniform_int_distribution<int>(2, 3)(random); t > 0; --t) {
      text += " " + words[std::uniform_int_distribution<size_t>(0, 7)(random)];
    }
    auto options =
        Query(text, TextQueryType::kPhrase, std::uniform_int_distribution<int64_t>(1, 20)(random));
    options.slop = std::uniform_int_distribution<int>(0, 3)(random);
    if (round % 4 == 3) {
      options.filter = "n < 6";
      options.prefilter = true;
    }
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto bounded, TextSearch(*data, options, &explain));
    EXPECT_NE(explain.ToString().find("phrase bounds"), std::string::npos) << explain.ToString();
    const auto [s, p] = ScoredPostings(explain);
    scored += s;
    postings += p;
    options.exhaustive = true;
    EXPECT_EQ(Hits(*bounded), Search(*data, options)) << text << " slop " << options.slop;
  }
  EXPECT_LT(scored, postings / 2);
}

// A sloppy phrase may occur more often than its later terms do ("dog dog cat": "dog cat"~2
// twice, cat once): only the first term's frequency bounds it, so the document that the
// smaller bound would have passed over still comes first.
TEST_F(TextSearchTest, ASloppyPhraseCanOccurMoreOftenThanItsLastTerm) {
  arrow::Int64Builder ids;
  arrow::StringBuilder bodies;
  for (const char* text : {"dog cat bird", "bird dog dog cat fish"}) {
    ASSERT_OK(ids.Append(ids.length()));
    ASSERT_OK(bodies.Append(text));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("body", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(schema, 2, {*ids.Finish(), *bodies.Finish()});
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(directory_.Child("sloppy"),
                                                           ReaderOf(batch), RowsPerFile(10)));
  auto options = Query("dog cat", TextQueryType::kPhrase, 1);
  options.slop = 2;
  const auto hits = Search(*data, options);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 1);
  options.exhaustive = true;
  EXPECT_EQ(Search(*data, options), hits);
}

TEST_F(TextSearchTest, BlockMaxWandEqualsTheExhaustivePath) {
  ASSERT_OK_AND_ASSIGN(
      auto data,
      dataset::Dataset::Create(directory_.Child("corpus"),
                               ReaderOf(testing::TextCorpusBatch(0, 600, 5)), RowsPerFile(150)));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id % 9 = 0"));
  std::mt19937 random(5);
  const auto& words = testing::TextCorpusWords();
  for (int round = 0; round < 8; ++round) {
    std::string text;
    for (int t = std::uniform_int_distribution<int>(1, 5)(random); t > 0; --t) {
      text += " " + words[std::uniform_int_distribution<size_t>(0, words.size() - 1)(random)];
    }
    auto options =
        Query(text, TextQueryType::kMatch, std::uniform_int_distribution<int64_t>(1, 30)(random));
    const auto wand = Search(*data, options);
    options.exhaustive = true;
    EXPECT_EQ(wand, Search(*data, options)) << text;

    // operator and (a leapfrog) = the rows of the match-any answer holding every term, with
    // the same scores.
    auto any = Query(text, TextQueryType::kMatch, 1000);
    std::set<int64_t> every;
    bool first = true;
    std::istringstream words_of(text);
    for (std::string word; words_of >> word;) {
      const auto holding = IdSet(Search(*data, Query(word, TextQueryType::kMatch, 1000)));
      if (first) {
        every = holding;
      } else {
        std::set<int64_t> both;
        for (int64_t id : every) {
          if (holding.count(id) != 0) both.insert(id);
        }
        every = both;
      }
      first = false;
    }
    std::vector<Hit> expected;
    for (const auto& hit : Search(*data, any)) {
      if (every.count(hit.id) != 0) expected.push_back(hit);
    }
    auto all = any;
    all.operator_and = true;
    EXPECT_EQ(Search(*data, all), expected) << text;
  }
}

TEST_F(TextSearchTest, MatchOperatorAndMinimumShouldMatch) {
  EXPECT_EQ(IdSet(Search(*small_, Query("fox"))), (std::set<int64_t>{0, 2, 4}));
  auto both = Query("quick fox");
  both.operator_and = true;
  EXPECT_EQ(IdSet(Search(*small_, both)), (std::set<int64_t>{0, 2}));
  auto two = Query("quick lazy fox");
  two.minimum_should_match = 2;
  EXPECT_EQ(IdSet(Search(*small_, two)), (std::set<int64_t>{0, 2}));
  // A match-any query ranks the document holding more terms first.
  EXPECT_EQ(Search(*small_, Query("quick lazy fox")).front().id, 0);
}

TEST_F(TextSearchTest, PhraseWithAndWithoutSlop) {
  EXPECT_EQ(IdSet(Search(*small_, Query("quick brown", TextQueryType::kPhrase))),
            (std::set<int64_t>{0, 1}));
  auto slop = Query("quick brown", TextQueryType::kPhrase);
  slop.slop = 1;
  EXPECT_EQ(IdSet(Search(*small_, slop)), (std::set<int64_t>{0, 1}));
  slop.slop = 2;  // "brown quick": brown two moves from where the phrase puts it
  EXPECT_EQ(IdSet(Search(*small_, slop)), (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(IdSet(Search(*small_, Query("lazy dog", TextQueryType::kPhrase))),
            (std::set<int64_t>{0}));
  EXPECT_TRUE(Search(*small_, Query("dog lazy", TextQueryType::kPhrase)).empty());
  // Slop counts like Lucene's: max(p − q) − min(p − q) over the terms; one word inserted is 1.
  auto inserted = Query("brown jumps", TextQueryType::kPhrase);
  EXPECT_TRUE(Search(*small_, inserted).empty());
  inserted.slop = 1;
  EXPECT_EQ(IdSet(Search(*small_, inserted)), (std::set<int64_t>{0}));
  auto spread = Query("quick fox jumps", TextQueryType::kPhrase);
  spread.slop = 1;  // "quick brown fox jumps": fox and jumps each one place late
  EXPECT_EQ(IdSet(Search(*small_, spread)), (std::set<int64_t>{0}));
}

TEST_F(TextSearchTest, BooleanQueries) {
  EXPECT_EQ(IdSet(Search(*small_, Query("+fox -lazy", TextQueryType::kBoolean))),
            (std::set<int64_t>{2, 4}));
  EXPECT_EQ(IdSet(Search(*small_, Query("fox cat", TextQueryType::kBoolean))),
            (std::set<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(IdSet(Search(*small_, Query("+brown -\"quick brown\"", TextQueryType::kBoolean))),
            (std::set<int64_t>{2}));
  EXPECT_EQ(IdSet(Search(*small_, Query("+dog (cat lazy)", TextQueryType::kBoolean))),
            (std::set<int64_t>{0, 1, 4}));
  EXPECT_EQ(IdSet(Search(*small_, Query("+dog +(cat lazy)", TextQueryType::kBoolean))),
            (std::set<int64_t>{0, 4}));
  EXPECT_EQ(IdSet(Search(*small_, Query("sleep* colr~1", TextQueryType::kBoolean))),
            (std::set<int64_t>{3, 7}));
  // A clause of stop words only is dropped, a must one too; a must clause of an absent term is
  // held by no document.
  EXPECT_EQ(IdSet(Search(*small_, Query("+the fox", TextQueryType::kBoolean))),
            (std::set<int64_t>{0, 2, 4}));
  EXPECT_TRUE(Search(*small_, Query("+zebra fox", TextQueryType::kBoolean)).empty());
  EXPECT_EQ(IdSet(Search(*small_, Query("the +fox", TextQueryType::kBoolean))),
            (std::set<int64_t>{0, 2, 4}));
  // Only must_not clauses match nothing.
  EXPECT_TRUE(Search(*small_, Query("-fox", TextQueryType::kBoolean)).empty());
  // A should clause adds to a must clause's score.
  const auto with_should = Search(*small_, Query("+dog lazy", TextQueryType::kBoolean));
  EXPECT_EQ(with_should.front().id, 0);
  auto bad = TextSearch(*small_, Query("\"open", TextQueryType::kBoolean));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(KindOf(bad.status()), ErrorKind::kInvalidArgument);
}

TEST_F(TextSearchTest, PrefixAndFuzzy) {
  EXPECT_EQ(IdSet(Search(*small_, Query("do", TextQueryType::kPrefix))),
            (std::set<int64_t>{0, 1, 4}));
  EXPECT_EQ(IdSet(Search(*small_, Query("Qui", TextQueryType::kPrefix))),
            (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(IdSet(Search(*small_, Query("colr", TextQueryType::kFuzzy))), (std::set<int64_t>{7}));
  auto two = Query("colr", TextQueryType::kFuzzy);
  two.fuzziness = 2;
  EXPECT_EQ(IdSet(Search(*small_, two)), (std::set<int64_t>{6, 7}));
  // Transposition is one edit (Damerau).
  EXPECT_EQ(IdSet(Search(*small_, Query("cta", TextQueryType::kFuzzy))), (std::set<int64_t>{3, 4}));
  auto capped = Query("s", TextQueryType::kPrefix);
  capped.max_expansions = 1;
  ASSERT_FALSE(Search(*small_, capped).empty());
  EXPECT_TRUE(Search(*small_, Query("zzz", TextQueryType::kPrefix)).empty());
}

TEST_F(TextSearchTest, MultiMatchTakesTheBestBoostedColumn) {
  const auto body = Search(*small_, Query("fox", TextQueryType::kMatch, 10, "body"));
  const auto title = Search(*small_, Query("fox", TextQueryType::kMatch, 10, "title"));
  auto multi = Query("fox", TextQueryType::kMultiMatch);
  multi.columns = {{"body", 1.0}, {"title", 2.0}};
  const auto hits = Search(*small_, multi);
  std::map<int64_t, double> expected;
  for (const auto& hit : body) expected[hit.id] = std::max(expected[hit.id], double{hit.score});
  for (const auto& hit : title) {
    expected[hit.id] = std::max(expected[hit.id], 2.0 * hit.score);
  }
  ASSERT_EQ(hits.size(), expected.size());
  for (const auto& hit : hits) EXPECT_NEAR(hit.score, expected[hit.id], 1e-5) << hit.id;
}

TEST_F(TextSearchTest, PrefilterAndPostfilter) {
  auto options = Query("fox dog cat", TextQueryType::kMatch, 2);
  options.filter = "n = 0";
  options.prefilter = true;
  const auto pre = Search(*small_, options);
  EXPECT_EQ(pre.size(), 2u);
  for (const auto& hit : pre) EXPECT_EQ(hit.id % 2, 0);
  options.prefilter = false;
  const auto post = Search(*small_, options);
  const auto unfiltered = Search(*small_, Query("fox dog cat", TextQueryType::kMatch, 2));
  size_t even = 0;
  for (const auto& hit : unfiltered) even += hit.id % 2 == 0 ? 1 : 0;
  EXPECT_EQ(post.size(), even);
  // The prefilter does not change the scores (global statistics are over every live row).
  auto all = Query("fox dog cat", TextQueryType::kMatch, 10);
  const auto every = Search(*small_, all);
  for (const auto& hit : pre) {
    bool found = false;
    for (const auto& other : every) found |= other == hit;
    EXPECT_TRUE(found) << hit;
  }
}

TEST_F(TextSearchTest, KLargerThanTheMatchesAndDeletedRows) {
  EXPECT_EQ(Search(*small_, Query("fox", TextQueryType::kMatch, 1000000)).size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto deleted, small_->Delete("id = 2"));
  EXPECT_EQ(IdSet(Search(*deleted, Query("fox"))), (std::set<int64_t>{0, 4}));
}

TEST_F(TextSearchTest, EmptyQueriesReturnNoRows) {
  for (auto type : {TextQueryType::kMatch, TextQueryType::kPhrase, TextQueryType::kBoolean,
                    TextQueryType::kPrefix, TextQueryType::kFuzzy}) {
    ASSERT_OK_AND_ASSIGN(auto empty, TextSearch(*small_, Query("", type)));
    EXPECT_EQ(empty->num_rows(), 0);
    EXPECT_NE(empty->schema()->GetFieldIndex("_score"), -1);
  }
  ASSERT_OK_AND_ASSIGN(auto stop_words, TextSearch(*small_, Query("the of and a")));
  EXPECT_EQ(stop_words->num_rows(), 0);
}

TEST_F(TextSearchTest, BadInputIsInvalidArgument) {
  std::vector<TextSearchOptions> bad;
  bad.push_back(Query("fox", TextQueryType::kMatch, 10, "missing"));
  bad.push_back(Query("fox", TextQueryType::kMatch, 10, "id"));  // not a string column
  bad.push_back(Query("fox", TextQueryType::kMatch, 0));
  auto k1 = Query("fox");
  k1.k1 = -1;
  bad.push_back(k1);
  auto b = Query("fox");
  b.b = 1.5;
  bad.push_back(b);
  auto fuzzy = Query("fox", TextQueryType::kFuzzy);
  fuzzy.fuzziness = 3;
  bad.push_back(fuzzy);
  auto two_columns = Query("fox");
  two_columns.columns.push_back({"title", 1.0});
  bad.push_back(two_columns);
  for (const auto& options : bad) {
    auto result = TextSearch(*small_, options);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument) << result.status().ToString();
  }
  EXPECT_FALSE(ParseTextQueryType("regex").ok());
  ASSERT_OK_AND_ASSIGN(auto type, ParseTextQueryType("multi_match"));
  EXPECT_EQ(type, TextQueryType::kMultiMatch);
  EXPECT_EQ(TextQueryTypeName(TextQueryType::kFuzzy), "fuzzy");
}

TEST_F(TextSearchTest, ResultColumnsAndExplain) {
  auto options = Query("fox");
  options.projection = {"title", "id"};
  options.with_row_address = true;
  options.highlight = true;
  Explain explain;
  ASSERT_OK_AND_ASSIGN(auto table, TextSearch(*small_, options, &explain));
  ASSERT_EQ(table->num_columns(), 5);
  EXPECT_EQ(table->schema()->field(0)->name(), "title");
  EXPECT_EQ(table->schema()->field(2)->name(), "_score");
  EXPECT_EQ(table->schema()->field(3)->name(), "_highlight");
  EXPECT_EQ(table->schema()->field(4)->name(), dataset::kRowAddressColumn);
  auto highlights = table->column(3)->chunk(0);
  EXPECT_NE(highlights->ToString().find("<b>fox</b>"), std::string::npos) << highlights->ToString();
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("unindexed, analyzed on the fly"), std::string::npos) << text;
  EXPECT_NE(text.find("block-max WAND"), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera::query::text_search_test
