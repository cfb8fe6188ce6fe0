// `tessera search --text` and `--hybrid` through the built CLI: the same rows and scores before
// and after an INVERTED index exists, every query type, highlights, filters, hybrid fusion, and
// an InvalidArgument error naming the option for each option given to a mode it does not apply
// to (docs/cli.md, "search").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_text_search_test {
namespace {

constexpr const char* kQuery = "[0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]";

class CliTextSearchTest : public CliFixture {
 protected:
  void SetUp() override {
    dataset_ = Path("ds");
    RunOk({"gen", "--dataset", dataset_, "--rows", "600", "--dim", "8", "--fragment-rows", "200",
           "--seed", "7"});
  }

  void CreateIndex() {
    RunOk({"index", "create", dataset_, "--name", "text_fts", "--column", "text", "--type",
           "INVERTED", "--param", "with_position=true"});
  }

  // `search DATASET --column text` + `more`, the rows as CSV lines (header first).
  std::vector<std::string> Search(const std::vector<std::string>& more) {
    return Lines(RunOk(With({"search", dataset_, "--format", "csv"}, more)));
  }

  std::string dataset_;
};

// "a,b,c" → its fields (no quoting in what these tests read).
std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t begin = 0;
  for (size_t comma = line.find(','); comma != std::string::npos; comma = line.find(',', begin)) {
    fields.push_back(line.substr(begin, comma - begin));
    begin = comma + 1;
  }
  fields.push_back(line.substr(begin));
  return fields;
}

TEST_F(CliTextSearchTest, AnIndexChangesThePlanButNotTheRowsOrScores) {
  const std::vector<std::string> query = {"--column", "text",      "--text", "garden music", "--k",
                                          "10",       "--columns", "id",     "--explain"};
  const CliResult unindexed = Run(With({"search", dataset_, "--format", "csv"}, query));
  ASSERT_EQ(unindexed.exit_code, 0) << unindexed.err;
  EXPECT_TRUE(Contains(unindexed.err, "unindexed")) << unindexed.err;
  const auto lines = Lines(unindexed.out);
  ASSERT_EQ(lines.size(), 11u) << unindexed.out;
  EXPECT_EQ(lines[0], "id,_score");

  CreateIndex();
  const CliResult indexed = Run(With({"search", dataset_, "--format", "csv"}, query));
  ASSERT_EQ(indexed.exit_code, 0) << indexed.err;
  EXPECT_TRUE(Contains(indexed.err, "INVERTED index 'text_fts'")) << indexed.err;
  EXPECT_EQ(indexed.out, unindexed.out);
  // Every posting scored: the same rows.
  EXPECT_EQ(Search({"--column", "text", "--text", "garden music", "--k", "10", "--columns", "id",
                    "--exhaustive"}),
            lines);
}

TEST_F(CliTextSearchTest, EveryQueryTypeRunsAndTheOperatorAndFiltersHold) {
  CreateIndex();
  // and: every row holds both words.
  for (const auto& line : Search({"--column", "text", "--text", "garden music", "--operator", "and",
                                  "--k", "20", "--columns", "text"})) {
    if (line == "text,_score") continue;
    EXPECT_TRUE(Contains(line, "garden") && Contains(line, "music")) << line;
  }
  // boolean: garden required, music excluded.
  const auto boolean = Search({"--column", "text", "--text", "+garden -music", "--query-type",
                               "boolean", "--k", "20", "--columns", "text"});
  EXPECT_GT(boolean.size(), 1u);
  for (size_t i = 1; i < boolean.size(); ++i) {
    EXPECT_TRUE(Contains(boolean[i], "garden") && !Contains(boolean[i], "music")) << boolean[i];
  }
  // phrase with slop, prefix, fuzzy: rows come back.
  EXPECT_GT(Search({"--column", "text", "--text", "garden music", "--query-type", "phrase",
                    "--slop", "2", "--k", "5"})
                .size(),
            1u);
  const auto prefix = Search({"--column", "text", "--text", "gard", "--query-type", "prefix",
                              "--max-expansions", "5", "--k", "5", "--columns", "text"});
  ASSERT_GT(prefix.size(), 1u);
  EXPECT_TRUE(Contains(prefix[1], "garden")) << prefix[1];
  const auto fuzzy = Search({"--column", "text", "--text", "gardan", "--query-type", "fuzzy",
                             "--fuzziness", "1", "--k", "5", "--columns", "text"});
  ASSERT_GT(fuzzy.size(), 1u);
  EXPECT_TRUE(Contains(fuzzy[1], "garden")) << fuzzy[1];
  // multi_match over two columns, one boosted; several --column imply it.
  const std::vector<std::string> multi = {"--column", "text", "--column", "category^2", "--text",
                                          "books",    "--k",  "5",        "--columns",  "category"};
  const auto implied = Search(multi);
  ASSERT_EQ(implied.size(), 6u);
  EXPECT_EQ(implied[1].substr(0, 6), "books,") << implied[1];
  EXPECT_EQ(Search(With(multi, {"--query-type", "multi_match"})), implied);
  // BM25 parameters are the caller's.
  EXPECT_NE(Search({"--column", "text", "--text", "garden", "--k", "3", "--b", "0"}),
            Search({"--column", "text", "--text", "garden", "--k", "3"}));
  // A prefilter returns k rows that pass.
  const auto filtered = Search({"--column", "text", "--text", "garden", "--k", "7", "--where",
                                "category = 'books'", "--prefilter", "--columns", "category"});
  ASSERT_EQ(filtered.size(), 8u);
  for (size_t i = 1; i < filtered.size(); ++i) {
    EXPECT_EQ(Fields(filtered[i])[0], "books") << filtered[i];
  }
}

