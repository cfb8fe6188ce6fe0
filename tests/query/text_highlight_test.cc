// HighlightColumn: passages of at most highlight_length bytes holding the most distinct query
// terms, cut on token and UTF-8 boundaries, the matches wrapped in tags (query/text_highlight.h).
#include "tessera/query/text_highlight.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::query::text_highlight_test {
namespace {

using index::text::AnalyzerOptions;

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";

// Stemming, stop words and folding off, so the tests do not depend on a language's lists.
AnalyzerOptions PlainAnalyzer() {
  AnalyzerOptions options;
  options.stem = false;
  options.remove_stop_words = false;
  options.ascii_folding = false;
  return options;
}

TextSearchOptions Passage(int length, std::string open = "<b>", std::string close = "</b>") {
  TextSearchOptions options;
  options.highlight_length = length;
  options.highlight_open = std::move(open);
  options.highlight_close = std::move(close);
  return options;
}

std::shared_ptr<arrow::Array> Strings(const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder builder;
  for (const auto& value : values) {
    if (value) {
      EXPECT_TRUE(builder.Append(*value).ok());
    } else {
      EXPECT_TRUE(builder.AppendNull().ok());
    }
  }
  return builder.Finish().ValueOrDie();
}

std::vector<std::optional<std::string>> Values(const arrow::Array& array) {
  const auto& strings = static_cast<const arrow::StringArray&>(array);
  std::vector<std::optional<std::string>> out;
  for (int64_t i = 0; i < strings.length(); ++i) {
    if (strings.IsNull(i)) {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(std::string(strings.GetView(i)));
    }
  }
  return out;
}

std::string Highlight(const std::string& text, const std::vector<std::string>& terms,
                      const TextSearchOptions& options) {
  auto result = HighlightColumn(*Strings({text}), PlainAnalyzer(), terms, options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) return "";
  const auto values = Values(**result);
  EXPECT_EQ(values.size(), 1u);
  return values.at(0).value_or("<null>");
}

std::string Strip(std::string passage, const std::vector<std::string>& pieces) {
  for (const auto& piece : pieces) {
    for (size_t at = passage.find(piece); at != std::string::npos; at = passage.find(piece)) {
      passage.erase(at, piece.size());
    }
  }
  return passage;
}

bool IsValidUtf8(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const auto lead = static_cast<unsigned char>(text[at]);
    size_t length = lead < 0x80 ? 1 : lead < 0xC2 ? 0 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (length == 0 || lead > 0xF4 || at + length > text.size()) return false;
    for (size_t i = 1; i < length; ++i) {
      if ((static_cast<unsigned char>(text[at + i]) & 0xC0) != 0x80) return false;
    }
    at += length;
  }
  return true;
}

TEST(TextHighlight, MarksEveryMatchOfAShortValueKeepingItsCase) {
  EXPECT_EQ(Highlight("The quick brown Fox jumps over the lazy dog.", {"fox", "dog"}, Passage(160)),
            "The quick brown <b>Fox</b> jumps over the lazy <b>dog</b>.");
}

// The terms are the analyzer's: stems and folded forms mark the words of the text they come from.
TEST(TextHighlight, MatchesAreTheAnalyzersTermsStemmedAndFolded) {
  ASSERT_OK_AND_ASSIGN(
      auto column, HighlightColumn(*Strings({"The Running dogs of the Café"}), AnalyzerOptions(),
                                   {"run", "dog", "cafe"}, Passage(160)));
  EXPECT_EQ(Values(*column), (std::vector<std::optional<std::string>>{
                                 "The <b>Running</b> <b>dogs</b> of the <b>Café</b>"}));
}

TEST(TextHighlight, RepeatedQueryTermsAreHarmless) {
  EXPECT_EQ(Highlight("a fox and a fox", {"fox", "fox"}, Passage(160)),
            "a <b>fox</b> and a <b>fox</b>");
}

