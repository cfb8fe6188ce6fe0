// The reference BM25 of the oracle tests (tests/support/reference_bm25.h) on three documents
// whose scores are computed here by hand from the formula of query/text_search.h: if the
// reference were wrong, the oracle would compare tessera with a wrong answer.
#include <gtest/gtest.h>

#include <cmath>

#include "support/reference_bm25.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"

namespace tessera::testing::reference_bm25_test {
namespace {

using query::TextQueryType;
using query::TextSearchOptions;

// No stemming or stop words: the terms are the lower-cased words.
const index::Params& PlainParams() {
  static const index::Params params = {{"stem", "false"}, {"remove_stop_words", "false"}};
  return params;
}

class ReferenceBm25Test : public ::testing::Test {
 protected:
  void SetUp() override {
    arrow::StringBuilder texts;
    ASSERT_OK(texts.Append("the quick brown fox"));
    ASSERT_OK(texts.Append("Quick quick dog"));
    ASSERT_OK(texts.Append("lazy dog sleeps"));
    std::shared_ptr<arrow::Array> array;
    ASSERT_OK(texts.Finish(&array));
    auto schema = arrow::schema({arrow::field("text", arrow::utf8())});
    ASSERT_OK_AND_ASSIGN(auto dataset, dataset::Dataset::Create(
                                           directory_.Child("data"),
                                           ReaderOf(arrow::RecordBatch::Make(schema, 3, {array}))));
    ASSERT_OK_AND_ASSIGN(reference_, ReferenceBm25::Make(*dataset, {"text"}, PlainParams()));
    ASSERT_EQ(reference_->document_count(), 3u);
  }

  std::vector<ReferenceHit> Search(TextQueryType type, const std::string& text, int slop = 0) {
    TextSearchOptions options;
    options.type = type;
    options.columns = {{"text", 1.0}};
    options.text = text;
    options.slop = slop;
    auto hits = reference_->Search(options);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::vector<ReferenceHit>{};
  }
  uint32_t Document(const ReferenceHit& hit) const {
    for (uint32_t d = 0; d < reference_->document_count(); ++d) {
      if (reference_->row_address(d) == hit.row_address) return d;
    }
    return UINT32_MAX;
  }

  // N = 3 documents of lengths 4, 3, 3.
  static double Idf(double df) { return std::log(1 + (3 - df + 0.5) / (df + 0.5)); }
  static double Tf(double tf, double length) {
    const double average = 10.0 / 3.0;
    return tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average));
  }

  TempDirectory directory_;
  std::unique_ptr<ReferenceBm25> reference_;
};

TEST_F(ReferenceBm25Test, MatchScoresByTheFormulaAndOrdersByScoreThenAddress) {
  const auto hits = Search(TextQueryType::kMatch, "quick");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(Document(hits[0]), 1u);  // tf 2 beats tf 1
  EXPECT_DOUBLE_EQ(hits[0].score, Idf(2) * Tf(2, 3));
  EXPECT_DOUBLE_EQ(hits[1].score, Idf(2) * Tf(1, 4));
  // A repeated query term counts twice; "dog" adds its own term.
  const auto twice = Search(TextQueryType::kMatch, "quick quick dog");
  ASSERT_EQ(twice.size(), 3u);
  EXPECT_DOUBLE_EQ(twice[0].score, 2 * Idf(2) * Tf(2, 3) + Idf(2) * Tf(1, 3));
  // Equal scores: ascending row address.
  const auto tie = Search(TextQueryType::kMatch, "dog");  // tf 1 in two documents of length 3
  ASSERT_EQ(tie.size(), 2u);
  EXPECT_EQ(tie[0].score, tie[1].score);
  EXPECT_LT(tie[0].row_address, tie[1].row_address);
  EXPECT_TRUE(Search(TextQueryType::kMatch, "absent").empty());
}