TEST_F(CliTextSearchTest, HighlightsMarkTheTermsInABoundedPassage) {
  const auto lines = Search({"--column", "text", "--text", "garden", "--k", "5", "--columns", "id",
                             "--highlight", "--highlight-length", "30", "--highlight-tags", "[,]"});
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], "id,_score,_highlight");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string highlight = Fields(lines[i]).back();
    EXPECT_TRUE(Contains(highlight, "[garden]")) << highlight;
    std::string plain;
    for (char c : highlight) {
      if (c != '[' && c != ']') plain += c;
    }
    const std::string ellipsis = "\xE2\x80\xA6";
    for (size_t at = plain.find(ellipsis); at != std::string::npos; at = plain.find(ellipsis)) {
      plain.erase(at, ellipsis.size());
    }
    EXPECT_LE(plain.size(), 30u) << highlight;
  }
}

TEST_F(CliTextSearchTest, HybridSearchFusesTheTwoLists) {
  CreateIndex();
  const auto rrf =
      Search({"--hybrid", "--column", "text", "--text", "garden", "--vector", kQuery,
              "--vector-column", "vector", "--k", "5", "--columns", "id", "--with-row-address"});
  ASSERT_EQ(rrf.size(), 6u);
  EXPECT_EQ(rrf[0], "id,_score,_rowaddr");
  // No fused score exceeds being first in both lists: 2 / (60 + 1).
  for (size_t i = 1; i < rrf.size(); ++i) {
    EXPECT_LE(std::stod(Fields(rrf[i])[1]), 2.0 / 61 + 1e-7) << rrf[i];
  }
  // The RRF constant is the caller's: with k = 1, the first row's score is at least 1/2.
  const auto small = Search({"--hybrid", "--column", "text", "--text", "garden", "--vector", kQuery,
                             "--vector-column", "vector", "--k", "5", "--rrf-k", "1"});
  ASSERT_EQ(small.size(), 6u);
  EXPECT_GE(std::stod(Fields(small[1]).back()), 0.5) << small[1];
  // Weighted with all the weight on the text: the text search's order.
  const auto text_only =
      Search({"--column", "text", "--text", "garden", "--k", "5", "--columns", "id"});
  const auto weighted = Search({"--hybrid", "--column", "text", "--text", "garden", "--vector",
                                kQuery, "--vector-column", "vector", "--k", "5", "--columns", "id",
                                "--fusion", "weighted", "--text-weight", "1"});
  ASSERT_EQ(weighted.size(), text_only.size());
  for (size_t i = 1; i < weighted.size(); ++i) {
    EXPECT_EQ(Fields(weighted[i])[0], Fields(text_only[i])[0]) << i;
  }
  // The filter applies to both lists.
  const auto filtered = Search({"--hybrid", "--column", "text", "--text", "garden", "--vector",
                                kQuery, "--vector-column", "vector", "--k", "6", "--columns",
                                "category", "--where", "category = 'toys'", "--prefilter"});
  ASSERT_EQ(filtered.size(), 7u);
  for (size_t i = 1; i < filtered.size(); ++i) {
    EXPECT_EQ(Fields(filtered[i])[0], "toys") << filtered[i];
  }
  const CliResult explained =
      Run({"search", dataset_, "--hybrid", "--column", "text", "--text", "garden", "--vector",
           kQuery, "--vector-column", "vector", "--k", "2", "--explain"});
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_TRUE(Contains(explained.err, "explain: hybrid search:")) << explained.err;
  EXPECT_TRUE(Contains(explained.err, "explain: text: ")) << explained.err;
  EXPECT_TRUE(Contains(explained.err, "explain: vector: ")) << explained.err;
}

