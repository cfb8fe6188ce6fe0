// Indexes over external fragments (docs/external.md): every vector family and a BTREE built
// over Parquet files the dataset references answer searches and filters exactly as the same
// indexes over the same rows copied into a native dataset, before and after files are appended
// (searched through the exact tail, then through the delta segments index optimize builds).
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/parquet_files.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/nearest.h"
#include "tessera/query/snapshot.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::external_index_test {
namespace {

constexpr int kDim = 16;
constexpr int64_t kFileRows = 600;

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = kDim;
  options.latent_dim = 4;
  options.clusters = 6;
  options.seed = seed;
  options.batch_rows = kFileRows;
  return options;
}

dataset::WriteOptions Layout() {
  dataset::WriteOptions options;
  options.rows_per_batch = 256;
  options.max_rows_per_file = kFileRows;
  return options;
}

// The embedding rows minus the columns tessera cannot take from Parquet as written (tags are
// list<string>, which round-trips; kept), vectors written as Spark does: plain lists, in pages
// of 40 rows.
struct Files {
  Files(const testing::TempDirectory& directory, int count, uint64_t seed) {
    auto reader = synthetic::MakeEmbeddingReader(Embeddings(kFileRows * count, seed)).ValueOrDie();
    for (int i = 0; i < count; ++i) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE(reader->ReadNext(&batch).ok());
      batches.push_back(batch);
      paths.push_back(
          directory.Child("s" + std::to_string(seed) + "-" + std::to_string(i) + ".parquet"));
      // Every other file with a page index, so that sparse reads take its pages alone.
      testing::WriteParquet(paths.back(), testing::VectorsAsLists(batch, "vector"),
                            {.row_group_rows = 250,
                             .store_schema = false,
                             .page_index = i % 2 == 0,
                             .max_rows_per_page = 40});
    }
  }
  std::shared_ptr<arrow::RecordBatchReader> Rows() const {
    return arrow::RecordBatchReader::Make(batches).ValueOrDie();
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::vector<std::string> paths;
};

// `rows` embedding rows of `seed` as one batch.
std::shared_ptr<arrow::RecordBatch> EmbeddingRows(int64_t rows, uint64_t seed) {
  return synthetic::MakeEmbeddingReader(Embeddings(rows, seed))
      .ValueOrDie()
      ->ToTable()
      .ValueOrDie()
      ->CombineChunksToBatch()
      .ValueOrDie();
}

// Both datasets indexed alike; `check` compares them.
struct Pair {
  std::shared_ptr<dataset::Dataset> external;
  std::shared_ptr<dataset::Dataset> native;
};

