// The boolean query language of text search: structure of valid queries, and errors naming the
// position and the fix for invalid ones.
#include "tessera/query/text_query_parser.h"

#include <gtest/gtest.h>

#include "support/status_assertions.h"
#include "tessera/status.h"

namespace tessera::query::text_query_parser_test {
namespace {

using Kind = TextClause::Kind;

TEST(TextQueryParser, ParsesEveryClauseKind) {
  ASSERT_OK_AND_ASSIGN(auto clauses,
                       ParseBooleanQuery("cat +dog -\"big bird\"~2 hors* colr~2 (a -b)"));
  ASSERT_EQ(clauses.size(), 6u);
  EXPECT_EQ(clauses[0].kind, Kind::kWord);
  EXPECT_EQ(clauses[0].occur, Occur::kShould);
  EXPECT_EQ(clauses[0].text, "cat");
  EXPECT_EQ(clauses[1].occur, Occur::kMust);
  EXPECT_EQ(clauses[1].text, "dog");
  EXPECT_EQ(clauses[2].kind, Kind::kPhrase);
  EXPECT_EQ(clauses[2].occur, Occur::kMustNot);
  EXPECT_EQ(clauses[2].text, "big bird");
  EXPECT_EQ(clauses[2].slop, 2);
  EXPECT_EQ(clauses[3].kind, Kind::kPrefix);
  EXPECT_EQ(clauses[3].text, "hors");
  EXPECT_EQ(clauses[4].kind, Kind::kFuzzy);
  EXPECT_EQ(clauses[4].fuzziness, 2);
  EXPECT_EQ(clauses[4].text, "colr");
  ASSERT_EQ(clauses[5].kind, Kind::kGroup);
  ASSERT_EQ(clauses[5].children.size(), 2u);
  EXPECT_EQ(clauses[5].children[1].occur, Occur::kMustNot);
  EXPECT_EQ(clauses[5].children[1].text, "b");
}

TEST(TextQueryParser, EmptyAndBlankQueriesHaveNoClauses) {
  ASSERT_OK_AND_ASSIGN(auto empty, ParseBooleanQuery(""));
  EXPECT_TRUE(empty.empty());
  ASSERT_OK_AND_ASSIGN(auto blank, ParseBooleanQuery("  \t "));
  EXPECT_TRUE(blank.empty());
  ASSERT_OK_AND_ASSIGN(auto nested, ParseBooleanQuery("((x))"));
  ASSERT_EQ(nested.size(), 1u);
  EXPECT_EQ(nested[0].children[0].children[0].text, "x");
}

TEST(TextQueryParser, InvalidQueriesNameThePosition) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"a \"open phrase", "byte 2: unterminated quote"},
      {"(a b", "byte 0: unterminated parenthesis"},
      {"a b)", "')' without a matching '('"},
      {"word~", "must be followed by a number"},
      {"word~3", "fuzziness must be from 1 to 2"},
      {"\"a b\"~x", "must be followed by a number"},
      {"+ word", "must be followed by the clause"},
      {"\"a\"b", "separate clauses with a space"},
  };
  for (const Case& test : cases) {
    auto parsed = ParseBooleanQuery(test.text);
    ASSERT_FALSE(parsed.ok()) << test.text;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidArgument) << test.text;
    EXPECT_NE(parsed.status().message().find(test.message), std::string::npos)
        << test.text << ": " << parsed.status().message();
  }
  std::string deep(kMaxTextQueryDepth + 2, '(');
  deep += "x" + std::string(kMaxTextQueryDepth + 2, ')');
  EXPECT_FALSE(ParseBooleanQuery(deep).ok());
}

}  // namespace
}  // namespace tessera::query::text_query_parser_test
