// The analysis pipeline (index/text/analyzer.h) with its default options and each step on its
// own: tokens with positions and offsets, the length limit, lower case, ASCII folding, stop
// words (keeping position gaps) and Snowball stemming; NormalizeWord; list values continuing
// one position sequence.
#include "tessera/index/text/analyzer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/analyzed_tokens.h"
#include "support/status_assertions.h"

namespace tessera::index::text::analyzer_test {
namespace {

using Term = testing::AnalyzedToken;
using testing::TermsOf;

std::vector<Term> Analyze(Analyzer& analyzer, std::string_view text, uint32_t first = 0) {
  return testing::AnalyzeText(analyzer, text, first);
}

AnalyzerOptions Plain() {
  AnalyzerOptions options;
  options.lower_case = false;
  options.ascii_folding = false;
  options.stem = false;
  options.remove_stop_words = false;
  return options;
}

using Terms = std::vector<std::string>;

TEST(AnalyzerTest, DefaultsLowerFoldDropStopWordsAndStem) {
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(AnalyzerOptions{}));
  // "the", "of", "are" are English stop words; positions keep their gaps.
  EXPECT_EQ(
      Analyze(*analyzer, "The Running of the Connections are Café-ready"),
      (std::vector<Term>{
          {"run", 1, 4, 11}, {"connect", 4, 19, 30}, {"cafe", 6, 35, 40}, {"readi", 7, 41, 46}}));
}

TEST(AnalyzerTest, ReturnsThePositionAfterTheLastTokenSoListElementsContinue) {
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(AnalyzerOptions{}));
  std::vector<Term> terms;
  auto collect = [&](const Token& token) {
    terms.push_back(Term{std::string(token.term), token.position, token.begin, token.end});
  };
  uint32_t next = analyzer->Analyze("stock of goods", 10, collect);
  EXPECT_EQ(next, 13u);
  next = analyzer->Analyze("", next, collect);
  EXPECT_EQ(next, 13u);
  next = analyzer->Analyze("stock", next, collect);
  EXPECT_EQ(next, 14u);
  EXPECT_EQ(terms,
            (std::vector<Term>{{"stock", 10, 0, 5}, {"good", 12, 9, 14}, {"stock", 13, 0, 5}}));
}

TEST(AnalyzerTest, OffsetsSliceTheOriginalText) {
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(AnalyzerOptions{}));
  const std::string text = "  Ünïcödé  wörds, ΕΛΛΗΝΙΚΆ and 東京 numbers 42 ";
  for (const auto& term : Analyze(*analyzer, text)) {
    ASSERT_LE(term.begin, term.end);
    ASSERT_LE(term.end, text.size());
  }
  auto plain = Analyzer::Make(Plain()).ValueOrDie();
  for (const auto& term : Analyze(*plain, text)) {
    EXPECT_EQ(term.term, text.substr(term.begin, term.end - term.begin));
  }
  EXPECT_EQ(TermsOf(Plain(), text),
            (Terms{"Ünïcödé", "wörds", "ΕΛΛΗΝΙΚΆ", "and", "東京", "numbers", "42"}));
}

TEST(AnalyzerTest, DropsTokensLongerThanMaxTokenLengthBytesButCountsTheirPositions) {
  AnalyzerOptions options = Plain();
  options.max_token_length = 4;
  auto analyzer = Analyzer::Make(options).ValueOrDie();
  // "éééé" is 4 characters but 8 bytes: the limit is in bytes.
  EXPECT_EQ(Analyze(*analyzer, "abcd abcde éé éééé x"),
            (std::vector<Term>{{"abcd", 0, 0, 4}, {"éé", 2, 11, 15}, {"x", 4, 25, 26}}));
}

