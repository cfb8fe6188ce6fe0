// Ill-formed UTF-8 in analyzed text (analyzer.h): never a failure or a crash; every ill-formed
// sequence (its maximal subpart: a lone continuation byte, a truncated sequence, an overlong
// form, a surrogate, a value above U+10FFFF) reads as one U+FFFD, which separates tokens in
// every tokenizer but raw, and which raw keeps as the bytes EF BF BD.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tessera/index/text/analyzer.h"

#include "support/analyzed_tokens.h"

namespace tessera::index::text::analyzer_utf8_test {
namespace {

using testing::TermsOf;

constexpr TokenizerKind kAllTokenizers[] = {TokenizerKind::kSimple, TokenizerKind::kWhitespace,
                                            TokenizerKind::kRaw, TokenizerKind::kNgram,
                                            TokenizerKind::kIcu};

AnalyzerOptions Tokens(TokenizerKind tokenizer) {
  AnalyzerOptions options;
  options.tokenizer = tokenizer;
  options.lower_case = false;
  options.ascii_folding = false;
  options.stem = false;
  options.remove_stop_words = false;
  options.ngram_min = 1;
  options.ngram_max = 16;
  options.max_token_length = 65535;
  return options;
}

using Terms = std::vector<std::string>;

// Each case: the ill-formed bytes between "ab" and "cd".
const std::vector<std::string>& IllFormed() {
  static const std::vector<std::string> cases = {
      "\x80",              // lone continuation byte
      "\xBF\xBF",          // two of them
      "\xC3",              // truncated two-byte sequence
      "\xE2\x82",          // truncated three-byte sequence
      "\xF0\x9F\x99",      // truncated four-byte sequence
      "\xC0\xAF",          // overlong '/'
      "\xE0\x80\xAF",      // overlong '/' in three bytes
      "\xED\xA0\x80",      // a UTF-16 surrogate
      "\xF4\x90\x80\x80",  // above U+10FFFF
      "\xFF",              // never valid
      "\xFE\xFE",
  };
  return cases;
}

TEST(AnalyzerUtf8Test, IllFormedSequencesSeparateWords) {
  for (TokenizerKind kind :
       {TokenizerKind::kSimple, TokenizerKind::kWhitespace, TokenizerKind::kIcu}) {
    for (const auto& bad : IllFormed()) {
      EXPECT_EQ(TermsOf(Tokens(kind), "ab" + bad + "cd"), (Terms{"ab", "cd"}))
          << "tokenizer " << static_cast<int>(kind) << ", bytes of size " << bad.size();
    }
  }
  // A valid U+FFFD separates words too.
  EXPECT_EQ(TermsOf(Tokens(TokenizerKind::kWhitespace),
                    "ab\xEF\xBF\xBD"
                    "cd"),
            (Terms{"ab", "cd"}));
}

TEST(AnalyzerUtf8Test, NgramsNeverSpanAnIllFormedSequence) {
  auto options = Tokens(TokenizerKind::kNgram);
  options.ngram_min = 2;
  options.ngram_max = 2;
  for (const auto& bad : IllFormed()) {
    EXPECT_EQ(TermsOf(options, "ab" + bad + "cd"), (Terms{"ab", "cd"}));
  }
}

TEST(AnalyzerUtf8Test, RawKeepsEachIllFormedSequenceAsOneReplacementCharacter) {
  const std::string replacement = "\xEF\xBF\xBD";
  const auto options = Tokens(TokenizerKind::kRaw);
  EXPECT_EQ(TermsOf(options,
                    "ab\x80"
                    "cd"),
            (Terms{"ab" + replacement + "cd"}));
  EXPECT_EQ(TermsOf(options,
                    "ab\xE2\x82"
                    "cd"),
            (Terms{"ab" + replacement + "cd"}));
  EXPECT_EQ(TermsOf(options,
                    "ab\xBF\xBF"
                    "cd"),
            (Terms{"ab" + replacement + replacement + "cd"}));
  EXPECT_EQ(TermsOf(options, "\xFF"), (Terms{replacement}));
  auto folded = options;
  folded.lower_case = true;
  folded.ascii_folding = true;
  EXPECT_EQ(TermsOf(folded, "CAFÉ\xC3"), (Terms{"cafe" + replacement}));
}

TEST(AnalyzerUtf8Test, TruncatedSequenceAtTheEndOfTheText) {
  for (TokenizerKind kind : kAllTokenizers) {
    if (kind == TokenizerKind::kRaw || kind == TokenizerKind::kNgram) continue;
    EXPECT_EQ(TermsOf(Tokens(kind), "word\xF0\x9F"), (Terms{"word"}));
    EXPECT_TRUE(TermsOf(Tokens(kind), "\xE2").empty());
  }
}

// Random bytes, biased towards UTF-8 lead and continuation bytes: every tokenizer with every
// filter returns tokens inside the text, positions never decreasing, and a next position past
// them all.
TEST(AnalyzerUtf8Test, RandomBytesGiveTokensInsideTheTextWithOrderedPositions) {
  std::mt19937 random(20261201);
  const std::string alphabet = "aZ9 .\x80\xBF\xC3\xA9\xE2\x82\xAC\xF0\x9F\x99\x82\xFF\xED\xCC\x81";
  for (TokenizerKind kind : kAllTokenizers) {
    for (bool filters : {false, true}) {
      auto options = Tokens(kind);
      options.lower_case = filters;
      options.ascii_folding = filters;
      options.ngram_min = 1;
      options.ngram_max = 4;
      options.stem = filters && kind != TokenizerKind::kRaw && kind != TokenizerKind::kNgram;
      options.remove_stop_words = options.stem;
      auto analyzer = Analyzer::Make(options).ValueOrDie();
      for (int round = 0; round < 200; ++round) {
        std::string text(random() % 64, ' ');
        for (char& c : text) c = alphabet[random() % alphabet.size()];
        uint32_t previous = 7;
        const uint32_t next = analyzer->Analyze(text, 7, [&](const Token& token) {
          EXPECT_LE(token.begin, token.end);
          EXPECT_LE(token.end, text.size());
          EXPECT_GE(token.position, previous);
          EXPECT_FALSE(token.term.empty());
          previous = token.position;
        });
        EXPECT_GE(next, previous);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::index::text::analyzer_utf8_test