TEST_F(ReferenceBm25Test, PhraseNeedsOrderUnlessTheSlopAllowsIt) {
  const auto exact = Search(TextQueryType::kPhrase, "quick brown");
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_EQ(Document(exact[0]), 0u);
  EXPECT_DOUBLE_EQ(exact[0].score, (Idf(2) + Idf(1)) * Tf(1, 4));
  EXPECT_TRUE(Search(TextQueryType::kPhrase, "quick fox").empty());
  EXPECT_EQ(Search(TextQueryType::kPhrase, "quick fox", 1).size(), 1u);
  // A transposition is two moves.
  EXPECT_TRUE(Search(TextQueryType::kPhrase, "brown quick", 1).empty());
  EXPECT_EQ(Search(TextQueryType::kPhrase, "brown quick", 2).size(), 1u);
  // "quick quick" occurs once in document 1; slop counts each term's moves from where the
  // first term puts it, summed: "quick fox brown" needs 1 + 1.
  const auto repeated = Search(TextQueryType::kPhrase, "quick quick");
  ASSERT_EQ(repeated.size(), 1u);
  EXPECT_DOUBLE_EQ(repeated[0].score, 2 * Idf(2) * Tf(1, 3));
  EXPECT_TRUE(Search(TextQueryType::kPhrase, "quick fox brown", 1).empty());
  EXPECT_EQ(Search(TextQueryType::kPhrase, "quick fox brown", 2).size(), 1u);
}

TEST_F(ReferenceBm25Test, BooleanClausesMustShouldMustNot) {
  const auto must = Search(TextQueryType::kBoolean, "+quick -fox");
  ASSERT_EQ(must.size(), 1u);
  EXPECT_EQ(Document(must[0]), 1u);
  const auto should = Search(TextQueryType::kBoolean, "(lazy fox) +dog");
  ASSERT_EQ(should.size(), 2u);
  EXPECT_EQ(Document(should[0]), 2u);
  EXPECT_DOUBLE_EQ(should[0].score, Idf(2) * Tf(1, 3) + Idf(1) * Tf(1, 3));
  EXPECT_EQ(Search(TextQueryType::kBoolean, "\"brown quick\"~2 dog").size(), 3u);
  EXPECT_EQ(Search(TextQueryType::kBoolean, "la* -dog").size(), 0u);
  EXPECT_EQ(Search(TextQueryType::kBoolean, "dgo~1").size(), 2u);
  // A clause the analyzer leaves nothing of is dropped, not a must that nothing matches.
  EXPECT_EQ(Search(TextQueryType::kBoolean, "+(, .) +fox").size(), 1u);
  EXPECT_TRUE(Search(TextQueryType::kBoolean, "+\"\" -fox").empty());
  TextSearchOptions unterminated;
  unterminated.type = TextQueryType::kBoolean;
  unterminated.columns = {{"text", 1.0}};
  unterminated.text = "\"quick brown";
  EXPECT_FALSE(reference_->Search(unterminated).ok());
}

TEST_F(ReferenceBm25Test, PrefixAndFuzzyExpandToDictionaryTerms) {
  const auto prefix = Search(TextQueryType::kPrefix, "QU");
  ASSERT_EQ(prefix.size(), 2u);
  EXPECT_DOUBLE_EQ(prefix[0].score, Idf(2) * Tf(2, 3));
  const auto fuzzy = Search(TextQueryType::kFuzzy, "dgo");  // a transposition
  ASSERT_EQ(fuzzy.size(), 2u);
  EXPECT_EQ(ReferenceBm25::EditDistance("ab", "ba"), 1);
  EXPECT_EQ(ReferenceBm25::EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(ReferenceBm25::EditDistance("ca", "abc"), 3);  // no substring edited twice
  EXPECT_EQ(ReferenceBm25::EditDistance("", "abc"), 3);
}

}  // namespace
}  // namespace tessera::testing::reference_bm25_test
