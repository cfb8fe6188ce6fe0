// What the .test files cannot say: vector_search through SQL equals query::Nearest with the
// same knobs, the limits on statement size and nesting, the SQL dialect of the lexer, and
// that WHERE reaches the index planner.
#include <gtest/gtest.h>

#include <string>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/expr/lexer.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/nearest.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/mutation.h"
#include "tessera/sql/parser.h"
#include "tessera/sql/session.h"
#include "tessera/synthetic/embedding_generator.h"
#include "tessera/util/memory_limit.h"
#include "tessera/util/operation_control.h"

namespace tessera::sql::sql_session_test {

namespace {

class SqlSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(directory_.path() / "db");
    synthetic::EmbeddingOptions options;
    options.rows = 3000;
    options.dim = 16;
    options.batch_rows = 1000;
    auto reader = synthetic::MakeEmbeddingReader(options).ValueOrDie();
    auto dataset =
        dataset::Dataset::Create((directory_.path() / "db" / "emb").string(), reader).ValueOrDie();
    index::IndexSpec spec{
        "vec_pq", "vector", "IVF_PQ", {{"num_partitions", "16"}, {"num_sub_vectors", "4"}}};
    dataset = index::CreateIndex(*dataset, spec).ValueOrDie();
    index::IndexSpec btree{"price_idx", "price", "BTREE", {}};
    dataset_ = index::CreateIndex(*dataset, btree).ValueOrDie();
    queries_ = synthetic::MakeQueryVectorsFlat(options, 5).ValueOrDie();
  }

  Session MakeSession() { return Session(Catalog::Open(directory_.path().string()).ValueOrDie()); }

  static std::string VectorLiteral(const float* values, int dim) {
    std::string text = "[";
    for (int i = 0; i < dim; ++i) {
      char number[32];
      std::snprintf(number, sizeof(number), "%.9g", values[i]);
      text += (i > 0 ? ", " : "") + std::string(number);
    }
    return text + "]";
  }

  testing::TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> dataset_;
  std::vector<float> queries_;
};

TEST_F(SqlSessionTest, VectorSearchEqualsNearestWithTheSameKnobs) {
  Session session = MakeSession();
  struct Knobs {
    int64_t k;
    int nprobes;
    int refine_factor;
    std::string filter;
    bool prefilter;
    bool use_index;
  };
  const std::vector<Knobs> knobs = {{10, 4, 1, "", false, true},
                                    {7, 16, 3, "price > 20", true, true},
                                    {25, 2, 1, "category = 'books'", false, true},
                                    {5, 1, 1, "", false, false}};
  for (int q = 0; q < 5; ++q) {
    const float* query = &queries_[q * 16];
    for (const auto& knob : knobs) {
      query::NearestOptions options;
      options.column = "vector";
      options.query.assign(query, query + 16);
      options.k = knob.k;
      options.nprobes = knob.nprobes;
      options.refine_factor = knob.refine_factor;
      options.filter = knob.filter;
      options.prefilter = knob.prefilter;
      options.use_index = knob.use_index;
      options.columns = {"id"};
      ASSERT_OK_AND_ASSIGN(auto expected, query::Nearest(*dataset_, options));
      std::string sql =
          "SELECT id, _distance FROM vector_search(table => 'db.emb', column => "
          "'vector', query => " +
          VectorLiteral(query, 16) + ", k => " + std::to_string(knob.k) + ", nprobes => " +
          std::to_string(knob.nprobes) + ", refine_factor => " +
          std::to_string(knob.refine_factor) + ", use_index => " +
          (knob.use_index ? "true" : "false") + ", prefilter => " +
          (knob.prefilter ? "true" : "false");
      if (!knob.filter.empty()) {
        std::string quoted;
        for (char c : knob.filter) quoted += c == '\'' ? std::string("''") : std::string(1, c);
        sql += ", filter => '" + quoted + "'";
      }
      sql += ")";
      ASSERT_OK_AND_ASSIGN(auto result, session.ExecuteAll(sql));
      ASSERT_NE(result.rows, nullptr);
      auto got = result.rows->CombineChunksToBatch().ValueOrDie();
      auto want = expected->CombineChunksToBatch().ValueOrDie();
      ASSERT_EQ(got->num_rows(), want->num_rows()) << sql;
      EXPECT_TRUE(got->column(0)->Equals(*want->GetColumnByName("id"))) << sql;
      EXPECT_TRUE(got->column(1)->Equals(*want->GetColumnByName("_distance"))) << sql;
    }
  }
}

