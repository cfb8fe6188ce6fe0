// Batch search (PreparedNearest::SearchBatch) answers every query exactly as Search answers it
// alone: the same rows in the same order with the same distance bits. IVF segments search a
// batch partition by partition (each probed partition read once per block of queries,
// index/vector/ivf_search.h SearchPartitionTiles). Checked over several segments, an unindexed
// tail, deleted rows, every metric, prefilters, distance ranges, offsets, k beyond a partition
// (raised probes) and refinement.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::nearest_batch_test {
namespace {

using index::ScoredRow;

// Tiles of 64 KiB hold 170 rows of 96 floats (IVF_FLAT) and 655 rows of 100-byte IVF_SQ codes,
// fewer than the ~1,000 rows of a built partition: the tiling is tested.
constexpr int kDim = 96;
constexpr int kQueries = 40;

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = kDim;
  options.latent_dim = 4;
  options.clusters = 8;
  options.seed = seed;
  options.batch_rows = 300;
  return options;
}

uint32_t Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// A dataset of three segments of `family` (one built, two added by optimize), an unindexed
// appended tail and deleted rows in every part.
std::shared_ptr<dataset::Dataset> MakeDataset(const testing::TempDirectory& directory,
                                              const std::string& family,
                                              const std::string& metric) {
  dataset::WriteOptions write;
  write.max_rows_per_file = 1000;
  auto data = dataset::Dataset::Create(
                  directory.Child(family + "_" + metric),
                  synthetic::MakeEmbeddingReader(Embeddings(3000, 5)).ValueOrDie(), write)
                  .ValueOrDie();
  index::IndexSpec spec;
  spec.name = "v";
  spec.column = "vector";
  spec.family = family;
  spec.params = {{"num_partitions", "3"}, {"max_iters", "8"}, {"metric", metric}};
  if (family == "IVF_PQ") spec.params["num_sub_vectors"] = "4";
  data = index::CreateIndex(*data, spec).ValueOrDie();
  for (uint64_t part = 0; part < 3; ++part) {
    data =
        data->Append(synthetic::MakeEmbeddingReader(Embeddings(400, 6 + part)).ValueOrDie(), write)
            .ValueOrDie();
    // The first two appends become delta segments; the last stays an unindexed tail.
    if (part < 2) {
      index::OptimizeOptions no_merge;
      no_merge.merge.kind = index::MergePolicy::Kind::kNone;
      auto report = index::OptimizeIndexes(*data, no_merge).ValueOrDie();
      EXPECT_EQ(report.segments_built, 1);
      EXPECT_EQ(report.segments_merged, 0);
      data = report.dataset;
    }
  }
  return data->Delete("id % 7 = 3").ValueOrDie();
}

void ExpectBatchEqualsAlone(const dataset::Dataset& data, const NearestOptions& options,
                            const std::vector<float>& queries, const NearestKnobs& knobs,
                            const std::string& what) {
  ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(data, options));
  ASSERT_OK_AND_ASSIGN(auto batch, prepared->SearchBatch(queries.data(), kQueries, knobs));
  ASSERT_EQ(batch.size(), static_cast<size_t>(kQueries));
  size_t found = 0;
  for (int q = 0; q < kQueries; ++q) {
    ASSERT_OK_AND_ASSIGN(auto alone, prepared->Search(queries.data() + q * kDim, knobs));
    const auto& together = batch[static_cast<size_t>(q)];
    ASSERT_EQ(together.size(), alone.size()) << what << " query " << q;
    for (size_t i = 0; i < alone.size(); ++i) {
      ASSERT_EQ(together[i].row_address, alone[i].row_address) << what << " query " << q;
      ASSERT_EQ(Bits(together[i].distance), Bits(alone[i].distance)) << what << " query " << q;
    }
    found += alone.size();
  }
  EXPECT_GT(found, 0u) << what;  // the case finds rows: equality is not vacuous
}

class NearestBatch : public ::testing::TestWithParam<std::string> {};

TEST_P(NearestBatch, AnswersEveryQueryAsAlone) {
  const std::string family = GetParam();
  testing::TempDirectory directory;
  const auto queries = synthetic::MakeQueryVectorsFlat(Embeddings(0, 9), kQueries).ValueOrDie();
  for (const std::string metric : {"l2", "cosine", "dot"}) {
    const auto data = MakeDataset(directory, family, metric);
    NearestOptions options;
    options.column = "vector";
    options.metric = index::vector::ParseMetric(metric).ValueOrDie();
    const std::string base = family + " " + metric;
    for (const NearestKnobs knobs :
         {NearestKnobs{10, 1, 1}, NearestKnobs{10, 2, 1}, NearestKnobs{5, 3, 1},
          // More rows than a probed partition holds: probes are raised.
          NearestKnobs{1500, 1, 1}, NearestKnobs{10, 2, 4}}) {
      const std::string what = base + " k " + std::to_string(knobs.k) + " nprobes " +
                               std::to_string(knobs.nprobes) + " refine " +
                               std::to_string(knobs.refine_factor);
      ExpectBatchEqualsAlone(*data, options, queries, knobs, what);
    }
    NearestOptions filtered = options;
    filtered.filter = "id % 3 = 0";
    filtered.prefilter = true;
    ExpectBatchEqualsAlone(*data, filtered, queries, {10, 2, 1}, base + " prefilter");
    // A selective prefilter: most queries' probed partitions hold too few allowed rows.
    filtered.filter = "id % 97 = 0";
    ExpectBatchEqualsAlone(*data, filtered, queries, {10, 1, 1}, base + " selective prefilter");
    filtered.prefilter = false;
    filtered.filter = "id % 2 = 0";
    ExpectBatchEqualsAlone(*data, filtered, queries, {10, 2, 1}, base + " postfilter");
    // A distance window and an offset: the first rows of each query's order are skipped.
    ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(*data, options));
    ASSERT_OK_AND_ASSIGN(auto nearest, prepared->Search(queries.data(), {30, 3, 1}));
    ASSERT_GE(nearest.size(), 30u);
    NearestOptions windowed = options;
    windowed.lower_distance = nearest[5].distance;
    windowed.upper_distance = nearest[25].distance;
    windowed.offset = 2;
    ExpectBatchEqualsAlone(*data, windowed, queries, {10, 3, 1}, base + " window");
    ExpectBatchEqualsAlone(*data, windowed, queries, {10, 3, 3}, base + " window refined");
  }
}

INSTANTIATE_TEST_SUITE_P(Families, NearestBatch,
                         ::testing::Values("IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_RQ"));

}  // namespace
}  // namespace tessera::query::nearest_batch_test
