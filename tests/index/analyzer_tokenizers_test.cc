// The tokenizers of the analyzer (index/text/tokenizers.h) through Analyzer with every filter
// off, so the terms are the tokens: simple, whitespace, raw, ngram and icu on ASCII, accented,
// Greek, CJK and emoji text, with their positions and byte offsets.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/analyzed_tokens.h"
#include "support/status_assertions.h"
#include "tessera/index/text/analyzer.h"

namespace tessera::index::text::analyzer_tokenizers_test {
namespace {

using Term = testing::AnalyzedToken;
using testing::TermsOf;

std::vector<Term> Analyze(const AnalyzerOptions& options, std::string_view text) {
  return testing::AnalyzeText(options, text);
}

AnalyzerOptions Tokens(TokenizerKind tokenizer) {
  AnalyzerOptions options;
  options.tokenizer = tokenizer;
  options.lower_case = false;
  options.ascii_folding = false;
  options.stem = false;
  options.remove_stop_words = false;
  options.max_token_length = 65535;
  return options;
}

using Terms = std::vector<std::string>;

TEST(AnalyzerTokenizerTest, SimpleSplitsOnEverythingButLettersMarksAndDigits) {
  const auto options = Tokens(TokenizerKind::kSimple);
  EXPECT_EQ(Analyze(options, "Hello, world-42! x_y"), (std::vector<Term>{{"Hello", 0, 0, 5},
                                                                         {"world", 1, 7, 12},
                                                                         {"42", 2, 13, 15},
                                                                         {"x", 3, 17, 18},
                                                                         {"y", 4, 19, 20}}));
  EXPECT_EQ(TermsOf(options, "naïve café Ελληνικά Привет 東京タワー"),
            (Terms{"naïve", "café", "Ελληνικά", "Привет", "東京タワー"}));
  // Emoji and other symbols separate words and are no tokens.
  EXPECT_EQ(TermsOf(options, "I🙂love🍕pizza ★ © 2026"),
            (Terms{"I", "love", "pizza", "2026"}));
  EXPECT_TRUE(TermsOf(options, "  ... --- ").empty());
}

TEST(AnalyzerTokenizerTest, WhitespaceSplitsOnUnicodeWhitespaceOnly) {
  const auto options = Tokens(TokenizerKind::kWhitespace);
  // U+00A0 (no-break space) and U+3000 (ideographic space) are whitespace too.
  EXPECT_EQ(Analyze(options, "Hello, world!\t🙂🍕\xC2\xA0x-y\xE3\x80\x80z"),
            (std::vector<Term>{{"Hello,", 0, 0, 6},
                               {"world!", 1, 7, 13},
                               {"🙂🍕", 2, 14, 22},
                               {"x-y", 3, 24, 27},
                               {"z", 4, 30, 31}}));
}

TEST(AnalyzerTokenizerTest, RawKeepsTheWholeValue) {
  auto options = Tokens(TokenizerKind::kRaw);
  EXPECT_EQ(Analyze(options, " Mixed Case, Café 🙂 "),
            (std::vector<Term>{{" Mixed Case, Café 🙂 ", 0, 0, 24}}));
  EXPECT_TRUE(Analyze(options, "").empty());
  // The character filters apply; stop words and stemming do not (they default to off).
  options.lower_case = true;
  options.ascii_folding = true;
  EXPECT_EQ(TermsOf(options, "The Running Café"), (Terms{"the running cafe"}));
  // A value longer than max_token_length is no term.
  options.max_token_length = 8;
  EXPECT_TRUE(Analyze(options, "longer than eight").empty());
}

TEST(AnalyzerTokenizerTest, NgramEmitsEveryCharacterGramOfEachWordAtTheWordsPosition) {
  auto options = Tokens(TokenizerKind::kNgram);
  options.ngram_min = 2;
  options.ngram_max = 3;
  EXPECT_EQ(Analyze(options, "abcd x éfg"),
            (std::vector<Term>{{"ab", 0, 0, 2},
                               {"abc", 0, 0, 3},
                               {"bc", 0, 1, 3},
                               {"bcd", 0, 1, 4},
                               {"cd", 0, 2, 4},
                               // "x" is shorter than ngram_min: no gram, but it takes position 1.
                               {"éf", 2, 7, 10},
                               {"éfg", 2, 7, 11},
                               {"fg", 2, 9, 11}}));
  // Characters, not bytes.
  options.ngram_min = 1;
  options.ngram_max = 1;
  EXPECT_EQ(TermsOf(options, "東京"), (Terms{"東", "京"}));
  options.ngram_min = 3;
  options.ngram_max = 3;
  options.lower_case = true;
  EXPECT_EQ(TermsOf(options, "ΑΒΓΔ"), (Terms{"αβγ", "βγδ"}));
}

TEST(AnalyzerTokenizerTest, NgramOfTheLongestLengthOnALongWord) {
  auto options = Tokens(TokenizerKind::kNgram);
  options.ngram_min = 16;
  options.ngram_max = 16;
  const std::string word(40, 'a');
  const auto terms = Analyze(options, word);
  ASSERT_EQ(terms.size(), 25u);
  for (size_t i = 0; i < terms.size(); ++i) {
    EXPECT_EQ(terms[i].begin, i);
    EXPECT_EQ(terms[i].end, i + 16);
    EXPECT_EQ(terms[i].position, 0u);
  }
}

TEST(AnalyzerTokenizerTest, IcuSegmentsWordsOfLanguagesWithoutSpaces) {
  const auto options = Tokens(TokenizerKind::kIcu);
  // ICU's dictionary splits Chinese and Japanese into words.
  const auto chinese = TermsOf(options, "我喜欢北京");
  EXPECT_GE(chinese.size(), 2u);
  std::string joined;
  for (const auto& term : chinese) joined += term;
  EXPECT_EQ(joined, "我喜欢北京");
  const auto japanese = TermsOf(options, "私は東京に住んでいます");
  EXPECT_GE(japanese.size(), 4u);
  joined.clear();
  for (const auto& term : japanese) joined += term;
  EXPECT_EQ(joined, "私は東京に住んでいます");
  // Thai has no spaces either.
  EXPECT_GE(TermsOf(options, "ภาษาไทยง่ายนิดเดียว").size(), 3u);
}

TEST(AnalyzerTokenizerTest, IcuKeepsWordsAndNumbersButNotSpacesPunctuationOrEmoji) {
  const auto options = Tokens(TokenizerKind::kIcu);
  EXPECT_EQ(Analyze(options, "Don't stop, 3.14 🙂 café!"),
            (std::vector<Term>{
                {"Don't", 0, 0, 5}, {"stop", 1, 6, 10}, {"3.14", 2, 12, 16}, {"café", 3, 22, 27}}));
}

TEST(AnalyzerTokenizerTest, WordTokenizersStemAndDropStopWords) {
  for (TokenizerKind kind :
       {TokenizerKind::kSimple, TokenizerKind::kWhitespace, TokenizerKind::kIcu}) {
    AnalyzerOptions options;
    options.tokenizer = kind;
    EXPECT_EQ(TermsOf(options, "the connections running"), (Terms{"connect", "run"}));
  }
}

TEST(AnalyzerTokenizerTest, NgramAndRawIgnoreStemAndStopWordsGivenToMake) {
  AnalyzerOptions options;  // stem and remove_stop_words are on by default
  options.tokenizer = TokenizerKind::kRaw;
  EXPECT_EQ(TermsOf(options, "The Connections"), (Terms{"the connections"}));
  options.tokenizer = TokenizerKind::kNgram;
  options.ngram_min = 3;
  options.ngram_max = 3;
  EXPECT_EQ(TermsOf(options, "The"), (Terms{"the"}));
}

}  // namespace
}  // namespace tessera::index::text::analyzer_tokenizers_test
