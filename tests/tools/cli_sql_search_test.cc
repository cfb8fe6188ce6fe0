// vector_search through `tessera sql` against `tessera search` with the same knobs (docs/sql.md,
// "Search"): the same rows, in the same order, with the same distances printed the same way,
// through an IVF_PQ index (approximate: any difference in the knobs' handling shows) and without
// one, with filters before and after the search, bounds and an offset.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli_fixture.h"

namespace tessera::testing::cli_sql_search_test {
namespace {

constexpr const char* kQuery = "[0.3, -0.1, 0.2, 0.5, -0.4, 0.1, 0.0, 0.25]";

class CliSqlSearchTest : public CliFixture {
 protected:
  void SetUp() override {
    catalog_ = Path("catalog");
    dataset_ = catalog_ + "/db/emb";
    RunOk({"gen", "--dataset", dataset_, "--rows", "3000", "--dim", "8", "--fragment-rows", "1000",
           "--seed", "11"});
  }

  // `tessera search` as CSV lines of id,_distance.
  std::vector<std::string> Search(const std::vector<std::string>& knobs) {
    return Lines(RunOk(With({"search", dataset_, "--column", "vector", "--vector", kQuery,
                             "--columns", "id", "--format", "csv"},
                            knobs)));
  }

  // The same through vector_search: `arguments` after table, column and query.
  std::vector<std::string> Sql(const std::string& arguments) {
    const std::string statement =
        std::string(
            "SELECT id, _distance FROM vector_search(table => 'db.emb', column => "
            "'vector', query => ") +
        kQuery + ", " + arguments + ")";
    return Lines(RunOk({"sql", "--catalog", catalog_, "--format", "csv", "-e", statement}));
  }

  std::string catalog_;
  std::string dataset_;
};

TEST_F(CliSqlSearchTest, VectorSearchReturnsTheRowsAndDistancesOfTheSearchCommand) {
  RunOk({"index", "create", dataset_, "--name", "v_pq", "--column", "vector", "--type", "IVF_PQ",
         "--param", "num_partitions=8", "--param", "num_sub_vectors=4"});
  struct Case {
    std::vector<std::string> cli;
    std::string sql;
  };
  const std::vector<Case> cases = {
      {{"--k", "10"}, "k => 10"},
      {{"--k", "15", "--nprobes", "2"}, "k => 15, nprobes => 2"},
      {{"--k", "12", "--nprobes", "3", "--refine-factor", "4"},
       "k => 12, nprobes => 3, refine_factor => 4"},
      {{"--k", "10", "--where", "price > 40", "--prefilter"},
       "k => 10, filter => 'price > 40', prefilter => true"},
      {{"--k", "10", "--where", "price > 40"},
       "k => 10, filter => 'price > 40', prefilter => false"},
      {{"--k", "8", "--offset", "3", "--nprobes", "8"}, "k => 8, offset => 3, nprobes => 8"},
      {{"--k", "20", "--lower-distance", "0.5", "--upper-distance", "2.5"},
       "k => 20, lower_bound => 0.5, upper_bound => 2.5"},
      {{"--k", "10", "--metric", "dot"}, "k => 10, metric => 'dot', use_index => false"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.sql);
    const auto expected = Search(c.cli);
    ASSERT_GT(expected.size(), 2u);
    EXPECT_EQ(Sql(c.sql), expected);
  }
}

}  // namespace
}  // namespace tessera::testing::cli_sql_search_test