std::shared_ptr<arrow::Table> Search(const dataset::Dataset& data, const std::string& family,
                                     const std::vector<float>& query, const std::string& filter) {
  NearestOptions options;
  options.column = "vector";
  options.query = query;
  options.k = 12;
  options.nprobes = 3;
  options.refine_factor = family == "IVF_FLAT" ? 1 : 3;
  options.filter = filter;
  options.prefilter = true;  // so that a far category still returns rows to compare
  options.columns = {"id", "category"};
  options.with_row_address = true;
  auto table = Nearest(data, options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? *table : nullptr;
}

void ExpectSameAnswers(const Pair& pair, const std::string& family, const std::string& stage) {
  const auto queries = synthetic::MakeQueryVectorsFlat(Embeddings(0, 99), 4).ValueOrDie();
  for (int q = 0; q < 4; ++q) {
    const std::vector<float> query(queries.begin() + q * kDim, queries.begin() + (q + 1) * kDim);
    for (const std::string filter : {"", "id < 1000", "category = 'books'"}) {
      SCOPED_TRACE(family + ", " + stage + ", query " + std::to_string(q) + ", filter '" + filter +
                   "'");
      auto external = Search(*pair.external, family, query, filter);
      auto native = Search(*pair.native, family, query, filter);
      ASSERT_NE(external, nullptr);
      ASSERT_NE(native, nullptr);
      EXPECT_GT(native->num_rows(), 0);
      EXPECT_TRUE(external->Equals(*native)) << external->ToString() << "\n" << native->ToString();
    }
  }
  // Filtered reads and counts through the BTREE.
  for (const std::string filter : {"id >= 300 and id < 320", "id = 5 or id = 1500"}) {
    SCOPED_TRACE(stage + ", filter '" + filter + "'");
    dataset::ScanOptions scan;
    scan.filter = filter;
    scan.with_row_address = true;
    ASSERT_OK_AND_ASSIGN(auto external_rows, Read(Snapshot::Make(pair.external), scan));
    ASSERT_OK_AND_ASSIGN(auto native_rows, Read(Snapshot::Make(pair.native), scan));
    ASSERT_OK_AND_ASSIGN(auto external, external_rows->ToTable());
    ASSERT_OK_AND_ASSIGN(auto native, native_rows->ToTable());
    EXPECT_GE(native->num_rows(), 2);
    EXPECT_TRUE(external->Equals(*native));
    ASSERT_OK_AND_ASSIGN(auto external_count, Count(*Snapshot::Make(pair.external), filter));
    EXPECT_EQ(external_count, static_cast<uint64_t>(native->num_rows()));
  }
}

TEST(ExternalIndexes, AnswerLikeTheSameIndexesOverCopiedRows) {
  testing::TempDirectory directory;
  Files first(directory, 3, 5);
  Files appended(directory, 1, 6);
  for (const std::string family : {"IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_RQ"}) {
    SCOPED_TRACE(family);
    dataset::ExternalOptions vectors;
    vectors.vector_dimensions["vector"] = kDim;
    Pair pair;
    ASSERT_OK_AND_ASSIGN(pair.external,
                         dataset::Dataset::CreateExternal(directory.Child(family + "-external"),
                                                          first.paths, vectors, Layout()));
    ASSERT_OK_AND_ASSIGN(pair.native, dataset::Dataset::Create(directory.Child(family + "-native"),
                                                               first.Rows(), Layout()));
    index::IndexSpec spec;
    spec.name = "v";
    spec.column = "vector";
    spec.family = family;
    spec.params = {{"num_partitions", "6"}, {"max_iters", "8"}};
    if (family == "IVF_PQ") spec.params["num_sub_vectors"] = "4";
    index::IndexSpec btree{"ids", "id", "BTREE", {}};
    for (auto* data : {&pair.external, &pair.native}) {
      ASSERT_OK_AND_ASSIGN(*data, index::CreateIndex(**data, spec));
      ASSERT_OK_AND_ASSIGN(*data, index::CreateIndex(**data, btree));
    }
    ExpectSameAnswers(pair, family, "built");

    ASSERT_OK_AND_ASSIGN(pair.external,
                         pair.external->AppendExternal(appended.paths, {}, Layout()));
    ASSERT_OK_AND_ASSIGN(pair.native, pair.native->Append(appended.Rows(), Layout()));
    ExpectSameAnswers(pair, family, "appended (exact tail)");

    for (auto* data : {&pair.external, &pair.native}) {
      ASSERT_OK_AND_ASSIGN(auto optimized, index::OptimizeIndexes(**data));
      EXPECT_EQ(optimized.segments_built, 2);  // one delta segment per index
      *data = optimized.dataset;
    }
    ExpectSameAnswers(pair, family, "optimized (delta segments)");
  }
}

// The IVF_PQ index of the refinement tests: 8 partitions, 4 sub-vectors.
index::IndexSpec SmallPqSpec() {
  return {"v",
          "vector",
          "IVF_PQ",
          {{"num_partitions", "8"}, {"num_sub_vectors", "4"}, {"max_iters", "8"}}};
}

// A search of query 0 (seed 9) probing all 8 partitions, re-ranking k × 4 candidates.
NearestOptions RefinedSearch(int64_t k, std::vector<std::string> columns) {
  NearestOptions options;
  options.column = "vector";
  options.query = synthetic::MakeQueryVectorsFlat(Embeddings(0, 9), 1).ValueOrDie();
  options.k = k;
  options.nprobes = 8;
  options.refine_factor = 4;
  options.columns = std::move(columns);
  return options;
}

// Refinement reads the candidates' rows of an external file, not the whole column: opening the
// raw vectors of a file read on demand decodes nothing, and a query decodes only the row groups
// holding its candidates.
TEST(ExternalIndexes, RefinementDecodesOnlyTheRowGroupsOfItsCandidates) {
  testing::TempDirectory directory;
  const auto rows = EmbeddingRows(4000, 8);
  const std::string path = directory.Child("rows.parquet");
  testing::WriteParquet(path, testing::VectorsAsLists(rows, "vector"),
                        {.row_group_rows = 100, .store_schema = false});
  dataset::ExternalOptions vectors;
  vectors.vector_dimensions["vector"] = kDim;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::CreateExternal(directory.Child("ds"), {path},
                                                                   vectors, Layout()));
  const index::IndexSpec spec = SmallPqSpec();
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  const NearestOptions options = RefinedSearch(1, {"id"});
  dataset::GlobalReadStatistics().Reset();
  ASSERT_OK_AND_ASSIGN(auto nearest, Nearest(*data, options));
  EXPECT_EQ(nearest->num_rows(), 1);
  // 4 candidates, then the winner's id: at most 5 row groups of 100 rows out of 40.
  EXPECT_LE(dataset::GlobalReadStatistics().external_rows_decoded.load(), 500u);
  EXPECT_GT(dataset::GlobalReadStatistics().external_rows_decoded.load(), 0u);
}

