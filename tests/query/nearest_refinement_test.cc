// Refinement and the distance range: a lower bound used to exclude every candidate a refined
// (quantized) segment returned — they are the nearest rows — so a search with refine_factor > 1
// returned nothing while thousands of rows qualified (and refine_factor 1 returned k). Such a
// segment is now asked for more candidates until enough of them are in range.
#include "tessera/query/nearest_refinement.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/brute_force.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/nearest.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::nearest_refinement_test {
namespace {

using index::ScoredRow;
using index::vector::Metric;

constexpr int kDim = 16;

TEST(MoreCandidatesNeeded, OnlyWhenALowerBoundLeavesTooFewAndMoreMayQualify) {
  const std::vector<ScoredRow> near = {{1, 0.1f}, {2, 0.2f}, {3, 0.3f}, {4, 0.4f}};
  // Without a lower bound, candidates out of range lie beyond the upper one: nothing is missed.
  EXPECT_FALSE(MoreCandidatesNeeded(near, {}, 10, false));
  EXPECT_FALSE(MoreCandidatesNeeded(near, {std::nullopt, 0.25f}, 10, false));
  // All four below the lower bound: farther rows may qualify.
  EXPECT_TRUE(MoreCandidatesNeeded(near, {1.0f, std::nullopt}, 2, false));
  EXPECT_TRUE(MoreCandidatesNeeded(near, {0.35f, std::nullopt}, 2, false));
  EXPECT_FALSE(MoreCandidatesNeeded(near, {0.3f, std::nullopt}, 2, false));  // two in range
  // The segment has nothing more to offer.
  EXPECT_FALSE(MoreCandidatesNeeded(near, {1.0f, std::nullopt}, 2, true));
  // A candidate reached the upper bound: the window has been crossed.
  EXPECT_FALSE(MoreCandidatesNeeded(near, {0.35f, 0.4f}, 2, false));
  EXPECT_TRUE(MoreCandidatesNeeded(near, {0.35f, 0.5f}, 2, false));
  // NaN never counts as in range.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(MoreCandidatesNeeded({{1, nan}, {2, nan}}, {0.0f, std::nullopt}, 1, false));
}

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = kDim;
  options.latent_dim = 4;
  options.clusters = 6;
  options.seed = seed;
  options.batch_rows = 256;
  return options;
}

TEST(RefinementWithDistanceRange, LowerBoundFindsKRowsBeyondTheNearestCandidates) {
  testing::TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(
      auto data,
      dataset::Dataset::Create(directory.Child("vectors"),
                               synthetic::MakeEmbeddingReader(Embeddings(2000, 3)).ValueOrDie()));
  const auto flat = synthetic::MakeQueryVectorsFlat(Embeddings(0, 4), 3).ValueOrDie();
  for (const std::string family : {"IVF_PQ", "IVF_SQ", "IVF_RQ"}) {
    index::IndexSpec spec;
    spec.name = "v_" + family;
    spec.column = "vector";
    spec.family = family;
    spec.params = {{"num_partitions", "8"}, {"max_iters", "10"}};
    if (family == "IVF_PQ") spec.params["num_sub_vectors"] = "4";
    ASSERT_OK_AND_ASSIGN(auto indexed, index::CreateIndex(*data, spec));

    NearestOptions options;
    options.column = "vector";
    options.k = 10;
    options.nprobes = 8;
    options.refine_factor = 4;
    for (int q = 0; q < 3; ++q) {
      options.query.assign(flat.begin() + q * kDim, flat.begin() + (q + 1) * kDim);
      const auto truth = testing::BruteForceNearest(*indexed, "vector", options.query, Metric::kL2);
      // The 40 candidates of refine_factor 4 are all nearer than the 200th row.
      options.lower_distance = truth[200].distance;
      options.with_row_address = true;
      Explain explain;
      ASSERT_OK_AND_ASSIGN(auto table, Nearest(*indexed, options, &explain));
      ASSERT_EQ(table->num_rows(), 10) << family << " query " << q << "\n" << explain.ToString();
      EXPECT_NE(explain.ToString().find("re-ranked to find rows in the distance range"),
                std::string::npos)
          << explain.ToString();

      // Every row is in range with its exact distance; most are the true ones.
      std::map<uint64_t, float> exact;
      for (const auto& row : truth) exact[row.row_address] = row.distance;
      std::set<uint64_t> expected;
      for (size_t i = 200; i < 210; ++i) expected.insert(truth[i].row_address);
      auto batch = table->CombineChunksToBatch().ValueOrDie();
      const auto& addresses = static_cast<const arrow::UInt64Array&>(
          *batch->GetColumnByName(dataset::kRowAddressColumn));
      const auto& distances =
          static_cast<const arrow::FloatArray&>(*batch->GetColumnByName(kDistanceColumn));
      int found = 0;
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        EXPECT_GE(distances.Value(row), *options.lower_distance);
        EXPECT_EQ(distances.Value(row), exact.at(addresses.Value(row)));
        found += static_cast<int>(expected.count(addresses.Value(row)));
      }
      EXPECT_GE(found, 5) << family << " query " << q;
    }
    // A batch answers each query as it is answered alone (here with the last bound).
    ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(*indexed, options));
    ASSERT_OK_AND_ASSIGN(auto batch, prepared->SearchBatch(flat.data(), 3));
    ASSERT_EQ(batch.size(), 3u);
    for (int q = 0; q < 3; ++q) {
      ASSERT_OK_AND_ASSIGN(auto alone, prepared->Search(flat.data() + q * kDim));
      EXPECT_EQ(alone.size(), 10u);
      ASSERT_EQ(batch[static_cast<size_t>(q)].size(), alone.size()) << q;
      for (size_t i = 0; i < alone.size(); ++i) {
        EXPECT_EQ(batch[static_cast<size_t>(q)][i].row_address, alone[i].row_address);
        EXPECT_EQ(batch[static_cast<size_t>(q)][i].distance, alone[i].distance);
      }
    }
  }
}

}  // namespace
}  // namespace tessera::query::nearest_refinement_test
