// Analyzer options as index parameters (analyzer.h, analyzer_options.h): the defaults, every
// key, the canonical form AnalyzerParams writes (Parse(AnalyzerParams(x)) == x), and the
// InvalidArgument errors naming the key, the value and what is accepted.
#include "tessera/index/text/analyzer_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "support/status_assertions.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/status.h"

namespace tessera::index::text::analyzer_options_test {
namespace {

constexpr std::string_view kFamily = "INVERTED";

// The message of the InvalidArgument ParseAnalyzerOptions returns for `params`.
std::string ErrorOf(const Params& params) {
  auto result = ParseAnalyzerOptions(params, kFamily);
  if (result.ok()) return "(no error)";
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  return result.status().message();
}

TEST(AnalyzerOptionsTest, DefaultsAreThoseOfAnalyzerOptions) {
  ASSERT_OK_AND_ASSIGN(AnalyzerOptions options, ParseAnalyzerOptions({}, kFamily));
  EXPECT_EQ(options, AnalyzerOptions{});
  EXPECT_EQ(options.tokenizer, TokenizerKind::kSimple);
  EXPECT_TRUE(options.lower_case && options.ascii_folding && options.stem &&
              options.remove_stop_words);
  EXPECT_EQ(options.language, "english");
  EXPECT_EQ(options.max_token_length, 40);
}

TEST(AnalyzerOptionsTest, ReadsEveryKeyIgnoringOthersAndCase) {
  ASSERT_OK_AND_ASSIGN(AnalyzerOptions options, ParseAnalyzerOptions({{"tokenizer", "NGRAM"},
                                                                      {"ngram_min", "2"},
                                                                      {"ngram_max", "5"},
                                                                      {"lower_case", "False"},
                                                                      {"ascii_folding", "false"},
                                                                      {"language", "German"},
                                                                      {"max_token_length", "100"},
                                                                      {"k1", "1.2"}},
                                                                     kFamily));
  EXPECT_EQ(options.tokenizer, TokenizerKind::kNgram);
  EXPECT_EQ(options.ngram_min, 2);
  EXPECT_EQ(options.ngram_max, 5);
  EXPECT_FALSE(options.lower_case);
  EXPECT_FALSE(options.ascii_folding);
  EXPECT_FALSE(options.stem);  // n-grams are not words
  EXPECT_FALSE(options.remove_stop_words);
  EXPECT_EQ(options.language, "german");
  EXPECT_EQ(options.max_token_length, 100);
}

TEST(AnalyzerOptionsTest, NgramMaxDefaultsToNoLessThanNgramMin) {
  ASSERT_OK_AND_ASSIGN(AnalyzerOptions options,
                       ParseAnalyzerOptions({{"tokenizer", "ngram"}, {"ngram_min", "5"}}, kFamily));
  EXPECT_EQ(options.ngram_min, 5);
  EXPECT_EQ(options.ngram_max, 5);
}

TEST(AnalyzerOptionsTest, ParamsRoundTrip) {
  std::vector<Params> cases = {{},
                               {{"tokenizer", "whitespace"}, {"stem", "false"}},
                               {{"tokenizer", "raw"}, {"max_token_length", "65535"}},
                               {{"tokenizer", "ngram"}, {"ngram_min", "1"}, {"ngram_max", "16"}},
                               {{"tokenizer", "icu"}, {"language", "french"}},
                               {{"language", "porter"}, {"remove_stop_words", "false"}},
                               {{"lower_case", "false"}, {"ascii_folding", "false"}}};
  for (const auto& params : cases) {
    ASSERT_OK_AND_ASSIGN(AnalyzerOptions options, ParseAnalyzerOptions(params, kFamily));
    const Params canonical = AnalyzerParams(options);
    EXPECT_EQ(canonical.size(), AnalyzerParamKeys().size());
    for (std::string_view key : AnalyzerParamKeys()) {
      EXPECT_EQ(canonical.count(std::string(key)), 1u) << key;
    }
    ASSERT_OK_AND_ASSIGN(AnalyzerOptions again, ParseAnalyzerOptions(canonical, kFamily));
    EXPECT_EQ(again, options) << DescribeParams(params);
    EXPECT_EQ(AnalyzerParams(again), canonical);
  }
}

TEST(AnalyzerOptionsTest, EquivalentParamsHaveOneCanonicalForm) {
  // n-gram lengths mean nothing to the simple tokenizer.
  ASSERT_OK_AND_ASSIGN(AnalyzerOptions with_lengths,
                       ParseAnalyzerOptions({{"ngram_min", "2"}, {"ngram_max", "7"}}, kFamily));
  EXPECT_EQ(AnalyzerParams(with_lengths), AnalyzerParams(AnalyzerOptions{}));
  ASSERT_OK_AND_ASSIGN(AnalyzerOptions upper,
                       ParseAnalyzerOptions({{"tokenizer", "Simple"}, {"stem", "TRUE"}}, kFamily));
  EXPECT_EQ(AnalyzerParams(upper), AnalyzerParams(AnalyzerOptions{}));
}

TEST(AnalyzerOptionsTest, ErrorsNameTheKeyTheValueAndTheAcceptedValues) {
  EXPECT_EQ(ErrorOf({{"tokenizer", "standard"}}),
            "index parameter 'tokenizer' of INVERTED must be one of simple, whitespace, raw, "
            "ngram, icu, got 'standard'");
  const std::string language = ErrorOf({{"language", "klingon"}});
  EXPECT_NE(language.find("'language'"), std::string::npos) << language;
  EXPECT_NE(language.find("'klingon'"), std::string::npos) << language;
  EXPECT_NE(language.find("english"), std::string::npos) << language;
  EXPECT_NE(language.find("russian"), std::string::npos) << language;
  EXPECT_EQ(ErrorOf({{"stem", "yes"}}),
            "index parameter 'stem' of INVERTED must be one of true, false, got 'yes'");
  EXPECT_NE(ErrorOf({{"max_token_length", "0"}}).find("[1, 65535]"), std::string::npos);
  EXPECT_NE(ErrorOf({{"max_token_length", "65536"}}).find("[1, 65535]"), std::string::npos);
  EXPECT_NE(ErrorOf({{"ngram_min", "0"}}).find("[1, 16]"), std::string::npos);
  EXPECT_NE(ErrorOf({{"ngram_max", "17"}}).find("[1, 16]"), std::string::npos);
  EXPECT_NE(ErrorOf({{"tokenizer", "ngram"}, {"ngram_min", "4"}, {"ngram_max", "3"}})
                .find("ngram_min <= ngram_max"),
            std::string::npos);
}

TEST(AnalyzerOptionsTest, RejectsStemOrStopWordsWhereTheLanguageHasNone) {
  // Snowball's "porter" stemmer has no stop-word list of its own.
  const std::string message = ErrorOf({{"language", "porter"}});
  EXPECT_NE(message.find("remove_stop_words"), std::string::npos) << message;
  EXPECT_NE(message.find("english"), std::string::npos) << message;
  EXPECT_EQ(ErrorOf({{"language", "porter"}, {"remove_stop_words", "false"}}), "(no error)");
}

TEST(AnalyzerOptionsTest, RejectsStemOrStopWordsForTokenizersWithoutWords) {
  for (std::string tokenizer : {"raw", "ngram"}) {
    for (std::string key : {"stem", "remove_stop_words"}) {
      const std::string message = ErrorOf({{"tokenizer", tokenizer}, {key, "true"}});
      EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
      EXPECT_NE(message.find(key + "=false"), std::string::npos) << message;
    }
  }
}

TEST(AnalyzerOptionsTest, LanguagesComeFromTheStemmersAndTheStopWordLists) {
  const auto stemmers = StemmerLanguages();
  const auto lists = StopWordLanguages();
  EXPECT_TRUE(std::is_sorted(stemmers.begin(), stemmers.end()));
  EXPECT_TRUE(std::is_sorted(lists.begin(), lists.end()));
  for (const char* language : {"english", "french", "german", "spanish", "russian"}) {
    EXPECT_TRUE(std::binary_search(stemmers.begin(), stemmers.end(), language)) << language;
    EXPECT_TRUE(std::binary_search(lists.begin(), lists.end(), language)) << language;
  }
  // Every stop-word language has a stemmer, so defaults work for each of them.
  for (const auto& language : lists) {
    EXPECT_TRUE(std::binary_search(stemmers.begin(), stemmers.end(), language)) << language;
    AnalyzerOptions options;
    options.language = language;
    EXPECT_OK(Analyzer::Make(options).status());
  }
}

TEST(AnalyzerOptionsTest, ParamKeysAreTheAnalyzerKeys) {
  const auto& keys = AnalyzerParamKeys();
  EXPECT_EQ(keys.size(), 9u);
  for (const auto& [key, value] : AnalyzerParams(AnalyzerOptions{})) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
}

}  // namespace
}  // namespace tessera::index::text::analyzer_options_test
