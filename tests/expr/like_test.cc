// The LIKE family: one matcher for every pattern shape (escapes honoured in prefix, suffix,
// substring and general patterns alike), ILIKE, ESCAPE, NOT, and a column as the pattern.
//
// Filter text below is written as C++ raw strings: R"(s LIKE '\\b')" is the filter text
// s LIKE '\\b', whose string literal is the two characters \b (the lexer reads \\ as one
// backslash), a pattern that matches the single character b.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/filter_test_util.h"
#include "tessera/expr/filter.h"
#include "tessera/expr/like_pattern.h"

namespace tessera::expr::like_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kNull;
using testing::MakeBatch;
using testing::Truth;
using testing::Values;

Truth Eval(std::string_view text, const std::shared_ptr<arrow::RecordBatch>& batch) {
  return testing::EvaluateText(text, batch);
}
using testing::WideSchema;

std::string Normalized(std::string_view text) {
  auto filter = Filter::Parse(text, WideSchema());
  EXPECT_TRUE(filter.ok()) << text << ": " << filter.status().ToString();
  if (!filter.ok()) return "";
  // The normalized form parses back to itself.
  auto again = Filter::Parse((*filter)->ToString(), WideSchema());
  EXPECT_TRUE(again.ok()) << (*filter)->ToString() << ": " << again.status().ToString();
  if (again.ok()) {
    EXPECT_EQ((*again)->ToString(), (*filter)->ToString());
  }
  return (*filter)->ToString();
}

void ExpectError(std::string_view text, int position, std::string_view fragment) {
  auto filter = Filter::Parse(text, WideSchema());
  ASSERT_FALSE(filter.ok()) << text << " parsed as " << (*filter)->ToString();
  EXPECT_EQ(KindOf(filter.status()), ErrorKind::kInvalidArgument) << filter.status().ToString();
  EXPECT_THAT(filter.status().message(), HasSubstr("position " + std::to_string(position) + ":"))
      << text << ": " << filter.status().message();
  EXPECT_THAT(filter.status().message(), HasSubstr(std::string(fragment))) << text;
}

std::shared_ptr<arrow::RecordBatch> Backslashes() {
  return MakeBatch({
      {"s", arrow::utf8(), R"(["back\\slash", "backslash", "%b", "\\b", null])"},
      {"ls", arrow::large_utf8(), R"(["back\\slash", "backslash", "%b", "\\b", null])"},
  });
}

// Issue 11, finding 2: Arrow's match_like looked for the backslash itself in prefix, suffix and
// substring patterns. A backslash escapes the next character in every shape.
TEST(Like, EscapesAreHonouredInEveryPatternShape) {
  for (const std::string column : {"s", "ls"}) {
    SCOPED_TRACE(column);
    auto batch = Backslashes();
    const auto eval = [&](std::string_view rest) {
      return Eval(column + " " + std::string(rest), batch);
    };
    // substring: %back\sl% is %backsl%
    EXPECT_EQ(eval(R"(LIKE '%back\\sl%')"), (Truth{false, true, false, false, kNull}));
    // suffix: %\slash is %slash
    EXPECT_EQ(eval(R"(LIKE '%\\slash')"), (Truth{true, true, false, false, kNull}));
    EXPECT_EQ(eval(R"(LIKE '%\\b')"), (Truth{false, false, true, true, kNull}));
    // prefix: back\sl% is backsl%
    EXPECT_EQ(eval(R"(LIKE 'back\\sl%')"), (Truth{false, true, false, false, kNull}));
    // general (regex) shapes
    EXPECT_EQ(eval(R"(LIKE '_ack\\sl%')"), (Truth{false, true, false, false, kNull}));
    EXPECT_EQ(eval(R"(LIKE '%\\s_ash')"), (Truth{true, true, false, false, kNull}));
    // exact
    EXPECT_EQ(eval(R"(LIKE '\\%b')"), (Truth{false, false, true, false, kNull}));
    EXPECT_EQ(eval(R"(LIKE '%b')"), (Truth{false, false, true, true, kNull}));
    // An escaped backslash is a literal backslash, in every shape.
    EXPECT_EQ(eval(R"(LIKE '\\\\b')"), (Truth{false, false, false, true, kNull}));
    EXPECT_EQ(eval(R"(LIKE '%\\\\%')"), (Truth{true, false, false, true, kNull}));
    EXPECT_EQ(eval(R"(LIKE 'back\\\\s%')"), (Truth{true, false, false, false, kNull}));
    EXPECT_EQ(eval(R"(LIKE '%\\\\slash')"), (Truth{true, false, false, false, kNull}));
    EXPECT_EQ(eval(R"(LIKE '____\\\\%')"), (Truth{true, false, false, false, kNull}));
    EXPECT_EQ(eval(R"(NOT LIKE '%\\b')"), (Truth{true, true, false, false, kNull}));
  }
}