TEST(TextHighlight, TagsAreInsertedVerbatimAndTextIsNotEscaped) {
  EXPECT_EQ(Highlight("<i>fox</i> & co", {"fox"}, Passage(160, "\x1b[1m", "\x1b[0m")),
            "<i>\x1b[1mfox\x1b[0m</i> & co");
  EXPECT_EQ(Highlight("fox", {"fox"}, Passage(160, "", "")), "fox");
}

TEST(TextHighlight, ChoosesTheWindowWithTheMostDistinctTerms) {
  // Three "alpha" early; "alpha beta" later; the window of 20 bytes holding both terms wins.
  const std::string text =
      "alpha alpha alpha one two three four five six seven eight nine alpha beta ten eleven";
  const std::string passage = Highlight(text, {"alpha", "beta"}, Passage(20));
  EXPECT_NE(passage.find("<b>alpha</b> <b>beta</b>"), std::string::npos) << passage;
  EXPECT_EQ(passage.rfind(kEllipsis, 0), 0u) << passage;  // cut before
  EXPECT_LE(Strip(passage, {"<b>", "</b>", std::string(kEllipsis)}).size(), 20u) << passage;
}

TEST(TextHighlight, MoreOccurrencesBreakAnEqualCountOfDistinctTerms) {
  const std::string text = "beta one two three four five six seven beta beta eight nine ten";
  // Both windows hold one distinct term; the second holds two occurrences.
  const std::string passage = Highlight(text, {"beta"}, Passage(9));
  EXPECT_EQ(passage, std::string(kEllipsis) + "<b>beta</b> <b>beta</b>" + std::string(kEllipsis));
}

TEST(TextHighlight, TheEarliestOfEqualWindowsWins) {
  const std::string text = "gamma one two three four five six seven gamma eight";
  EXPECT_EQ(Highlight(text, {"gamma"}, Passage(9)), "<b>gamma</b> one" + std::string(kEllipsis));
}

TEST(TextHighlight, ContextIsSharedAroundTheMatchAndCutsOnlyBetweenTokens) {
  const std::string text = "aaaa bbbb cccc dddd target eeee ffff gggg hhhh";
  // 6 bytes of match, 14 of context: 7 before ("d dddd " → cut inside "cccc", so from "dddd")
  // and 7 after (" eeee f" → to "eeee").
  EXPECT_EQ(Highlight(text, {"target"}, Passage(20)),
            std::string(kEllipsis) + "dddd <b>target</b> eeee" + std::string(kEllipsis));
  // Near the start, the context the start cannot use goes after the match.
  EXPECT_EQ(Highlight(text, {"aaaa"}, Passage(14)),
            "<b>aaaa</b> bbbb cccc" + std::string(kEllipsis));
  // Near the end, before it.
  EXPECT_EQ(Highlight(text, {"hhhh"}, Passage(14)),
            std::string(kEllipsis) + "ffff gggg <b>hhhh</b>");
}

TEST(TextHighlight, AValueWithoutAMatchGivesItsStartCutOnACharacterBoundary) {
  // Three bytes a character: 7 bytes hold two characters.
  EXPECT_EQ(Highlight("日本語のテキスト", {"fox"}, Passage(7)), "日本" + std::string(kEllipsis));
  EXPECT_EQ(Highlight("short", {"fox"}, Passage(7)), "short");
  EXPECT_EQ(Highlight("", {"fox"}, Passage(7)), "");
  EXPECT_EQ(Highlight("日本", {"fox"}, Passage(2)), std::string(kEllipsis));
}

TEST(TextHighlight, AMatchLongerThanThePassageIsCutOnACharacterBoundary) {
  EXPECT_EQ(Highlight("xx abcdefghijklmnop yy", {"abcdefghijklmnop"}, Passage(10)),
            std::string(kEllipsis) + "<b>abcdefghij</b>" + std::string(kEllipsis));
}