TEST_F(CliTextSearchTest, TextAndVectorOptionsOutsideTheirModeAreInvalidArgumentNamingThem) {
  const std::vector<std::string> text = {"search", dataset_, "--column", "text",
                                         "--text", "garden", "--k",      "3"};
  const std::vector<std::string> vector = {"search",   dataset_, "--column", "vector",
                                           "--vector", kQuery,   "--k",      "3"};
  const auto fails = [&](const std::vector<std::string>& args, const std::string& part) {
    const std::string err = RunFails(args, "InvalidArgument");
    EXPECT_TRUE(Contains(err, part)) << CommandLine(args) << "\n" << err;
  };
  fails(With(text, {"--slop", "2"}), "--slop");
  fails(With(text, {"--query-type", "prefix", "--fuzziness", "2"}), "--fuzziness");
  fails(With(text, {"--query-type", "phrase", "--max-expansions", "3"}), "--max-expansions");
  fails(With(text, {"--query-type", "phrase", "--operator", "and"}), "--operator");
  fails(With(text, {"--operator", "and", "--minimum-should-match", "2"}), "--minimum-should-match");
  fails(With(text, {"--highlight-length", "20"}), "--highlight-length");
  fails(With(text, {"--highlight", "--highlight-tags", "<b>"}), "--highlight-tags");
  fails(With(text, {"--column", "category", "--query-type", "match"}), "multi_match");
  fails(With(text, {"--column", "category^x"}), "category^x");
  fails(With(text, {"--nprobes", "3"}), "--nprobes");
  fails(With(text, {"--queries", Path("q.arrow")}), "--queries");
  fails(With(text, {"--vector", kQuery}), "--hybrid");
  fails(With(text, {"--rrf-k", "10"}), "--rrf-k");
  fails(With(text, {"--vector-column", "vector"}), "--vector-column");
  fails(With(text, {"--prefilter"}), "--where");
  fails(With(text, {"--b", "2"}), "b must be in [0, 1]");
  fails(With(vector, {"--query-type", "phrase"}), "--query-type");
  fails(With(vector, {"--highlight"}), "--text");
  fails(With(vector, {"--fusion", "weighted"}), "--fusion");
}

TEST_F(CliTextSearchTest, HybridOptionsOutsideTheirModeAreInvalidArgumentNamingThem) {
  const std::vector<std::string> text = {"search", dataset_, "--column", "text",
                                         "--text", "garden", "--k",      "3"};
  const std::vector<std::string> hybrid =
      With(text, {"--hybrid", "--vector", kQuery, "--vector-column", "vector"});
  const auto fails = [&](const std::vector<std::string>& args, const std::string& part) {
    const std::string err = RunFails(args, "InvalidArgument");
    EXPECT_TRUE(Contains(err, part)) << CommandLine(args) << "\n" << err;
  };
  fails({"search", dataset_, "--column", "text", "--hybrid", "--vector", kQuery, "--vector-column",
         "vector", "--k", "3"},
        "--text");
  fails(With(text, {"--hybrid", "--vector-column", "vector"}), "--vector");
  fails(With(text, {"--hybrid", "--vector", kQuery}), "--vector-column");
  fails(With(hybrid, {"--text-weight", "0.5"}), "--text-weight");
  fails(With(hybrid, {"--fusion", "weighted", "--rrf-k", "3"}), "--rrf-k");
  fails(With(hybrid, {"--fusion", "weighted", "--text-weight", "1.5"}), "text_weight");
  fails(With(hybrid, {"--rrf-k", "0"}), "rrf_k");
  fails(With(hybrid, {"--highlight"}), "--highlight");
  fails(With(hybrid, {"--offset", "2"}), "--offset");
  fails(With(text, {"--hybrid", "--vector", kQuery, "--vector-column", "text"}),
        "not a vector column");
  // A value the option does not take is a usage error.
  RunFails(With(text, {"--query-type", "regex"}), "InvalidArgument", 2);
  RunFails(With(text, {"--fuzziness", "3"}), "InvalidArgument", 2);
  RunFails(With(hybrid, {"--fusion", "max"}), "InvalidArgument", 2);
}

TEST_F(CliTextSearchTest, QueriesOfOnlyStopWordsOrNothingReturnNoRows) {
  EXPECT_LE(Search({"--column", "text", "--text", "the of and", "--k", "3"}).size(), 1u);
  EXPECT_LE(Search({"--column", "text", "--text", "", "--k", "3"}).size(), 1u);
}

}  // namespace
}  // namespace tessera::testing::cli_text_search_test