// With a page index (as Spark writes files), refinement decodes only the pages holding its
// candidates, not their row groups: the same answer for a fraction of the rows.
TEST(ExternalIndexes, WithAPageIndexRefinementDecodesOnlyThePagesOfItsCandidates) {
  testing::TempDirectory directory;
  const auto rows = EmbeddingRows(4000, 8);
  dataset::ExternalOptions vectors;
  vectors.vector_dimensions["vector"] = kDim;
  const index::IndexSpec spec = SmallPqSpec();
  const NearestOptions options = RefinedSearch(3, {"id", "category"});
  std::shared_ptr<arrow::Table> answers[2];
  uint64_t decoded[2] = {0, 0};
  for (int paged = 0; paged < 2; ++paged) {
    const std::string path = directory.Child("rows-" + std::to_string(paged) + ".parquet");
    testing::WriteParquet(path, testing::VectorsAsLists(rows, "vector"),
                          {.row_group_rows = 1000,
                           .store_schema = false,
                           .page_index = paged == 1,
                           .max_rows_per_page = 50,
                           .dictionary = false});
    dataset::WriteOptions layout = Layout();
    layout.rows_per_batch = 1000;
    ASSERT_OK_AND_ASSIGN(
        auto data, dataset::Dataset::CreateExternal(directory.Child("ds-" + std::to_string(paged)),
                                                    {path}, vectors, layout));
    ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
    dataset::GlobalReadStatistics().Reset();
    ASSERT_OK_AND_ASSIGN(answers[paged], Nearest(*data, options));
    decoded[paged] = dataset::GlobalReadStatistics().external_rows_decoded.load();
  }
  EXPECT_TRUE(answers[1]->Equals(*answers[0])) << answers[1]->ToString() << answers[0]->ToString();
  EXPECT_EQ(answers[1]->num_rows(), 3);
  // Without: whole row groups of 1,000 rows. With: 12 candidates and 3 results, pages of 50 rows
  // (for each column read).
  EXPECT_GE(decoded[0], 1000u);
  EXPECT_LE(decoded[1], 15u * 50u);
  EXPECT_LT(decoded[1], decoded[0]);
}

}  // namespace
}  // namespace tessera::query::external_index_test