TEST_F(SqlSessionTest, WhereReachesTheIndexPlanner) {
  Session session = MakeSession();
  ASSERT_OK_AND_ASSIGN(auto result,
                       session.ExecuteAll("EXPLAIN SELECT id FROM db.emb WHERE price < 3 AND "
                                          "id >= 0"));
  std::string text;
  auto lines = result.rows->CombineChunksToBatch().ValueOrDie()->column(0);
  for (int64_t i = 0; i < lines->length(); ++i)
    text += lines->GetScalar(i).ValueOrDie()->ToString() + "\n";
  EXPECT_NE(text.find("BTREE index 'price_idx'"), std::string::npos) << text;
  EXPECT_NE(text.find("where ((price < 3) AND (id >= 0))"), std::string::npos) << text;
  // And the answer is the unindexed one.
  ASSERT_OK_AND_ASSIGN(auto count,
                       session.ExecuteAll("SELECT count(*) FROM db.emb WHERE price < 3"));
  ASSERT_OK_AND_ASSIGN(auto expected, dataset_->CountRows("price < 3"));
  EXPECT_EQ(count.rows->column(0)->GetScalar(0).ValueOrDie()->ToString(), std::to_string(expected));
}

// Columns leave a schema only by an overwrite, which removes every index with them
// (docs/indexes.md): SHOW INDEX is then empty and DROP INDEX takes the IF EXISTS path.
TEST_F(SqlSessionTest, AnOverwriteThatDropsTheIndexedColumnLeavesNoIndexToDrop) {
  auto all = dataset_->ScanToTable({}).ValueOrDie();
  auto without_price = all->RemoveColumn(all->schema()->GetFieldIndex("price")).ValueOrDie();
  ASSERT_OK_AND_ASSIGN(
      auto overwritten,
      dataset_->Overwrite(std::make_shared<arrow::TableBatchReader>(without_price)));
  ASSERT_EQ(overwritten->schema()->GetFieldIndex("price"), -1);
  Session session = MakeSession();
  ASSERT_OK_AND_ASSIGN(auto shown, session.ExecuteAll("SHOW INDEX FROM db.emb"));
  EXPECT_EQ(shown.rows->num_rows(), 0);
  auto dropped = session.ExecuteAll("DROP INDEX price_idx ON db.emb");
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(CodeOf(dropped.status()), SqlCode::kCantDropKey);
  ASSERT_OK(session.ExecuteAll("DROP INDEX IF EXISTS price_idx ON db.emb").status());
  // The indexed column is gone for a new index too.
  auto created = session.ExecuteAll("CREATE INDEX p ON db.emb (price) USING BTREE");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(CodeOf(created.status()), SqlCode::kKeyColumnMissing);
}

