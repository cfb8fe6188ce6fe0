// The parts behind the analyzer's word steps: the stop-word lists as data (stop_words.h), the
// compact stop-word set (stop_word_set.h), the Snowball stemmer wrapper (stemmer.h) and the
// stem cache (term_cache.h), and that the cache never changes what the stemmer would say.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/index/text/stemmer.h"
#include "tessera/index/text/stop_word_set.h"
#include "tessera/index/text/stop_words.h"
#include "tessera/index/text/term_cache.h"
#include "tessera/status.h"

namespace tessera::index::text::analyzer_parts_test {
namespace {

TEST(StopWordListTest, HoldsTheSnowballLists) {
  const auto english = StopWordList("english");
  EXPECT_GT(english.size(), 150u);
  for (std::string_view word : {"the", "of", "and", "ourselves", "very"}) {
    EXPECT_NE(std::find(english.begin(), english.end(), word), english.end()) << word;
  }
  const auto german = StopWordList("german");
  EXPECT_NE(std::find(german.begin(), german.end(), "für"), german.end());
  EXPECT_TRUE(StopWordList("klingon").empty());
  EXPECT_FALSE(HasStopWordList("porter"));
  for (const auto& language : StopWordLanguages()) {
    for (std::string_view word : StopWordList(language)) {
      EXPECT_FALSE(word.empty()) << language;
      EXPECT_EQ(word.find(' '), std::string_view::npos) << language;
    }
  }
}

TEST(StopWordSetTest, ContainsExactlyItsWords) {
  std::vector<std::string> words = {"the", "a", "über", "of", "the", std::string(40, 'x')};
  StopWordSet set(words);
  EXPECT_FALSE(set.empty());
  for (const auto& word : words) EXPECT_TRUE(set.Contains(word)) << word;
  for (std::string_view word : {"th", "thee", "", "b", "uber", "ofx", "xxxxxxxx"}) {
    EXPECT_FALSE(set.Contains(word)) << word;
  }
  EXPECT_FALSE(set.Contains(std::string(41, 'x')));
  EXPECT_TRUE(StopWordSet().empty());
  EXPECT_FALSE(StopWordSet().Contains("the"));
}

TEST(StemmerTest, StemsAndRejectsUnknownLanguages) {
  ASSERT_OK_AND_ASSIGN(auto english, Stemmer::Make("english"));
  EXPECT_EQ(english->Stem("running"), "run");
  EXPECT_EQ(english->Stem("connections"), "connect");
  EXPECT_EQ(english->Stem(""), "");
  auto unknown = Stemmer::Make("klingon");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(KindOf(unknown.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("english"), std::string::npos);
  EXPECT_TRUE(HasStemmer("russian"));
  EXPECT_FALSE(HasStemmer("English"));  // languages are lower case
}

TEST(TermCacheTest, RemembersStemsThroughGrowthAndRefills) {
  TermCache cache;
  std::string_view stem;
  EXPECT_FALSE(cache.Find("running", &stem));
  cache.Insert("running", "run");
  cache.Insert("run", "run");
  ASSERT_TRUE(cache.Find("running", &stem));
  EXPECT_EQ(stem, "run");
  ASSERT_TRUE(cache.Find("run", &stem));
  EXPECT_EQ(stem, "run");
  // Too long to keep inline: not remembered, never a wrong answer.
  const std::string long_term(30, 'a');
  cache.Insert(long_term, "a");
  EXPECT_FALSE(cache.Find(long_term, &stem));
  // Far more terms than the table holds: every hit is still the term's own stem.
  for (int i = 0; i < 200000; ++i) {
    const std::string term = "t" + std::to_string(i);
    cache.Insert(term, term + "s");
    ASSERT_TRUE(cache.Find(term, &stem));
    ASSERT_EQ(stem, term + "s");
  }
  int hits = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::string term = "t" + std::to_string(i);
    if (!cache.Find(term, &stem)) continue;
    ++hits;
    ASSERT_EQ(stem, term + "s");
  }
  EXPECT_GT(hits, 0);
  EXPECT_LT(hits, 200000);
}

// Words made of letters only, many distinct (more than the stem cache holds), each repeated:
// the analyzer's terms are those of a fresh stemmer on each word.
TEST(TermCacheTest, AnalyzerStemsAsTheStemmerWouldAcrossCacheRefills) {
  std::vector<std::string> words;
  const std::string suffixes[] = {"ing", "ions", "ed", "s", "ly", "ness", ""};
  for (int i = 0; i < 50000; ++i) {
    std::string word;
    for (int n = i; n > 0 || word.empty(); n /= 26) word += static_cast<char>('a' + n % 26);
    words.push_back("w" + word + suffixes[i % 7]);
  }
  AnalyzerOptions options;
  options.remove_stop_words = false;
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(options));
  ASSERT_OK_AND_ASSIGN(auto stemmer, Stemmer::Make("english"));
  for (int round = 0; round < 2; ++round) {
    for (const auto& word : words) {
      std::string term;
      analyzer->Analyze(word, 0, [&](const Token& token) { term = std::string(token.term); });
      ASSERT_EQ(term, stemmer->Stem(word)) << word;
    }
  }
}

}  // namespace
}  // namespace tessera::index::text::analyzer_parts_test
