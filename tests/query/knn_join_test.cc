// k-nearest-neighbour joins (query/knn_join.h): the exact join equals a brute-force search of
// every left row, in rank order, across left batches and join batches; the indexed join with
// every partition probed equals it; a filter on the right rows applies before the search; the
// columns of both sides are carried (a clash renamed); bad left rows are named.
#include "tessera/query/knn_join.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/brute_force.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::knn_join_test {
namespace {

constexpr int kDim = 8;

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = kDim;
  options.latent_dim = 4;
  options.clusters = 5;
  options.seed = seed;
  options.batch_rows = 7;  // left batches that the join's batches straddle
  return options;
}

// Left rows: id, vector (the query vectors of seed 11).
std::shared_ptr<arrow::RecordBatchReader> Left(int64_t rows) {
  auto vectors = synthetic::MakeQueryVectors(Embeddings(0, 11), rows).ValueOrDie();
  arrow::Int64Builder ids;
  for (int64_t i = 0; i < rows; ++i) EXPECT_TRUE(ids.Append(100 + i).ok());
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("vector", vectors->type())});
  auto table = arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), vectors}, rows);
  auto reader = std::make_shared<arrow::TableBatchReader>(table);
  reader->set_chunksize(7);
  return reader;
}

std::vector<std::vector<float>> LeftVectors(int64_t rows) {
  const auto flat = synthetic::MakeQueryVectorsFlat(Embeddings(0, 11), rows).ValueOrDie();
  std::vector<std::vector<float>> vectors;
  for (int64_t i = 0; i < rows; ++i) {
    vectors.emplace_back(flat.begin() + i * kDim, flat.begin() + (i + 1) * kDim);
  }
  return vectors;
}

std::shared_ptr<arrow::Table> Join(const std::shared_ptr<dataset::Dataset>& right,
                                   KnnJoinOptions options, int64_t left_rows) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  auto left = Left(left_rows);
  auto joined = KnnJoin(*left, Snapshot::Make(right), options,
                        [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
                          batches.push_back(batch);
                          return arrow::Status::OK();
                        });
  EXPECT_TRUE(joined.ok()) << joined.status().ToString();
  if (!joined.ok() || batches.empty()) return nullptr;
  EXPECT_EQ(joined->left_rows, left_rows);
  return arrow::Table::FromRecordBatches(batches).ValueOrDie()->CombineChunks().ValueOrDie();
}

class KnnJoinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        right_,
        dataset::Dataset::Create(directory_.Child("right"),
                                 synthetic::MakeEmbeddingReader(Embeddings(1500, 3)).ValueOrDie()));
  }
  KnnJoinOptions Options(bool exact) const {
    KnnJoinOptions options;
    options.left_column = "vector";
    options.right.column = "vector";
    options.right.k = 5;
    options.right.nprobes = 16;
    options.right.columns = {"id", "category"};
    options.right.use_index = !exact;
    options.batch_rows = 4;
    return options;
  }
  testing::TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> right_;
};

// Every left row's rows equal the brute-force answer (distances, addresses, rank order).
void ExpectBruteForce(const arrow::Table& joined, const dataset::Dataset& right, int64_t left_rows,
                      size_t k, const std::string& filter = "") {
  const auto& ids = static_cast<const arrow::Int64Array&>(*joined.GetColumnByName("id")->chunk(0));
  const auto& addresses =
      static_cast<const arrow::UInt64Array&>(*joined.GetColumnByName("_rowaddr")->chunk(0));
  const auto& distances =
      static_cast<const arrow::FloatArray&>(*joined.GetColumnByName("_distance")->chunk(0));
  const auto& ranks =
      static_cast<const arrow::Int32Array&>(*joined.GetColumnByName("_rank")->chunk(0));
  const auto vectors = LeftVectors(left_rows);
  ASSERT_EQ(joined.num_rows(), left_rows * static_cast<int64_t>(k));
  for (int64_t q = 0; q < left_rows; ++q) {
    const auto truth =
        testing::BruteForceNearest(right, "vector", vectors[q], index::vector::Metric::kL2, filter);
    for (size_t r = 0; r < k; ++r) {
      const int64_t row = q * static_cast<int64_t>(k) + static_cast<int64_t>(r);
      EXPECT_EQ(ids.Value(row), 100 + q);
      EXPECT_EQ(ranks.Value(row), static_cast<int32_t>(r + 1));
      EXPECT_EQ(addresses.Value(row), truth[r].row_address) << "left row " << q << " rank " << r;
      EXPECT_FLOAT_EQ(distances.Value(row), truth[r].distance);
    }
  }
}

TEST_F(KnnJoinTest, ExactJoinEqualsBruteForceOfEveryLeftRow) {
  auto joined = Join(right_, Options(/*exact=*/true), 23);
  ASSERT_NE(joined, nullptr);
  // Left columns, then the right ones (its `id` clashes with the left's), then the join's.
  std::vector<std::string> names;
  for (const auto& field : joined->schema()->fields()) names.push_back(field->name());
  EXPECT_EQ(names, (std::vector<std::string>{"id", "right_id", "category", "_distance", "_rank",
                                             "_rowaddr"}));
  ExpectBruteForce(*joined, *right_, 23, 5);
}