TEST(AnalyzerTest, LowerCaseIsUnicodeCaseFolding) {
  AnalyzerOptions options = Plain();
  options.lower_case = true;
  EXPECT_EQ(TermsOf(options, "HeLLo ÀÉÎ ΣΟΦΟΣ σοφος ПРИВЕТ Straße İstanbul"),
            (Terms{"hello", "àéî", "σοφοσ", "σοφοσ", "привет", "straße", "istanbul"}));
}

TEST(AnalyzerTest, AsciiFoldingRemovesAccentsAndMapsLigatures) {
  AnalyzerOptions options = Plain();
  options.ascii_folding = true;
  EXPECT_EQ(TermsOf(options, "café naïve Ångström résumé"),
            (Terms{"cafe", "naive", "Angstrom", "resume"}));
  EXPECT_EQ(TermsOf(options, "æther Œuvre straße Øre łódź Đakovo þorn ﬁle"),
            (Terms{"aether", "OEuvre", "strasse", "Ore", "lodz", "Dakovo", "thorn", "file"}));
  // Decomposed input: the combining accent is part of the word, then removed.
  EXPECT_EQ(TermsOf(options, "cafe\xCC\x81"), (Terms{"cafe"}));
  // Accents of other scripts go too; letters of other scripts stay.
  EXPECT_EQ(TermsOf(options, "ἀρχή Ελληνικά"), (Terms{"αρχη", "Ελληνικα"}));
  // Characters whose decomposition removes no accent stay composed.
  EXPECT_EQ(TermsOf(options, "한국어 ガラス"), (Terms{"한국어", "ガラス"}));
  // Fullwidth letters fold to ASCII.
  EXPECT_EQ(TermsOf(options, "ＡＢＣ"), (Terms{"ABC"}));
}

TEST(AnalyzerTest, LowerCaseAndFoldingTogetherGiveLowerCaseAscii) {
  AnalyzerOptions options = Plain();
  options.lower_case = true;
  options.ascii_folding = true;
  EXPECT_EQ(TermsOf(options, "ÆTHER ÅNGSTRÖM ＡＢＣ İstanbul ẞ"),
            (Terms{"aether", "angstrom", "abc", "istanbul", "ss"}));
}

TEST(AnalyzerTest, StopWordsKeepPositionGaps) {
  AnalyzerOptions options = Plain();
  options.remove_stop_words = true;
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(options));
  // "out" and "of" are both on the English list.
  EXPECT_EQ(Analyze(*analyzer, "sold out of stock"),
            (std::vector<Term>{{"sold", 0, 0, 4}, {"stock", 3, 12, 17}}));
}

TEST(AnalyzerTest, StopWordsMatchAfterFolding) {
  AnalyzerOptions options;
  options.language = "german";
  options.stem = false;
  // "für" and "über" are German stop words; folded, the text reads "fur", "uber".
  EXPECT_EQ(TermsOf(options, "Für Kinder über Alles"), (Terms{"kinder"}));
}

TEST(AnalyzerTest, StemsWithTheLanguagesSnowballStemmer) {
  AnalyzerOptions options;
  options.remove_stop_words = false;
  EXPECT_EQ(TermsOf(options, "running connections connected generously"),
            (Terms{"run", "connect", "connect", "generous"}));
  options.language = "french";
  EXPECT_EQ(TermsOf(options, "continuellement"), (Terms{"continuel"}));
}

TEST(AnalyzerTest, NormalizeWordLowerCasesAndFoldsButNeitherStemsNorDrops) {
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(AnalyzerOptions{}));
  EXPECT_EQ(analyzer->NormalizeWord("Running"), "running");
  EXPECT_EQ(analyzer->NormalizeWord("THE"), "the");
  EXPECT_EQ(analyzer->NormalizeWord("Café"), "cafe");
  EXPECT_EQ(analyzer->NormalizeWord("ab\xFF"), "ab\xEF\xBF\xBD");
  auto plain = Analyzer::Make(Plain()).ValueOrDie();
  EXPECT_EQ(plain->NormalizeWord("Café"), "Café");
}