// A column is renamed the same way (an overwrite with the new name): the index on the old name
// goes with it, and a new index takes the new name.
TEST_F(SqlSessionTest, AnOverwriteThatRenamesTheIndexedColumnLeavesNoIndexToDrop) {
  auto all = dataset_->ScanToTable({}).ValueOrDie();
  const int price = all->schema()->GetFieldIndex("price");
  auto renamed =
      all->SetColumn(price, all->schema()->field(price)->WithName("cost"), all->column(price))
          .ValueOrDie();
  ASSERT_OK(dataset_->Overwrite(std::make_shared<arrow::TableBatchReader>(renamed)).status());
  Session session = MakeSession();
  ASSERT_OK_AND_ASSIGN(auto shown, session.ExecuteAll("SHOW INDEX FROM db.emb"));
  EXPECT_EQ(shown.rows->num_rows(), 0);
  auto dropped = session.ExecuteAll("DROP INDEX Price_Idx ON db.emb");
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(CodeOf(dropped.status()), SqlCode::kCantDropKey);
  ASSERT_OK(session.ExecuteAll("DROP INDEX IF EXISTS price_idx ON db.emb").status());
  ASSERT_OK(session.ExecuteAll("CREATE INDEX price_idx ON db.emb (COST) USING BTREE").status());
  ASSERT_OK_AND_ASSIGN(auto again, session.ExecuteAll("SHOW INDEX FROM db.emb"));
  ASSERT_EQ(again.rows->num_rows(), 1);
  EXPECT_EQ(again.rows->GetColumnByName("Column_name")->GetScalar(0).ValueOrDie()->ToString(),
            "cost");
}

