// An NGRAM index through the built `tessera` CLI: the distributed build (build-segment on two
// fragment subsets, merge-segments, commit-segments) answers substring filters exactly as the
// unindexed scan does, explain shows the NGRAM narrowing and the scan of a pattern too short to
// narrow, inspection shows the parameters, and appends reach the index through optimize (a
// delta segment, then a merge).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_ngram_test {
namespace {

namespace fs = std::filesystem;

class CliNgramTest : public CliFixture {
 protected:
  // The ids (CSV) of the rows of `dataset` where `filter` holds, and the explain lines.
  CliResult Select(const std::string& dataset, const std::string& filter) {
    CliResult result = Run(
        {"scan", dataset, "--where", filter, "--columns", "id", "--format", "csv", "--explain"});
    EXPECT_EQ(result.exit_code, 0) << filter << "\n" << result.err;
    for (const auto& line : Lines(result.err)) {
      EXPECT_TRUE(StartsWith(line, "explain: ")) << line;
    }
    return result;
  }
};

// Substring filters over the words of `gen`'s text column: long and short pieces, every shape.
const std::vector<std::string>& Filters() {
  static const std::vector<std::string> filters = {
      "contains(text, 'garden')",
      "contains(text, 'den sp')",
      "starts_With(text, 'forest')",
      "text LIKE '%arde%'",
      "text LIKE 'scr%'",
      "text LIKE '%qu_ry%vec%'",
      "text ILIKE '%GARDEN SPICE%'",
      "text LIKE '%zzz%'",
      "contains(text, 'ga')",
      "NOT contains(text, 'forest')",
      "contains(text, 'query') AND contains(text, 'index')",
      "contains(text, 'music') OR text LIKE '%travel%'"};
  return filters;
}

TEST_F(CliNgramTest, DistributedBuildAnswersLikeTheScan) {
  const std::string ds = Path("ds");
  const std::string plain = Path("plain");
  RunOk({"gen", "--dataset", ds, "--rows", "1000", "--dim", "4", "--fragment-rows", "250", "--seed",
         "5"});
  fs::copy(ds, plain, fs::copy_options::recursive);

  const std::vector<std::string> spec = {"--name", "text_ng", "--column", "text",
                                         "--type", "NGRAM",   "--param",  "n=4"};
  const std::string merged = BuildAndMergeSegments(ds, spec, {"0,2", "3,1"});
  // The segments hold 4-grams: an index of 3-grams cannot take them, neither by its parameters
  // nor by a segment description that claims 3-grams (the files' scheme is checked).
  const std::vector<std::string> three_grams = {"index",   "commit-segments", ds,     "--name",
                                                "text_ng", "--column",        "text", "--type",
                                                "NGRAM",   "--param",         "n=3",  "--segments"};
  RunFails(With(three_grams, {merged}), "DefinitionMismatch");
  std::string claim = ReadWholeFile(merged);
  const std::string params = "\"params\":{";
  const size_t at = claim.find("\"n\":\"4\"", claim.find(params));
  ASSERT_NE(at, std::string::npos) << claim;
  claim.replace(at, 7, "\"n\":\"3\"");
  WriteWholeFile(Path("claim.json"), claim);
  const std::string mismatch = RunFails(With(three_grams, {Path("claim.json")}), "InvalidArgument");
  EXPECT_TRUE(Contains(mismatch, "was built with case_folding=true, n=4")) << mismatch;
  EXPECT_EQ(RunOk(With(With({"index", "commit-segments", ds}, spec), {"--segments", merged})),
            "committed 1 segment to index 'text_ng' (NGRAM on text) in " + ds +
                ": version 2, 1 segment, 1000 rows in 4 fragments indexed\n");

  const auto list = Lines(RunOk({"index", "list", ds, "--format", "csv"}));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1], "text_ng,text,NGRAM,\"case_folding=true, n=4\",1,1000,4,0,0");
  const std::string described = RunOk({"index", "describe", ds, "--name", "text_ng"});
  EXPECT_TRUE(Contains(described, "params:     case_folding=true, n=4")) << described;
  EXPECT_TRUE(Contains(described, "num_grams=")) << described;

  for (const std::string& filter : Filters()) {
    const CliResult indexed = Select(ds, filter);
    const CliResult scanned = Select(plain, filter);
    EXPECT_EQ(indexed.out, scanned.out) << filter;
  }
  EXPECT_GT(Lines(Select(ds, "contains(text, 'garden')").out).size(), 20u);

  // Explain: grams of 4 bytes narrow 'garden'; 'ga' has none, so the fragments are scanned.
  const CliResult narrowed = Select(ds, "contains(text, 'garden')");
  EXPECT_TRUE(Contains(narrowed.err, "explain: fragments [0..3]: NGRAM index 'text_ng' segment "))
      << narrowed.err;
  EXPECT_TRUE(Contains(narrowed.err, "answers 'contains(text, 'garden')'")) << narrowed.err;
  EXPECT_TRUE(Contains(narrowed.err, "candidates, rechecked")) << narrowed.err;
  const CliResult short_pattern = Select(ds, "text LIKE '%ga_den%'");
  EXPECT_TRUE(Contains(short_pattern.err,
                       "explain: fragments [0..3]: scan (index 'text_ng' covers it but cannot "
                       "narrow the filter)"))
      << short_pattern.err;

  // Appends are scanned until optimize indexes them: a delta segment, then one merged segment.
  RunOk({"gen", Path("more.arrow"), "--rows", "300", "--dim", "4", "--seed", "6"});
  RunOk({"append", ds, "--from", Path("more.arrow")});
  RunOk({"append", plain, "--from", Path("more.arrow")});
  const CliResult tail = Select(ds, "contains(text, 'garden')");
  EXPECT_TRUE(Contains(tail.err, "explain: fragment 4: scan")) << tail.err;
  EXPECT_EQ(tail.out, Select(plain, "contains(text, 'garden')").out);
  EXPECT_EQ(RunOk({"index", "optimize", ds, "--merge", "none"}),
            "optimized " + ds +
                ": version 4; built 1 segment, merged 0 segments, removed 0 segments\n"
                "  text_ng: 2 segments, 1300 rows in 5 fragments indexed\n");
  EXPECT_EQ(RunOk({"index", "optimize", ds, "--merge", "1"}),
            "optimized " + ds +
                ": version 5; built 0 segments, merged 2 segments, removed 0 segments\n"
                "  text_ng: 1 segment, 1300 rows in 5 fragments indexed\n");
  for (const std::string& filter : Filters()) {
    EXPECT_EQ(Select(ds, filter).out, Select(plain, filter).out) << filter;
  }
  const CliResult optimized = Select(ds, "text LIKE '%arde%'");
  EXPECT_TRUE(Contains(optimized.err, "explain: fragments [0..4]: NGRAM index 'text_ng'"))
      << optimized.err;
  EXPECT_EQ(RunOk({"count", ds, "--where", "contains(text, 'garden')"}),
            RunOk({"count", plain, "--where", "contains(text, 'garden')"}));
}