TEST(AnalyzerTest, MakeRejectsInvalidOptions) {
  AnalyzerOptions options;
  options.language = "klingon";
  EXPECT_FALSE(Analyzer::Make(options).ok());
  options = AnalyzerOptions{};
  options.max_token_length = 0;
  EXPECT_FALSE(Analyzer::Make(options).ok());
  options = AnalyzerOptions{};
  options.tokenizer = TokenizerKind::kNgram;
  options.ngram_min = 5;
  options.ngram_max = 4;
  EXPECT_FALSE(Analyzer::Make(options).ok());
}

TEST(AnalyzerTest, ATokenOfCombiningMarksAloneFoldsToNoTermButKeepsItsPosition) {
  AnalyzerOptions options = Plain();
  options.ascii_folding = true;
  auto analyzer = Analyzer::Make(options).ValueOrDie();
  // A lone combining acute accent is a word character (a mark) that folding removes.
  EXPECT_EQ(Analyze(*analyzer, "a \xCC\x81 b"),
            (std::vector<Term>{{"a", 0, 0, 1}, {"b", 2, 5, 6}}));
}

// What highlighting relies on: analyzing a token's own bytes gives that token's term again.
TEST(AnalyzerTest, ATokensBytesAnalyzeToItsTerm) {
  std::mt19937 random(7);
  const std::vector<std::string> pieces = {"Running", "connections", "Café", "ΣΟΦΟΣ",
                                           "東京",    "42",          " ",    ", ",
                                           "-",       "🙂",        "\xFF", "the"};
  for (TokenizerKind kind : {TokenizerKind::kSimple, TokenizerKind::kWhitespace}) {
    AnalyzerOptions options;
    options.tokenizer = kind;
    auto analyzer = Analyzer::Make(options).ValueOrDie();
    auto again = Analyzer::Make(options).ValueOrDie();
    for (int round = 0; round < 100; ++round) {
      std::string text;
      for (int i = 0; i < 12; ++i) text += pieces[random() % pieces.size()];
      for (const auto& term : Analyze(*analyzer, text)) {
        const auto alone = Analyze(*again, text.substr(term.begin, term.end - term.begin));
        ASSERT_EQ(alone.size(), 1u) << text;
        EXPECT_EQ(alone[0].term, term.term) << text;
      }
    }
  }
}

// Analyzers on several threads at once (ICU's shared data, one stemmer each) give what one
// analyzer gives alone.
TEST(AnalyzerTest, AnalyzersOnSeveralThreadsAgree) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "The Connections of Café running 東京 naïve ";
  auto reference = Analyzer::Make(AnalyzerOptions{}).ValueOrDie();
  const auto expected = Analyze(*reference, text);
  std::vector<std::vector<Term>> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      AnalyzerOptions options;
      options.tokenizer = t % 2 == 0 ? TokenizerKind::kSimple : TokenizerKind::kIcu;
      auto analyzer = Analyzer::Make(AnalyzerOptions{}).ValueOrDie();
      auto icu = Analyzer::Make(options).ValueOrDie();
      for (int round = 0; round < 5; ++round) {
        results[t] = Analyze(*analyzer, text);
        Analyze(*icu, text);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_EQ(result, expected);
}

TEST(AnalyzerTest, AnalyzesAMultiMegabyteValue) {
  std::string text;
  while (text.size() < (4u << 20)) text += "Connections run through Café ünïcode 東京 ";
  ASSERT_OK_AND_ASSIGN(auto analyzer, Analyzer::Make(AnalyzerOptions{}));
  size_t count = 0;
  uint32_t last_position = 0;
  const uint32_t next = analyzer->Analyze(text, 0, [&](const Token& token) {
    ++count;
    last_position = token.position;
    ASSERT_LE(token.end, text.size());
  });
  EXPECT_GT(count, 400000u);
  EXPECT_EQ(next, last_position + 1);
}

}  // namespace
}  // namespace tessera::index::text::analyzer_test