TEST(TextHighlight, MultiByteTextStaysValidAndMatchesKeepTheirBytes) {
  const std::string text =
      "Ελληνικά κείμενα και café crème avec fox — 日本語 テキスト fox ещё немного текста";
  for (int length : {5, 9, 13, 20, 31, 64, 200}) {
    const std::string passage = Highlight(text, {"fox"}, Passage(length));
    EXPECT_TRUE(IsValidUtf8(passage)) << length << ": " << passage;
    EXPECT_NE(passage.find("<b>fox</b>"), std::string::npos) << length << ": " << passage;
    const std::string plain = Strip(passage, {"<b>", "</b>", std::string(kEllipsis)});
    EXPECT_LE(plain.size(), static_cast<size_t>(length)) << passage;
    EXPECT_NE(text.find(plain), std::string::npos) << passage;
  }
  const std::string passage = Highlight(text, {"fox"}, Passage(200));
  EXPECT_EQ(passage,
            "Ελληνικά κείμενα και café crème avec <b>fox</b> — 日本語 テキスト <b>fox</b> "
            "ещё немного текста");
}

TEST(TextHighlight, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const std::string text = std::string("fox \xff\xfe bar \xe6\x97") + " fox";
  const std::string passage = Highlight(text, {"bar"}, Passage(160));
  EXPECT_TRUE(IsValidUtf8(passage)) << passage;
  EXPECT_EQ(passage, "fox \xEF\xBF\xBD\xEF\xBF\xBD <b>bar</b> \xEF\xBF\xBD\xEF\xBF\xBD fox");
}

TEST(TextHighlight, AHugeValueGivesABoundedPassageAroundItsBestMatch) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "filler ";
  text += "needle haystack needle";
  for (int i = 0; i < 1000; ++i) text += " tail";
  const std::string passage = Highlight(text, {"needle", "haystack"}, Passage(40));
  EXPECT_NE(passage.find("<b>needle</b> <b>haystack</b> <b>needle</b>"), std::string::npos)
      << passage;
  EXPECT_LE(Strip(passage, {"<b>", "</b>", std::string(kEllipsis)}).size(), 40u);
}

TEST(TextHighlight, NullValuesGiveNull) {
  ASSERT_OK_AND_ASSIGN(auto column, HighlightColumn(*Strings({std::nullopt, "fox", std::nullopt}),
                                                    PlainAnalyzer(), {"fox"}, Passage(20)));
  EXPECT_EQ(Values(*column),
            (std::vector<std::optional<std::string>>{std::nullopt, "<b>fox</b>", std::nullopt}));
}

TEST(TextHighlight, LargeStringValues) {
  arrow::LargeStringBuilder builder;
  ASSERT_OK(builder.Append("one fox"));
  ASSERT_OK(builder.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto values, builder.Finish());
  ASSERT_OK_AND_ASSIGN(auto column,
                       HighlightColumn(*values, PlainAnalyzer(), {"fox"}, Passage(20)));
  EXPECT_EQ(column->type_id(), arrow::Type::STRING);
  EXPECT_EQ(Values(*column),
            (std::vector<std::optional<std::string>>{"one <b>fox</b>", std::nullopt}));
}

TEST(TextHighlight, AListValueHighlightsItsBestElement) {
  auto strings = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder lists(arrow::default_memory_pool(), strings);
  // Row 0: the second element holds both terms. Row 1: null. Row 2: empty. Row 3: no match.
  // Row 4: equal elements, the first wins.
  ASSERT_OK(lists.Append());
  ASSERT_OK(strings->Append("a fox"));
  ASSERT_OK(strings->AppendNull());
  ASSERT_OK(strings->Append("a fox or dog"));
  ASSERT_OK(lists.AppendNull());
  ASSERT_OK(lists.Append());
  ASSERT_OK(lists.Append());
  ASSERT_OK(strings->AppendNull());
  ASSERT_OK(strings->Append("nothing here at all"));
  ASSERT_OK(lists.Append());
  ASSERT_OK(strings->Append("first dog"));
  ASSERT_OK(strings->Append("second dog"));
  ASSERT_OK_AND_ASSIGN(auto values, lists.Finish());
  ASSERT_OK_AND_ASSIGN(auto column,
                       HighlightColumn(*values, PlainAnalyzer(), {"fox", "dog"}, Passage(12)));
  EXPECT_EQ(Values(*column), (std::vector<std::optional<std::string>>{
                                 "a <b>fox</b> or <b>dog</b>", std::nullopt, std::nullopt,
                                 "nothing here" + std::string(kEllipsis), "first <b>dog</b>"}));
}