// SHOW VERSIONS: one row per version, oldest first, with what each commit did and the rows
// and fragments it left; CreatedAt never decreases and Error is NULL for readable manifests.
TEST_F(SqlSessionTest, ShowVersionsListsEveryCommit) {
  Session session = MakeSession();
  ASSERT_OK(session.ExecuteAll("DELETE FROM db.emb WHERE id < 10").status());
  ASSERT_OK_AND_ASSIGN(auto shown, session.ExecuteAll("SHOW VERSIONS FROM db.emb"));
  auto rows = shown.rows->CombineChunksToBatch().ValueOrDie();
  ASSERT_EQ(rows->schema()->ToString(),
            arrow::schema(
                {arrow::field("Version", arrow::uint64()),
                 arrow::field("CreatedAt", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                 arrow::field("Operation", arrow::utf8()), arrow::field("Rows", arrow::uint64()),
                 arrow::field("Fragments", arrow::uint64()), arrow::field("Error", arrow::utf8())})
                ->ToString());
  // create, two index builds (SetUp), the delete.
  ASSERT_EQ(rows->num_rows(), 4);
  const auto cell = [&](const char* column, int64_t row) {
    return rows->GetColumnByName(column)->GetScalar(row).ValueOrDie()->ToString();
  };
  EXPECT_EQ(cell("Operation", 0), "create");
  EXPECT_EQ(cell("Operation", 3), "delete");
  for (int64_t row = 0; row < 4; ++row) {
    EXPECT_EQ(cell("Version", row), std::to_string(row + 1));
    EXPECT_EQ(cell("Rows", row), row < 3 ? "3000" : "2990");
    EXPECT_EQ(cell("Fragments", row), "1");
    EXPECT_TRUE(rows->GetColumnByName("Error")->IsNull(row));
    if (row > 0) {
      EXPECT_LE(cell("CreatedAt", row - 1), cell("CreatedAt", row));
    }
  }
}

TEST(SqlLimits, AStatementOverTheSizeLimitIsRejected) {
  std::string huge = "SELECT 1 AS x WHERE 'x' = '" + std::string(10 << 20, 'a') + "'";
  auto parsed = ParseScript(huge);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(CodeOf(parsed.status()), SqlCode::kTooComplex);
}

TEST(SqlLimits, DeepNestingIsAnErrorNotACrash) {
  const int depth = 100000;
  std::string parentheses = "SELECT " + std::string(depth, '(') + "1" + std::string(depth, ')');
  auto expression = ParseScript(parentheses);
  ASSERT_FALSE(expression.ok());
  EXPECT_EQ(CodeOf(expression.status()), SqlCode::kParseError);
  std::string subqueries = "SELECT * FROM ";
  for (int i = 0; i < depth; ++i) subqueries += "(SELECT * FROM ";
  subqueries += "t";
  for (int i = 0; i < depth; ++i) subqueries += ") AS s";
  auto nested = ParseScript(subqueries);
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(CodeOf(nested.status()), SqlCode::kTooComplex);
  EXPECT_NE(nested.status().message().find("64 levels"), std::string::npos);
}

// The nesting limit is per statement: a script of many statements, each with joins (and
// subqueries with joins), parses however long it is.
TEST(SqlLimits, JoinsOfEarlierStatementsDoNotCountTowardsTheNestingLimit) {
  std::string script;
  for (int i = 0; i < 100; ++i) {
    script +=
        "SELECT a.x FROM a JOIN b ON a.x = b.x JOIN (SELECT c.x FROM c JOIN d ON c.x = d.x) "
        "AS e ON a.x = e.x;\n";
  }
  auto parsed = ParseScript(script);
  ASSERT_OK(parsed.status());
  EXPECT_EQ(parsed->size(), 100u);
  std::string joins = "SELECT a.x FROM a";
  for (int i = 0; i < 70; ++i) joins += " JOIN b" + std::to_string(i) + " ON a.x = 1";
  auto too_many = ParseScript(joins);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(CodeOf(too_many.status()), SqlCode::kTooComplex);
}

TEST(SqlLexer, TheDialectOfStatements) {
  ASSERT_OK_AND_ASSIGN(auto tokens, expr::Lex("`my col` \"text\" -- comment\n/* block */ t.c => ;",
                                              expr::LexOptions{.sql = true}));
  ASSERT_EQ(tokens.size(), 8u);
  EXPECT_EQ(tokens[0].kind, expr::TokenKind::kQuotedIdentifier);
  EXPECT_EQ(tokens[0].text, "my col");
  EXPECT_EQ(tokens[1].kind, expr::TokenKind::kString);
  EXPECT_EQ(tokens[1].text, "text");
  EXPECT_EQ(tokens[2].text, "t");
  EXPECT_EQ(tokens[3].kind, expr::TokenKind::kDot);
  EXPECT_EQ(tokens[5].kind, expr::TokenKind::kArrow);
  EXPECT_EQ(tokens[6].kind, expr::TokenKind::kSemicolon);
  // The filter language keeps its own rules: "x" is a column, -- is two minus signs.
  ASSERT_OK_AND_ASSIGN(auto filter_tokens, expr::Lex("\"x\" --1"));
  EXPECT_EQ(filter_tokens[0].kind, expr::TokenKind::kQuotedIdentifier);
  EXPECT_EQ(filter_tokens[1].kind, expr::TokenKind::kMinus);
  auto unterminated = ParseScript("SELECT 1 /* no end");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_EQ(CodeOf(unterminated.status()), SqlCode::kParseError);
  EXPECT_NE(unterminated.status().message().find("line 1, column 10"), std::string::npos)
      << unterminated.status().message();
}

TEST(SqlParser, ErrorsPointAtLineAndColumnAndQuoteTheToken) {
  auto parsed = ParseScript("SELECT 1;\nSELECT a\n  FROM t WHERE;");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(CodeOf(parsed.status()), SqlCode::kParseError);
  EXPECT_NE(parsed.status().message().find("line 3, column 15"), std::string::npos)
      << parsed.status().message();
  EXPECT_NE(parsed.status().message().find("';'"), std::string::npos) << parsed.status().message();
}

// The hooks a server's mutation path uses (mutation.h): a preflight decides the IF cases and
// errors and stops before building anything; a worker's run checks its admission.
TEST_F(SqlSessionTest, MutationPreflightStopsBeforeTheMutatingCall) {
  Session session = MakeSession();
  ASSERT_OK(session.ExecuteAll("USE db").status());
  const uint64_t version = dataset_->version();
  auto run = [&](const std::string& text, MutationHooks* hooks) {
    auto statements = ParseScript(text).ValueOrDie();
    return session.Execute(statements[0], text, hooks);
  };
  MutationHooks preflight;
  preflight.preflight = true;
  auto stopped = run("CREATE INDEX category_idx ON emb (category) USING BITMAP", &preflight);
  ASSERT_OK(stopped.status());
  ASSERT_TRUE(preflight.admission.has_value());
  EXPECT_EQ(preflight.admission->version, version);
  EXPECT_NE(preflight.admission->contract.find(";field=category:string:null"), std::string::npos)
      << preflight.admission->contract;
  EXPECT_EQ(dataset::Dataset::Open(dataset_->uri()).ValueOrDie()->version(), version);

  MutationHooks no_op;
  no_op.preflight = true;
  auto kept = run("CREATE INDEX IF NOT EXISTS price_idx ON emb (price) USING BTREE", &no_op);
  ASSERT_OK(kept.status());
  EXPECT_FALSE(no_op.admission.has_value());
  EXPECT_NE(kept->info.find("nothing done"), std::string::npos);
  MutationHooks duplicate;
  duplicate.preflight = true;
  auto refused = run("CREATE INDEX price_idx ON emb (price) USING BTREE", &duplicate);
  EXPECT_EQ(CodeOf(refused.status()), SqlCode::kDuplicateKeyName);
  MutationHooks drop;
  drop.preflight = true;
  EXPECT_EQ(CodeOf(run("DROP INDEX nope ON emb", &drop).status()), SqlCode::kCantDropKey);
  ASSERT_OK(run("DROP INDEX IF EXISTS nope ON emb", &drop).status());
  EXPECT_FALSE(drop.admission.has_value());

  // A worker whose admission does not hold does nothing; one whose admission holds commits
  // after its hook ran once.
  MutationHooks stale;
  stale.admission = preflight.admission;
  stale.admission->contract += "-changed";
  auto refused_stale = run("CREATE INDEX category_idx ON emb (category) USING BITMAP", &stale);
  EXPECT_EQ(KindOf(refused_stale.status()), ErrorKind::kStale);
  EXPECT_EQ(dataset::Dataset::Open(dataset_->uri()).ValueOrDie()->version(), version);
  MutationHooks admitted;
  admitted.admission = preflight.admission;
  int calls = 0;
  admitted.before_mutating_call = [&] {
    ++calls;
    return arrow::Status::OK();
  };
  auto built = run("CREATE INDEX category_idx ON emb (category) USING BITMAP", &admitted);
  ASSERT_OK(built.status());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(built->version, version + 1);
}

}  // namespace

}  // namespace tessera::sql::sql_session_test

