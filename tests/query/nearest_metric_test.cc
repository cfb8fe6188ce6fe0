// The default metric of a nearest search comes from the definition of the first vector index on
// the column, through its family (IndexFamily::MetricOf) — also when no segment of that index
// covers a live fragment, so there is no segment to ask.
#include <arrow/array.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/brute_force.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/nearest.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::nearest_metric_test {
namespace {

using index::vector::Metric;

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = 8;
  options.latent_dim = 4;
  options.clusters = 4;
  options.seed = seed;
  options.batch_rows = 128;
  return options;
}

TEST(NearestMetric, IndexWithoutLiveSegmentsStillGivesTheDefaultMetric) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data,
      dataset::Dataset::Create(directory.Child("vectors"),
                               synthetic::MakeEmbeddingReader(Embeddings(300, 5)).ValueOrDie()));
  index::IndexSpec spec;
  spec.name = "v_dot";
  spec.column = "vector";
  spec.family = "IVF_FLAT";
  spec.params = {{"metric", "dot"}, {"num_partitions", "4"}, {"max_iters", "5"}};
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  // Every indexed fragment leaves the manifest; the rows appended after are unindexed.
  ASSERT_OK_AND_ASSIGN(data, data->Delete("true"));
  ASSERT_OK_AND_ASSIGN(
      data, data->Append(synthetic::MakeEmbeddingReader(Embeddings(200, 6)).ValueOrDie()));
  ASSERT_EQ(data->manifest().indexes_size(), 1);

  auto queries = synthetic::MakeQueryVectorsFlat(Embeddings(0, 7), 1).ValueOrDie();
  NearestOptions options;
  options.column = "vector";
  options.query.assign(queries.begin(), queries.begin() + 8);
  options.k = 5;
  options.with_row_address = true;
  Explain explain;
  ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options, &explain));
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("metric dot (of index 'v_dot')"), std::string::npos) << text;
  EXPECT_NE(text.find("exact distance (unindexed)"), std::string::npos) << text;

  const auto expected = testing::BruteForceNearest(*data, "vector", options.query, Metric::kDot);
  ASSERT_EQ(table->num_rows(), 5);
  auto batch = table->CombineChunksToBatch().ValueOrDie();
  const auto& addresses =
      static_cast<const arrow::UInt64Array&>(*batch->GetColumnByName(dataset::kRowAddressColumn));
  for (int64_t row = 0; row < 5; ++row) {
    EXPECT_EQ(addresses.Value(row), expected[static_cast<size_t>(row)].row_address) << row;
  }
}

}  // namespace
}  // namespace tessera::query::nearest_metric_test