TEST(TextHighlight, LargeListValues) {
  auto strings = std::make_shared<arrow::LargeStringBuilder>();
  arrow::LargeListBuilder lists(arrow::default_memory_pool(), strings);
  ASSERT_OK(lists.Append());
  ASSERT_OK(strings->Append("no"));
  ASSERT_OK(strings->Append("a fox"));
  ASSERT_OK_AND_ASSIGN(auto values, lists.Finish());
  ASSERT_OK_AND_ASSIGN(auto column,
                       HighlightColumn(*values, PlainAnalyzer(), {"fox"}, Passage(12)));
  EXPECT_EQ(Values(*column), (std::vector<std::optional<std::string>>{"a <b>fox</b>"}));
}

TEST(TextHighlight, BadArgumentsAreInvalidArgument) {
  auto result = HighlightColumn(*Strings({"fox"}), PlainAnalyzer(), {"fox"}, Passage(0));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(result.status().message().find("highlight_length"), std::string::npos);

  arrow::Int64Builder integers;
  ASSERT_OK(integers.Append(1));
  ASSERT_OK_AND_ASSIGN(auto numbers, integers.Finish());
  result = HighlightColumn(*numbers, PlainAnalyzer(), {"fox"}, Passage(10));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(result.status().message().find("int64"), std::string::npos);
}

// Random texts over a small vocabulary: the passage is a piece of the value no longer than the
// limit, its marks are exactly the query terms it holds, and it holds as many distinct query
// terms as the best window of the value does (found by trying every window).
TEST(TextHighlight, RandomTextsGetTheBestWindow) {
  const std::vector<std::string> vocabulary = {"ant", "bee",   "cat",  "dog",    "eel",
                                               "fox", "gnu",   "hen",  "longer", "words",
                                               "x",   "yak42", "zebu", "owl"};
  const std::vector<std::string> terms = {"cat", "fox", "owl"};
  std::mt19937 random(13);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    std::vector<std::pair<size_t, std::string>> words;  // offsets of the words
    const int count = std::uniform_int_distribution<int>(0, 40)(random);
    for (int i = 0; i < count; ++i) {
      if (i > 0) text += std::uniform_int_distribution<int>(0, 3)(random) == 0 ? ", " : " ";
      const auto& word = vocabulary[random() % vocabulary.size()];
      words.emplace_back(text.size(), word);
      text += word;
    }
    const int length = std::uniform_int_distribution<int>(6, 60)(random);
    const std::string passage = Highlight(text, terms, Passage(length, "[", "]"));
    const std::string plain = Strip(passage, {"[", "]", std::string(kEllipsis)});
    ASSERT_LE(plain.size(), static_cast<size_t>(length)) << text << " → " << passage;
    ASSERT_NE(text.find(plain), std::string::npos) << text << " → " << passage;

    size_t best = 0;
    for (size_t first = 0; first < words.size(); ++first) {
      std::set<std::string> seen;
      for (size_t last = first; last < words.size(); ++last) {
        if (words[last].first + words[last].second.size() - words[first].first >
            static_cast<size_t>(length)) {
          break;
        }
        const auto& word = words[last].second;
        if (std::find(terms.begin(), terms.end(), word) != terms.end()) seen.insert(word);
      }
      best = std::max(best, seen.size());
    }
    std::set<std::string> marked;
    for (size_t open = passage.find('['); open != std::string::npos;
         open = passage.find('[', open + 1)) {
      const size_t close = passage.find(']', open);
      ASSERT_NE(close, std::string::npos) << passage;
      const std::string word = passage.substr(open + 1, close - open - 1);
      ASSERT_NE(std::find(terms.begin(), terms.end(), word), terms.end()) << passage;
      marked.insert(word);
    }
    ASSERT_EQ(marked.size(), best) << text << " (" << length << ") → " << passage;
  }
}

}  // namespace
}  // namespace tessera::query::text_highlight_test
