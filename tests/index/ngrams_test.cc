// N-gram extraction for the NGRAM family (index/scalar/ngrams.h): the grams of a value, the
// folding, and the grams a substring predicate requires. The property that makes the family
// a sound superset: every value the filter evaluator finds TRUE for a contains / starts_with /
// LIKE / ILIKE leaf holds every gram GramQueryOf requires, over random values with mixed case,
// the non-ASCII characters Unicode folds onto ASCII letters, other non-ASCII letters, '%', '_'
// and backslashes, and random patterns with wildcards and escapes.
#include "tessera/index/scalar/ngrams.h"

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/string_literals.h"
#include "tessera/expr/filter.h"

namespace tessera::index::scalar::ngrams_test {
namespace {

using Grams = std::vector<Gram>;

Grams GramsOf(std::vector<std::string> texts) {
  Grams grams;
  for (const auto& text : texts) grams.push_back(PackGram(text));
  std::sort(grams.begin(), grams.end());
  return grams;
}

std::shared_ptr<arrow::Schema> TextSchema() {
  return arrow::schema({arrow::field("s", arrow::utf8())});
}

using testing::FilterLiteral;
using testing::TextOf;

GramQuery QueryOf(const std::string& filter_text, const GramScheme& scheme) {
  auto filter = expr::Filter::Parse(filter_text, TextSchema());
  EXPECT_TRUE(filter.ok()) << filter_text << ": " << filter.status().ToString();
  if (!filter.ok()) return {};
  return GramQueryOf((*filter)->root(), scheme);
}

TEST(Ngrams, FoldingMapsAsciiLettersAndTheirNonAsciiCaseMates) {
  EXPECT_EQ(FoldCase("AbC-09_%"), "abc-09_%");
  EXPECT_EQ(FoldCase("\xE2\x84\xAA"
                     "elvin"),
            "kelvin");                                          // U+212A KELVIN SIGN
  EXPECT_EQ(FoldCase("\xC5\xBF"), "s");                         // U+017F LONG S
  EXPECT_EQ(FoldCase("\xC3\x89\xC3\xA9"), "\xC3\x89\xC3\xA9");  // É é kept
  EXPECT_EQ(FoldCase(std::string("A\0B", 3)), std::string("a\0b", 3));
}

TEST(Ngrams, GramsPackBigEndianAndUnpack) {
  EXPECT_EQ(PackGram("ab"), 0x6162u);
  EXPECT_EQ(UnpackGram(PackGram("ab"), 2), "ab");
  const std::string with_nul("\0a\0", 3);
  EXPECT_EQ(UnpackGram(PackGram(with_nul), 3), with_nul);
  EXPECT_NE(PackGram(std::string("\0a", 2)), PackGram(std::string("a\0", 2)));
  EXPECT_EQ(UnpackGram(PackGram("abcdefgh"), 8), "abcdefgh");
}

TEST(Ngrams, GramsOfAValueAreItsDistinctFoldedWindows) {
  Grams grams;
  GramsOfValue("abCab", {2, true}, &grams);
  EXPECT_EQ(grams, GramsOf({"ab", "bc", "ca"}));
  GramsOfValue("abCab", {2, false}, &grams);
  EXPECT_EQ(grams, GramsOf({"ab", "bC", "Ca"}));
  GramsOfValue("ab", {3, true}, &grams);
  EXPECT_TRUE(grams.empty());
  GramsOfValue("", {1, true}, &grams);
  EXPECT_TRUE(grams.empty());
  GramsOfValue("aaaa", {1, true}, &grams);
  EXPECT_EQ(grams, GramsOf({"a"}));
  // Bytes, not code points: é is two bytes.
  GramsOfValue("\xC3\xA9", {1, true}, &grams);
  EXPECT_EQ(grams, GramsOf({"\xC3", "\xA9"}));
}

TEST(Ngrams, QueriesRequireTheGramsOfTheirLiteralRuns) {
  arrow::compute::Initialize().ok();
  const GramScheme three{3, true};
  using Kind = GramQuery::Kind;
  auto query = QueryOf("contains(s, 'aBcd')", three);
  EXPECT_EQ(query.kind, Kind::kGrams);
  EXPECT_EQ(query.grams, GramsOf({"abc", "bcd"}));
  EXPECT_EQ(QueryOf("starts_with(s, 'xyz')", three).grams, GramsOf({"xyz"}));
  EXPECT_EQ(QueryOf("s LIKE '%abc%'", three).grams, GramsOf({"abc"}));
  EXPECT_EQ(QueryOf("s LIKE 'abc%'", three).grams, GramsOf({"abc"}));
  EXPECT_EQ(QueryOf("s LIKE 'abcd'", three).grams, GramsOf({"abc", "bcd"}));
  EXPECT_EQ(QueryOf("s LIKE 'abc_def%gh'", three).grams, GramsOf({"abc", "def"}));
  // Escaped wildcards are literal characters of the run.
  EXPECT_EQ(QueryOf(R"(s LIKE '%a\\%b%')", three).grams, GramsOf({"a%b"}));
  EXPECT_EQ(QueryOf(R"(s LIKE '%a\\_b%')", three).grams, GramsOf({"a_b"}));
  EXPECT_EQ(QueryOf("s LIKE '%a!%b%' ESCAPE '!'", three).grams, GramsOf({"a%b"}));
  // Nothing of n bytes between the wildcards: the scan.
  EXPECT_EQ(QueryOf("contains(s, 'ab')", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("contains(s, '')", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s LIKE '%ab_cd%'", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s LIKE '%'", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s LIKE '___'", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s LIKE ''", three).kind, Kind::kNone);
  // Not substring predicates.
  EXPECT_EQ(QueryOf("ends_with(s, 'abc')", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s = 'abc'", three).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("s LIKE s", three).kind, Kind::kNone);
}

TEST(Ngrams, IlikeKeepsOnlyAsciiGramsAndNeedsFolding) {
  arrow::compute::Initialize().ok();
  using Kind = GramQuery::Kind;
  EXPECT_EQ(QueryOf("s ILIKE '%ABC%'", {3, true}).grams, GramsOf({"abc"}));
  // Kelvin sign and long s fold onto ASCII letters, as RE2's case folding relates them.
  EXPECT_EQ(QueryOf("s ILIKE '%\xE2\x84\xAA\xC5\xBFx%'", {3, true}).grams, GramsOf({"ksx"}));
  // É may match é in a row: grams with its bytes are not trusted; the ASCII ones are.
  EXPECT_EQ(QueryOf("s ILIKE '%\xC3\x89tat%'", {3, true}).grams, GramsOf({"tat"}));
  EXPECT_EQ(QueryOf("s ILIKE '%\xC3\x89t\xC3\xA9%'", {2, true}).kind, Kind::kNone);
  // A case-sensitive LIKE trusts every gram, non-ASCII bytes included.
  EXPECT_EQ(QueryOf("s LIKE '%\xC3\x89t%'", {3, true}).grams, GramsOf({"\xC3\x89t"}));
  // Without folding, case-insensitive queries cannot be narrowed; case-sensitive ones keep case.
  EXPECT_EQ(QueryOf("s ILIKE '%abc%'", {3, false}).kind, Kind::kNone);
  EXPECT_EQ(QueryOf("contains(s, 'ABC')", {3, false}).grams, GramsOf({"ABC"}));
}

// ---------------------------------------------------------------------------------------------
// Soundness over random values and patterns.

// Characters that exercise folding and escaping, each one code point.
const std::vector<std::string>& Alphabet() {
  static const std::vector<std::string> alphabet = {
      "a",
      "A",
      "b",
      "B",
      "k",
      "K",
      "s",
      "S",
      " ",
      "%",
      "_",
      "\\",
      "\xE2\x84\xAA",  // KELVIN SIGN
      "\xC5\xBF",      // LONG S
      "\xC3\xA9",      // é
      "\xC3\x89",      // É
  };
  return alphabet;
}

class TextGenerator {
 public:
  explicit TextGenerator(uint64_t seed) : random_(seed) {}
  int Pick(int n) { return static_cast<int>(random_() % static_cast<uint64_t>(n)); }

  // A value as a sequence of code points (so that patterns can cut it on characters).
  std::vector<std::string> Value() {
    std::vector<std::string> value;
    const int length = Pick(9);
    // A few consecutive letters of the alphabet, so that values repeat letters and share pieces.
    const int size = static_cast<int>(Alphabet().size());
    const int first = Pick(size);
    const int letters = 1 + Pick(4);
    for (int i = 0; i < length; ++i) {
      value.push_back(Alphabet()[static_cast<size_t>((first + Pick(letters)) % size)]);
    }
    return value;
  }

  // A piece of `value` (a code point sequence), some characters replaced by a case mate (one
  // ILIKE equates with them): a / A, k / K / KELVIN SIGN, s / S / LONG S, é / É.
  std::string Piece(const std::vector<std::string>& value) {
    static const std::vector<std::vector<std::string>> kMates = {{"a", "A"},
                                                                 {"b", "B"},
                                                                 {"k", "K", "\xE2\x84\xAA"},
                                                                 {"s", "S", "\xC5\xBF"},
                                                                 {"\xC3\xA9", "\xC3\x89"}};
    if (value.empty()) return "";
    const int begin = Pick(static_cast<int>(value.size()));
    const int length = 1 + Pick(static_cast<int>(value.size()) - begin);
    std::string piece;
    for (int i = begin; i < begin + length; ++i) {
      std::string point = value[static_cast<size_t>(i)];
      for (const auto& mates : kMates) {
        if (Pick(3) == 0 && std::find(mates.begin(), mates.end(), point) != mates.end()) {
          point = mates[static_cast<size_t>(Pick(static_cast<int>(mates.size())))];
          break;
        }
      }
      piece += point;
    }
    return piece;
  }

  // A LIKE pattern (default escape) built from pieces of `value`: literal characters
  // (wildcards and backslashes escaped), '%' and '_'.
  std::string Pattern(const std::vector<std::string>& value) {
    std::string pattern;
    const int parts = 1 + Pick(3);
    for (int part = 0; part < parts; ++part) {
      const int kind = Pick(4);
      if (kind == 0) {
        pattern += "%";
      } else if (kind == 1) {
        pattern += "_";
      } else {
        pattern += testing::EscapedForLike(Piece(value));
      }
    }
    return pattern;
  }

 private:
  std::mt19937_64 random_;
};

TEST(Ngrams, EveryMatchingValueHoldsEveryRequiredGram) {
  arrow::compute::Initialize().ok();
  TextGenerator generator(20261201);
  constexpr int kValues = 200;
  std::vector<std::string> values;
  std::vector<std::vector<std::string>> points;
  arrow::StringBuilder builder;
  for (int i = 0; i < kValues; ++i) {
    points.push_back(generator.Value());
    values.push_back(TextOf(points.back()));
    ASSERT_OK(builder.Append(values.back()));
  }
  std::shared_ptr<arrow::Array> column;
  ASSERT_OK(builder.Finish(&column));
  auto batch = arrow::RecordBatch::Make(TextSchema(), kValues, {column});

  int narrowed = 0;
  int matched = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto& source = points[static_cast<size_t>(generator.Pick(kValues))];
    std::string text;
    switch (generator.Pick(4)) {
      case 0:
        text = "contains(s, " + FilterLiteral(generator.Piece(source)) + ")";
        break;
      case 1:
        text = "starts_with(s, " + FilterLiteral(generator.Piece(source)) + ")";
        break;
      case 2:
        text = "s LIKE " + FilterLiteral(generator.Pattern(source));
        break;
      default:
        text = "s ILIKE " + FilterLiteral(generator.Pattern(source));
        break;
    }
    auto filter = expr::Filter::Parse(text, TextSchema());
    ASSERT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
    ASSERT_OK_AND_ASSIGN(auto truth, (*filter)->Evaluate(*batch));
    for (int n = 1; n <= 4; ++n) {
      for (bool folding : {true, false}) {
        const GramScheme scheme{n, folding};
        const GramQuery query = GramQueryOf((*filter)->root(), scheme);
        if (query.kind != GramQuery::Kind::kGrams) continue;
        ++narrowed;
        Grams held;
        for (int row = 0; row < kValues; ++row) {
          if (!truth->IsValid(row) || !truth->Value(row)) continue;
          ++matched;
          GramsOfValue(values[static_cast<size_t>(row)], scheme, &held);
          for (Gram gram : query.grams) {
            ASSERT_TRUE(std::binary_search(held.begin(), held.end(), gram))
                << text << " (n=" << n << ", folding " << folding << ") is TRUE for '"
                << values[static_cast<size_t>(row)] << "', which lacks the gram '"
                << UnpackGram(gram, n) << "'";
          }
        }
      }
    }
  }
  // The trials narrowed queries and found rows (a generator that never did would prove nothing).
  EXPECT_GT(narrowed, 300);
  EXPECT_GT(matched, 1000);
}

}  // namespace
}  // namespace tessera::index::scalar::ngrams_test