// A batch of queries reads each batch of the exact tail once, whatever the number of queries.
TEST_F(KnnJoinTest, TheExactJoinReadsTheRightRowsOncePerBatchOfLeftRows) {
  KnnJoinOptions options = Options(/*exact=*/true);
  options.batch_rows = 23;
  dataset::GlobalReadStatistics().Reset();
  ASSERT_NE(Join(right_, options, 23), nullptr);
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), 1500u);
}

TEST_F(KnnJoinTest, IndexedJoinProbingEveryPartitionEqualsTheExactOne) {
  index::IndexSpec spec{"v", "vector", "IVF_FLAT", {{"num_partitions", "6"}, {"max_iters", "8"}}};
  ASSERT_OK_AND_ASSIGN(auto indexed, index::CreateIndex(*right_, spec));
  auto joined = Join(indexed, Options(/*exact=*/false), 23);
  ASSERT_NE(joined, nullptr);
  ExpectBruteForce(*joined, *indexed, 23, 5);
}

TEST_F(KnnJoinTest, AFilterOnTheRightRowsAppliesBeforeTheSearch) {
  KnnJoinOptions options = Options(/*exact=*/true);
  options.right.filter = "category = 'toys'";
  options.left_columns = {"id"};
  auto joined = Join(right_, options, 9);
  ASSERT_NE(joined, nullptr);
  ExpectBruteForce(*joined, *right_, 9, 5, "category = 'toys'");
  const auto& categories =
      static_cast<const arrow::StringArray&>(*joined->GetColumnByName("category")->chunk(0));
  for (int64_t row = 0; row < categories.length(); ++row)
    EXPECT_EQ(categories.GetView(row), "toys");
}

// A right dataset of vectors alone: the output has the left columns and the join's.
TEST_F(KnnJoinTest, ARightDatasetOfVectorsAloneCarriesNoRightColumn) {
  auto vectors_only =
      std::make_shared<arrow::TableBatchReader>(synthetic::MakeEmbeddingReader(Embeddings(300, 3))
                                                    .ValueOrDie()
                                                    ->ToTable()
                                                    .ValueOrDie()
                                                    ->SelectColumns({1})
                                                    .ValueOrDie());
  ASSERT_OK_AND_ASSIGN(auto right,
                       dataset::Dataset::Create(directory_.Child("vectors"), vectors_only));
  KnnJoinOptions options = Options(/*exact=*/true);
  options.right.columns = {};
  auto joined = Join(right, options, 5);
  ASSERT_NE(joined, nullptr);
  std::vector<std::string> names;
  for (const auto& field : joined->schema()->fields()) names.push_back(field->name());
  EXPECT_EQ(names, (std::vector<std::string>{"id", "_distance", "_rank", "_rowaddr"}));
  ASSERT_OK(joined->ValidateFull());
  EXPECT_EQ(joined->num_rows(), 25);
}

TEST_F(KnnJoinTest, BadLeftInputIsNamed) {
  const auto fails = [&](std::shared_ptr<arrow::RecordBatchReader> left, KnnJoinOptions options,
                         const std::string& phrase) {
    auto joined =
        KnnJoin(*left, Snapshot::Make(right_), options,
                [](const std::shared_ptr<arrow::RecordBatch>&) { return arrow::Status::OK(); });
    ASSERT_FALSE(joined.ok()) << phrase;
    EXPECT_EQ(KindOf(joined.status()), ErrorKind::kInvalidArgument) << joined.status().ToString();
    EXPECT_NE(joined.status().message().find(phrase), std::string::npos)
        << joined.status().message();
  };
  KnnJoinOptions options = Options(/*exact=*/true);
  options.left_column = "embedding";
  fails(Left(3), options, "no column 'embedding'");
  options.left_column = "id";
  fails(Left(3), options, "not a vector column");

  // A null vector and a short one, in the second left batch: named by their input row.
  arrow::ListBuilder builder(arrow::default_memory_pool(), std::make_shared<arrow::FloatBuilder>());
  auto& values = static_cast<arrow::FloatBuilder&>(*builder.value_builder());
  for (int row = 0; row < 4; ++row) {
    if (row == 2) {
      ASSERT_OK(builder.AppendNull());
      continue;
    }
    ASSERT_OK(builder.Append());
    for (int i = 0; i < (row == 3 ? kDim - 1 : kDim); ++i) ASSERT_OK(values.Append(0.5f));
  }
  auto vectors = builder.Finish().ValueOrDie();
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("vector", vectors->type())}), 4,
                                        arrow::ArrayVector{vectors});
  options = Options(/*exact=*/true);
  fails(arrow::RecordBatchReader::Make({batch}).ValueOrDie(), options, "left row 2 has no vector");
  auto short_only = batch->Slice(3);
  fails(arrow::RecordBatchReader::Make({batch->Slice(0, 2), short_only}).ValueOrDie(), options,
        "left row 2 has a vector of 7 values");
}

}  // namespace
}  // namespace tessera::query::knn_join_test