TEST(Like, WildcardsMatchLineBreaksAndWholeValuesOnly) {
  auto batch = MakeBatch({{"s", arrow::utf8(), R"(["a\nb", "a\n", "ab", "xab", "", "a.b"])"}});
  EXPECT_EQ(Eval("s LIKE 'a_b'", batch), (Truth{true, false, false, false, false, true}));
  EXPECT_EQ(Eval("s LIKE 'a%'", batch), (Truth{true, true, true, false, false, true}));
  EXPECT_EQ(Eval("s LIKE '_%_'", batch), (Truth{true, true, true, true, false, true}));
  EXPECT_EQ(Eval("s LIKE 'ab'", batch), (Truth{false, false, true, false, false, false}));
  EXPECT_EQ(Eval("s LIKE ''", batch), (Truth{false, false, false, false, true, false}));
  EXPECT_EQ(Eval("s LIKE '%%'", batch), (Truth{true, true, true, true, true, true}));
  // Regex metacharacters in a pattern are literal.
  EXPECT_EQ(Eval("s LIKE '_._'", batch), (Truth{false, false, false, false, false, true}));
  EXPECT_EQ(Eval("s LIKE '%.%'", batch), (Truth{false, false, false, false, false, true}));
}

TEST(Like, EscapeClause) {
  auto batch = MakeBatch({{"s", arrow::utf8(), R"(["100%", "100x", "a\\b", "a#b", "a_b"])"}});
  EXPECT_EQ(Eval("s LIKE '100#%' ESCAPE '#'", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Eval("s LIKE '%##%' ESCAPE '#'", batch), (Truth{false, false, false, true, false}));
  EXPECT_EQ(Eval("s LIKE 'a#_b' escape '#'", batch), (Truth{false, false, false, false, true}));
  // With another escape character a backslash is an ordinary character.
  EXPECT_EQ(Eval(R"(s LIKE 'a\\b' ESCAPE '#')", batch), (Truth{false, false, true, false, false}));
  // ESCAPE '' means no escape character at all.
  EXPECT_EQ(Eval(R"(s LIKE '%\\' ESCAPE '')", batch), (Truth{false, false, false, false, false}));
  EXPECT_EQ(Eval(R"(s LIKE 'a\\_' ESCAPE '')", batch), (Truth{false, false, true, false, false}));
  // A multi-byte escape character.
  EXPECT_EQ(Eval("s LIKE '100é%' ESCAPE 'é'", batch), (Truth{true, false, false, false, false}));
  EXPECT_EQ(Eval("s NOT LIKE '100#%' ESCAPE '#'", batch), (Truth{false, true, true, true, true}));
  EXPECT_EQ(Eval("s LIKE '1%' ESCAPE NULL", batch), (Truth(5, kNull)));
}

TEST(Like, IlikeFoldsCaseByUnicodeSimpleCaseFolding) {
  auto batch = MakeBatch(
      {{"s", arrow::utf8(), R"(["Straße", "STRASSE", "ÉCOLE", "école", "K", "Apple", null])"}});
  EXPECT_EQ(Eval("s ILIKE 'é%'", batch), (Truth{false, false, true, true, false, false, kNull}));
  EXPECT_EQ(Eval("s ILIKE 'strasse'", batch),
            (Truth{false, true, false, false, false, false, kNull}));
  EXPECT_EQ(Eval("s ILIKE 'STRASSE' OR s ILIKE 'straße'", batch),
            (Truth{true, true, false, false, false, false, kNull}));
  // U+212A KELVIN SIGN folds to k.
  EXPECT_EQ(Eval("s ILIKE 'k'", batch), (Truth{false, false, false, false, true, false, kNull}));
  EXPECT_EQ(Eval("s ILIKE '%PP%'", batch), (Truth{false, false, false, false, false, true, kNull}));
  EXPECT_EQ(Eval("s NOT ILIKE 'a%'", batch), (Truth{true, true, true, true, true, false, kNull}));
  EXPECT_EQ(Eval("s LIKE 'a%'", batch), (Truth{false, false, false, false, false, false, kNull}));
  EXPECT_EQ(Eval("s ILIKE '_pple'", batch),
            (Truth{false, false, false, false, false, true, kNull}));
  auto escaped = MakeBatch({{"s", arrow::utf8(), R"(["A%", "ab", "a%c"])"}});
  EXPECT_EQ(Eval(R"(s ILIKE 'a\\%')", escaped), (Truth{true, false, false}));
  EXPECT_EQ(Eval("s ILIKE 'a!%%' ESCAPE '!'", escaped), (Truth{true, false, true}));
}

TEST(Like, AColumnAsThePatternIsMatchedRowByRow) {
  auto batch = MakeBatch({
      {"s", arrow::utf8(), R"(["apple", "banana", "cherry", null, "x%y", "abc", "Apple", "xzy"])"},
      {"p", arrow::large_utf8(), R"(["a%", "%nan%", "b%", "a%", "x\\%y", null, "a%", "x\\%y"])"},
  });
  EXPECT_EQ(Eval("s LIKE p", batch), (Truth{true, true, false, kNull, true, kNull, false, false}));
  EXPECT_EQ(Eval("s NOT LIKE p", batch),
            (Truth{false, false, true, kNull, false, kNull, true, true}));
  EXPECT_EQ(Eval("s ILIKE p", batch), (Truth{true, true, false, kNull, true, kNull, true, false}));
  EXPECT_EQ(Eval("s LIKE p ESCAPE ''", batch),
            (Truth{true, true, false, kNull, false, kNull, false, false}));
  EXPECT_EQ(Eval("s LIKE s", batch), (Truth{true, true, true, kNull, true, true, true, true}));

  auto filter = Filter::Parse("s LIKE p", batch->schema());
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  EXPECT_THAT((*filter)->referenced_columns(), ElementsAre("s", "p"));

  // A row's pattern ending in a lone escape is an error naming the column and the row.
  auto bad = MakeBatch({
      {"s", arrow::utf8(), R"(["a", "b"])"},
      {"p", arrow::utf8(), R"(["a", "b\\"])"},
  });
  auto parsed = Filter::Parse("s LIKE p", bad->schema());
  ASSERT_TRUE(parsed.ok());
  auto result = (*parsed)->Evaluate(*bad);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("column 'p' (row 1 of the batch)"));
  EXPECT_THAT(result.status().message(), HasSubstr("ends with its escape character"));
}

// A pattern column matches each row exactly as the same pattern written as a literal does, for
// every shape, with and without ILIKE.
TEST(Like, AColumnPatternMatchesAsTheSameLiteralPattern) {
  const std::string values =
      R"(["back\\slash", "backslash", "%b", "\\b", "Back", "", "a\nb", null])";
  // Raw strings: R"(%\b)" is the pattern %\b (escaped b), R"(%\\b)" the pattern %\\b (a
  // literal backslash, then b).
  const std::vector<std::string> patterns = {
      R"(%back\sl%)", R"(%\slash)", R"(%\b)",  R"(back\sl%)", R"(\%b)", R"(%back\\sl%)",
      R"(%\\slash)",  R"(%\\b)",    R"(\\%b)", "%",           "",       "_ack%",
      R"(%\\%)",      "a_b",        "b%",      R"(BACK\\)",   "%B%",    R"(_\a\c%)"};
  for (const std::string& pattern : patterns) {
    for (const std::string op : {"LIKE", "ILIKE"}) {
      SCOPED_TRACE(op + " " + pattern);
      // The pattern as JSON (backslashes doubled), and as a filter literal (the same, since
      // the lexer reads \\ as one backslash).
      std::string json = "\"";
      for (char c : pattern) json += c == '\\' ? std::string("\\\\") : std::string(1, c);
      json += "\"";
      std::string column = "[";
      for (int i = 0; i < 8; ++i) column += (i ? ", " : "") + json;
      column += "]";
      auto batch = MakeBatch({{"s", arrow::utf8(), values}, {"p", arrow::utf8(), column}});
      EXPECT_EQ(Eval("s " + op + " p", batch),
                Eval("s " + op + " '" + json.substr(1, json.size() - 2) + "'", batch));
    }
  }
}

TEST(Like, NormalizedForms) {
  EXPECT_EQ(Normalized("category ilike 'a%'"), "(category ILIKE 'a%')");
  EXPECT_EQ(Normalized("category NOT ILIKE 'a%'"), "(category NOT ILIKE 'a%')");
  EXPECT_EQ(Normalized("NOT category ILIKE 'a%'"), "(category NOT ILIKE 'a%')");
  EXPECT_EQ(Normalized("category LIKE 'a#%' ESCAPE '#'"), "(category LIKE 'a#%' ESCAPE '#')");
  EXPECT_EQ(Normalized(R"(category LIKE 'a\\' ESCAPE '')"), R"((category LIKE 'a\\' ESCAPE ''))");
  EXPECT_EQ(Normalized(R"(category LIKE 'a\\%' ESCAPE '\\')"), R"((category LIKE 'a\\%'))");
  EXPECT_EQ(Normalized("category LIKE big_text"), "(category LIKE big_text)");
  EXPECT_EQ(Normalized("category NOT ILIKE big_text ESCAPE '!'"),
            "(category NOT ILIKE big_text ESCAPE '!')");
  EXPECT_EQ(Normalized("category LIKE NULL"), "NULL");
  // ESCAPE and ILIKE are not reserved: they remain usable as column names.
  auto schema =
      arrow::schema({arrow::field("escape", arrow::utf8()), arrow::field("ilike", arrow::utf8())});
  auto filter = Filter::Parse("escape ILIKE ilike ESCAPE '!' AND ilike LIKE escape", schema);
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  EXPECT_EQ((*filter)->ToString(), "((escape ILIKE ilike ESCAPE '!') AND (ilike LIKE escape))");
}

TEST(Like, BadPatternsAndEscapesAreErrorsOfTheFilter) {
  ExpectError(R"(category LIKE 'abc\\')", 15, "ends with its escape character '\\'");
  ExpectError("category LIKE 'abc#' ESCAPE '#'", 15, "ends with its escape character '#'");
  ExpectError("category LIKE 'a' ESCAPE 'ab'", 26, "ESCAPE takes a single character");
  ExpectError("category LIKE 'a' ESCAPE 5", 26, "ESCAPE takes a string literal");
  ExpectError("category LIKE 'a' ESCAPE big_text", 26, "ESCAPE takes a string literal");
  ExpectError("category LIKE price", 15, "the LIKE pattern must be a string");
  ExpectError("category ILIKE 5", 16, "the ILIKE pattern for column 'category'");
  ExpectError("price ILIKE 'a'", 1, "ILIKE applies to string columns");
  ExpectError("category LIKE 'a' ESCAPE", 25, "expected a column, a literal or an expression");
}

// The translation picks plain kernels for plain shapes and an anchored regex otherwise.
TEST(Like, TranslationOfEachShape) {
  using Kernel = LikeMatcher::Kernel;
  const auto translate = [](std::string_view pattern, std::string_view escape = "\\",
                            bool fold = false) {
    auto matcher = TranslateLike(pattern, escape, fold);
    EXPECT_TRUE(matcher.ok());
    return matcher.ok() ? *matcher : LikeMatcher{};
  };
  EXPECT_EQ(translate("ab").kernel, Kernel::kEqual);
  EXPECT_EQ(translate(R"(a\%)").text, "a%");
  EXPECT_EQ(translate(R"(back\sl%)").kernel, Kernel::kStartsWith);
  EXPECT_EQ(translate(R"(back\sl%)").text, "backsl");
  EXPECT_EQ(translate(R"(%\b)").kernel, Kernel::kEndsWith);
  EXPECT_EQ(translate(R"(%\b)").text, "b");
  EXPECT_EQ(translate(R"(%%\\%%)").kernel, Kernel::kContains);
  EXPECT_EQ(translate(R"(%%\\%%)").text, "\\");
  EXPECT_EQ(translate("%").kernel, Kernel::kContains);
  EXPECT_EQ(translate("a_%").text, R"((?s)\Aa..*\z)");
  EXPECT_EQ(translate("a.b", "\\", true).text, R"((?is)\Aa\.b\z)");
  EXPECT_EQ(translate(std::string("_\0", 2)).text, R"((?s)\A.\x00\z)");
  EXPECT_EQ(translate(R"(a\b)", "").text, R"(a\b)");
  EXPECT_TRUE(CheckLikePattern(R"(a\\)", "\\").ok());
  EXPECT_FALSE(CheckLikePattern(R"(a\\\)", "\\").ok());
  EXPECT_TRUE(CheckLikePattern(R"(a\)", "").ok());
}

// The literal runs between wildcards, escapes resolved: what an n-gram index narrows with.
TEST(Like, LiteralRunsBetweenWildcards) {
  using Runs = std::vector<std::string>;
  EXPECT_EQ(LikeLiteralRuns("%abc%", "\\"), Runs({"abc"}));
  EXPECT_EQ(LikeLiteralRuns("ab_cd%e", "\\"), Runs({"ab", "cd", "e"}));
  EXPECT_EQ(LikeLiteralRuns(R"(a\%b\_c\\)", "\\"), Runs({R"(a%b_c\)"}));
  EXPECT_EQ(LikeLiteralRuns("a!%b%", "!"), Runs({"a%b"}));
  EXPECT_EQ(LikeLiteralRuns(R"(a\%)", ""), Runs({R"(a\)"}));
  EXPECT_EQ(LikeLiteralRuns("%_%__", "\\"), Runs({}));
  EXPECT_EQ(LikeLiteralRuns("", "\\"), Runs({}));
  EXPECT_EQ(LikeLiteralRuns("\xc3\xa9t\xc3\xa9_x", "\\"), Runs({"\xc3\xa9t\xc3\xa9", "x"}));
}

}  // namespace
}  // namespace tessera::expr::like_test