namespace tessera::sql {
namespace {

// information_schema.<table> (session.h): the embedding program's rows, queried as any table;
// an unknown one is 1109; time travel over it is refused; without a provider it is an unknown
// database.
TEST(SqlInformationSchema, TheProvidersTablesAreQueriedAsTables) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto catalog, Catalog::Open(directory.path()));
  Session session(catalog);
  ASSERT_FALSE(session.ExecuteAll("SELECT * FROM information_schema.processlist").ok());
  std::vector<std::string> asked;
  session.set_information_schema(
      [&](const std::string& table) -> arrow::Result<std::shared_ptr<arrow::Table>> {
        asked.push_back(table);
        if (table != "processlist") return Error(ErrorKind::kNotFound, "no ", table);
        return StringTable({"ID", "STATE"}, {{"1", "executing"}, {"2", "idle"}});
      });
  ASSERT_OK_AND_ASSIGN(auto result,
                       session.ExecuteAll("SELECT id FROM INFORMATION_SCHEMA.ProcessList AS p "
                                          "WHERE p.state = 'idle'"));
  ASSERT_NE(result.rows, nullptr);
  EXPECT_EQ(result.rows->num_rows(), 1);
  EXPECT_EQ(asked, std::vector<std::string>{"processlist"});
  auto unknown = session.ExecuteAll("SELECT * FROM information_schema.tables");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(CodeOf(unknown.status()), SqlCode::kUnknownInformationSchemaTable);
  auto versioned =
      session.ExecuteAll("SELECT * FROM information_schema.processlist FOR VERSION AS OF 1");
  ASSERT_FALSE(versioned.ok());
  EXPECT_EQ(CodeOf(versioned.status()), SqlCode::kNotSupportedYet);
}

}  // namespace
}  // namespace tessera::sql