TEST_F(CliNgramTest, BadDefinitionsFailBeforeAnyWork) {
  const std::string ds = Path("ds");
  RunOk({"gen", "--dataset", ds, "--rows", "100", "--dim", "4"});
  const std::string type =
      RunFails({"index", "create", ds, "--name", "p", "--column", "price", "--type", "NGRAM"},
               "Unsupported");
  EXPECT_TRUE(Contains(type, "price")) << type;
  EXPECT_TRUE(Contains(type, "string (utf8) and large_string")) << type;
  const std::string range = RunFails({"index", "create", ds, "--name", "t", "--column", "text",
                                      "--type", "NGRAM", "--param", "n=9"},
                                     "InvalidArgument");
  EXPECT_TRUE(Contains(range, "'n' of NGRAM must be an integer in [1, 8], got '9'")) << range;
  const std::string unknown = RunFails({"index", "create", ds, "--name", "t", "--column", "text",
                                        "--type", "ngram", "--param", "rows_per_zone=4"},
                                       "InvalidArgument");
  EXPECT_TRUE(Contains(unknown, "rows_per_zone")) << unknown;
  EXPECT_EQ(Lines(RunOk({"index", "list", ds, "--format", "csv"})).size(), 1u);
}

}  // namespace
}  // namespace tessera::testing::cli_ngram_test