namespace tessera::sql::sql_session_test {
namespace {

// The statement memory limit (util/memory_limit.h): what a statement's operators and result
// hold is counted; over the limit the statement fails with 1041 and the session goes on.
TEST_F(SqlSessionTest, AStatementOverItsMemoryLimitFailsWith1041AndTheNextRuns) {
  Session session = MakeSession();
  session.set_statement_memory_limit(128 * 1024);
  auto all = session.ExecuteAll("SELECT * FROM db.emb");  // 3,000 vectors of 16 floats
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(CodeOf(all.status()), SqlCode::kOutOfResources);
  EXPECT_EQ(KindOf(all.status()), ErrorKind::kResourceExhausted);
  EXPECT_NE(all.status().message().find("limit of 131072 bytes"), std::string::npos)
      << all.status().message();
  // An aggregation over every row needs little and runs.
  auto counted = session.ExecuteAll("SELECT category, count(*) FROM db.emb GROUP BY category");
  ASSERT_OK(counted.status());
  EXPECT_GT(counted->rows->num_rows(), 0);
  // A sort must hold its input: over the limit too.
  auto sorted = session.ExecuteAll("SELECT price, vector FROM db.emb ORDER BY price LIMIT 1");
  ASSERT_FALSE(sorted.ok());
  EXPECT_EQ(CodeOf(sorted.status()), SqlCode::kOutOfResources);
  // Without a limit the same statements run.
  session.set_statement_memory_limit(0);
  ASSERT_OK(session.ExecuteAll("SELECT * FROM db.emb").status());
}

TEST(LimitedMemoryPool, RefusesWhatWouldPassTheLimitAndCountsCharges) {
  util::LimitedMemoryPool pool(1000);
  uint8_t* a = nullptr;
  ASSERT_OK(pool.Allocate(600, &a));
  uint8_t* b = nullptr;
  EXPECT_TRUE(pool.Allocate(600, &b).IsOutOfMemory());
  EXPECT_TRUE(pool.exceeded());
  EXPECT_EQ(pool.bytes_allocated(), 600);
  EXPECT_TRUE(pool.Reallocate(600, 1200, &a).IsOutOfMemory());
  ASSERT_OK(pool.Reallocate(600, 300, &a));
  pool.BeginStatement();
  EXPECT_FALSE(pool.exceeded());
  ASSERT_OK(pool.Charge(500));
  EXPECT_TRUE(pool.Charge(201).IsOutOfMemory());  // 300 allocated + 701 charged
  pool.BeginStatement();
  ASSERT_OK(pool.Charge(700));
  pool.Free(a, 300);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.max_memory(), 600);
}

// KILL QUERY of a read: the control current while the statement runs (the server's) stops it
// at its next batch, with Cancelled and no result.
TEST_F(SqlSessionTest, ACancelledControlStopsAReadAtItsNextBatch) {
  Session session = MakeSession();
  util::OperationControl control;
  control.RequestCancel();
  arrow::Result<StatementResult> result;
  {
    util::ControlScope scope(&control);
    result = session.ExecuteAll("SELECT category, count(*) FROM db.emb GROUP BY category");
  }
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kCancelled) << result.status().ToString();
  // A control that is not cancelled changes nothing.
  util::OperationControl quiet;
  util::ControlScope scope(&quiet);
  ASSERT_OK(session.ExecuteAll("SELECT count(*) FROM db.emb").status());
}

}  // namespace
}  // namespace tessera::sql::sql_session_test
