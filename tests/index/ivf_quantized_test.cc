// The quantized IVF families, IVF_SQ, IVF_PQ and IVF_RQ (index/vector/ivf_family.h): their
// quantizers' arithmetic, parameters, recall with and without refinement, batch search equal to
// single search, merges that answer like their inputs, and damaged models. Exactness with
// refinement over everything is proven in tests/query/nearest_test.cc.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/brute_force.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/ivf_graphs.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/product_quantizer.h"
#include "tessera/index/vector/scalar_quantizer.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector::ivf_quantized_test {
namespace {

using testing::TempDirectory;

std::vector<float> RandomVectors(int64_t count, int dim, uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(static_cast<size_t>(count) * dim);
  for (float& value : values) value = normal(random);
  return values;
}

float Dot(const float* a, const float* b, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; ++i) sum += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(sum);
}

float SquaredDistance(const float* a, const float* b, int dim) {
  double sum = 0;
  for (int i = 0; i < dim; ++i) sum += (static_cast<double>(a[i]) - b[i]) * (a[i] - b[i]);
  return static_cast<float>(sum);
}

TEST(ScalarQuantizer, CodesDecodeWithinHalfAStepAndScoresApproximateTheDecodedVector) {
  constexpr int kDim = 37;  // odd: no kernel lane aligns
  const auto sample = RandomVectors(500, kDim, 1, 3.0f);
  const ScalarQuantizer sq = ScalarQuantizer::Train(sample.data(), 500, kDim);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, std::vector<float>(kDim, 0)));
  const auto rows = RandomVectors(50, kDim, 2, 3.0f);
  std::vector<int32_t> partitions(50, 0);
  std::vector<uint8_t> codes(50 * static_cast<size_t>(sq.code_size()));
  ASSERT_OK(sq.Encode(ivf, rows.data(), partitions.data(), 50, codes.data()));
  ASSERT_OK_AND_ASSIGN(auto restored, ScalarQuantizer::Deserialize(sq.Serialize(), kDim, "test"));
  EXPECT_EQ(restored.Serialize(), sq.Serialize());

  const auto query = RandomVectors(1, kDim, 3, 3.0f);
  for (Metric metric : {Metric::kL2, Metric::kDot}) {
    ASSERT_OK_AND_ASSIGN(auto model, IvfModel::Make(metric, kDim, std::vector<float>(kDim, 0)));
    auto scorer = sq.Prepare(model, query.data());
    std::vector<float> scores(50);
    scorer->Score(0, codes.data(), 50, scores.data());
    for (int i = 0; i < 50; ++i) {
      const uint8_t* code = codes.data() + static_cast<size_t>(i) * sq.code_size();
      const auto decoded = sq.Decode(code);
      for (int d = 0; d < kDim; ++d) {
        const float value = rows[static_cast<size_t>(i) * kDim + d];
        if (value >= sq.low(d) && value <= sq.low(d) + 255 * sq.step(d)) {
          EXPECT_LE(std::fabs(decoded[d] - value), 0.5f * sq.step(d) * 1.001f + 1e-6f);
        }
      }
      const float exact = metric == Metric::kL2
                              ? SquaredDistance(query.data(), decoded.data(), kDim)
                              : -Dot(query.data(), decoded.data(), kDim);
      // The query's weights q_d · step_d are rounded to multiples of (largest weight / 127):
      // at most half such a multiple per dimension, times a code of at most 255.
      double largest_weight = 0;
      for (int d = 0; d < kDim; ++d) {
        largest_weight =
            std::max(largest_weight, std::fabs(static_cast<double>(query[d]) * sq.step(d)));
      }
      const double tolerance = 2.0 * kDim * 255.0 * 0.5 * largest_weight / 127.0 + 1e-3;
      EXPECT_NEAR(scores[i], exact, tolerance) << "row " << i;
    }
  }
}

TEST(ProductQuantizer, ScoresEqualDistancesToTheDecodedVectors) {
  constexpr int kDim = 24;
  constexpr int kRows = 600;
  for (Metric metric : {Metric::kL2, Metric::kDot, Metric::kCosine}) {
    auto sample = RandomVectors(kRows, kDim, 4);
    if (metric == Metric::kCosine) {
      for (int i = 0; i < kRows; ++i) Normalize(sample.data() + i * kDim, kDim);
    }
    // Four partitions: centroids are four sample rows.
    std::vector<float> centroids(sample.begin(), sample.begin() + 4 * kDim);
    ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(metric, kDim, centroids));
    std::vector<int32_t> partitions(kRows);
    ASSERT_OK(ivf.AssignBatch(sample.data(), kRows, partitions.data()));
    ProductQuantizerOptions options;
    options.num_sub_vectors = 6;
    options.max_iterations = 8;
    ASSERT_OK_AND_ASSIGN(
        auto pq, ProductQuantizer::Train(ivf, sample.data(), partitions.data(), kRows, options));
    ASSERT_OK_AND_ASSIGN(auto restored, ProductQuantizer::Deserialize(pq.Serialize(), kDim, "t"));
    EXPECT_EQ(restored.Serialize(), pq.Serialize());
    std::vector<uint8_t> codes(static_cast<size_t>(kRows) * pq.code_size());
    ASSERT_OK(pq.Encode(ivf, sample.data(), partitions.data(), kRows, codes.data()));

    auto query = RandomVectors(1, kDim, 5);
    if (metric == Metric::kCosine) Normalize(query.data(), kDim);
    // Scored twice: with per-partition tables, then (l2) with the precomputed terms.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) pq.PrepareSearch(ivf);
      auto scorer = pq.Prepare(ivf, query.data());
      for (int p = 0; p < 4; ++p) {
        std::vector<int> rows;
        std::vector<uint8_t> partition_codes;
        for (int i = 0; i < kRows; ++i) {
          if (partitions[i] != p) continue;
          rows.push_back(i);
          partition_codes.insert(partition_codes.end(), codes.begin() + i * pq.code_size(),
                                 codes.begin() + (i + 1) * pq.code_size());
        }
        std::vector<float> scores(rows.size());
        scorer->Score(p, partition_codes.data(), static_cast<int64_t>(rows.size()), scores.data());
        for (size_t r = 0; r < rows.size(); ++r) {
          // x̂ = centroid + the codebook entries of the code.
          std::vector<float> decoded(centroids.begin() + p * kDim,
                                     centroids.begin() + (p + 1) * kDim);
          for (int j = 0; j < pq.num_sub_vectors(); ++j) {
            const uint8_t entry = partition_codes[r * pq.code_size() + j];
            for (int d = 0; d < pq.sub_dim(); ++d) {
              decoded[j * pq.sub_dim() + d] += pq.codebook(j)[entry * pq.sub_dim() + d];
            }
          }
          float expected = metric == Metric::kL2
                               ? SquaredDistance(query.data(), decoded.data(), kDim)
                               : -Dot(query.data(), decoded.data(), kDim);
          if (metric == Metric::kCosine) expected += 1.0f;
          const float scale = SquaredDistance(query.data(), centroids.data() + p * kDim, kDim);
          EXPECT_NEAR(scores[r], expected, 1e-4 * std::max({1.0f, std::fabs(expected), scale}))
              << MetricName(metric) << " partition " << p << " row " << rows[r] << " pass " << pass;
        }
      }
    }
    // Residual codes are much closer to the rows than their centroids are.
    double residual_error = 0;
    double centroid_error = 0;
    for (int i = 0; i < kRows; ++i) {
      const float* centroid = centroids.data() + partitions[i] * kDim;
      std::vector<float> decoded(centroid, centroid + kDim);
      for (int j = 0; j < pq.num_sub_vectors(); ++j) {
        const uint8_t entry = codes[static_cast<size_t>(i) * pq.code_size() + j];
        for (int d = 0; d < pq.sub_dim(); ++d) {
          decoded[j * pq.sub_dim() + d] += pq.codebook(j)[entry * pq.sub_dim() + d];
        }
      }
      residual_error += SquaredDistance(sample.data() + i * kDim, decoded.data(), kDim);
      centroid_error += SquaredDistance(sample.data() + i * kDim, centroid, kDim);
    }
    EXPECT_LT(residual_error, 0.5 * centroid_error) << MetricName(metric);
  }
}

// 4-bit codes (fast scan), of residuals or of the vectors: scores are within the byte tables'
// rounding of the distances to the decoded vectors; stored codes
// (blocks of 32 rows, the last one shorter) load back to what Encode wrote; a partition scored
// in pieces that start at multiples of 32 rows scores exactly as a whole.
TEST(ProductQuantizer, FourBitFastScanApproximatesDecodedVectorsInAnyBlockAlignedPieces) {
  constexpr int kDim = 24;
  constexpr int kRows = 1200;
  constexpr int kSubVectors = 12;
  for (const auto& [metric, residual] :
       std::vector<std::pair<Metric, bool>>{{Metric::kL2, true},
                                            {Metric::kDot, true},
                                            {Metric::kCosine, true},
                                            {Metric::kL2, false},
                                            {Metric::kDot, false},
                                            {Metric::kCosine, false}}) {
    auto sample = RandomVectors(kRows, kDim, 14);
    if (metric == Metric::kCosine) {
      for (int i = 0; i < kRows; ++i) Normalize(sample.data() + i * kDim, kDim);
    }
    std::vector<float> centroids(sample.begin(), sample.begin() + 3 * kDim);
    ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(metric, kDim, centroids));
    std::vector<int32_t> partitions(kRows);
    ASSERT_OK(ivf.AssignBatch(sample.data(), kRows, partitions.data()));
    ProductQuantizerOptions options;
    options.num_sub_vectors = kSubVectors;
    options.num_bits = 4;
    options.residual = residual;
    options.max_iterations = 8;
    ASSERT_OK_AND_ASSIGN(
        auto pq, ProductQuantizer::Train(ivf, sample.data(), partitions.data(), kRows, options));
    EXPECT_EQ(pq.code_size(), kSubVectors / 2);
    EXPECT_EQ(pq.row_block(), 32);
    EXPECT_EQ(pq.codebook_size(), 16);
    ASSERT_OK_AND_ASSIGN(auto restored, ProductQuantizer::Deserialize(pq.Serialize(), kDim, "t"));
    EXPECT_EQ(restored.Serialize(), pq.Serialize());
    EXPECT_EQ(restored.bits(), 4);
    EXPECT_EQ(restored.residual(), residual);
    const int code_size = pq.code_size();
    std::vector<uint8_t> codes(static_cast<size_t>(kRows) * code_size);
    ASSERT_OK(pq.Encode(ivf, sample.data(), partitions.data(), kRows, codes.data()));

    auto query = RandomVectors(1, kDim, 15);
    if (metric == Metric::kCosine) Normalize(query.data(), kDim);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) pq.PrepareSearch(ivf);
      auto scorer = pq.Prepare(ivf, query.data());
      for (int p = 0; p < 3; ++p) {
        std::vector<uint8_t> rows;
        for (int i = 0; i < kRows; ++i) {
          if (partitions[i] != p) continue;
          rows.insert(rows.end(), codes.begin() + i * code_size,
                      codes.begin() + (i + 1) * code_size);
        }
        const int64_t count = static_cast<int64_t>(rows.size()) / code_size;
        ASSERT_GT(count % 32, 0) << "the partition should end with a partial block";
        ASSERT_GT(count, 64);
        std::vector<uint8_t> stored(rows.size());
        std::vector<uint8_t> loaded(rows.size());
        pq.StoreCodes(rows.data(), count, stored.data());
        EXPECT_NE(stored, rows);
        pq.LoadCodes(stored.data(), count, loaded.data());
        EXPECT_EQ(loaded, rows);

        std::vector<float> whole(static_cast<size_t>(count));
        scorer->Score(p, stored.data(), count, whole.data());
        // Pieces of 32 and 64 rows, then the rest (full blocks and the row-major tail).
        std::vector<float> pieces(static_cast<size_t>(count));
        for (int64_t first = 0, size = 32; first < count; first += size, size *= 2) {
          if (first + size > count || size > 64) size = count - first;
          scorer->Score(p, stored.data() + first * code_size, size, pieces.data() + first);
        }
        for (int64_t r = 0; r < count; ++r) {
          ASSERT_EQ(pieces[r], whole[r]) << "row " << r;
        }

        // The float table of (query, partition), to bound the byte tables' rounding: m / 2 steps
        // of widest range / 255. Residual l2 subtracts the partition's centroid.
        const float* centroid = centroids.data() + p * kDim;
        double widest = 0;
        for (int j = 0; j < kSubVectors; ++j) {
          double low = INFINITY;
          double high = -INFINITY;
          for (int c = 0; c < 16; ++c) {
            double entry = 0;
            for (int d = 0; d < pq.sub_dim(); ++d) {
              const int at = j * pq.sub_dim() + d;
              const double e = pq.codebook(j)[c * pq.sub_dim() + d];
              const double target = query[at] - (residual ? centroid[at] : 0.0f);
              entry += metric == Metric::kL2 ? (target - e) * (target - e) : -query[at] * e;
            }
            low = std::min(low, entry);
            high = std::max(high, entry);
          }
          widest = std::max(widest, high - low);
        }
        const double rounding = kSubVectors * 0.5 * widest / 255.0;
        std::vector<float> decoded(static_cast<size_t>(count) * kDim);
        ASSERT_OK(pq.Decode(ivf, p, rows.data(), count, decoded.data()));
        for (int64_t r = 0; r < count; ++r) {
          const float* vector = decoded.data() + r * kDim;
          double expected = metric == Metric::kL2 ? SquaredDistance(query.data(), vector, kDim)
                                                  : -Dot(query.data(), vector, kDim);
          if (metric == Metric::kCosine) expected += 1.0;
          EXPECT_NEAR(whole[r], expected,
                      rounding * 1.01 + 1e-4 * std::max(1.0, std::fabs(expected)))
              << MetricName(metric) << " residual " << residual << " partition " << p << " row "
              << r << " pass " << pass;
        }
      }
    }
  }
  // Odd sub-vector counts cannot pair their nibbles; other bit widths do not exist.
  const auto sample = RandomVectors(100, kDim, 16);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, std::vector<float>(kDim, 0)));
  const std::vector<int32_t> partitions(100, 0);
  ProductQuantizerOptions odd;
  odd.num_sub_vectors = 3;
  odd.num_bits = 4;
  auto rejected = ProductQuantizer::Train(ivf, sample.data(), partitions.data(), 100, odd);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(KindOf(rejected.status()), ErrorKind::kInvalidArgument);
  ProductQuantizerOptions five;
  five.num_sub_vectors = 4;
  five.num_bits = 5;
  EXPECT_FALSE(ProductQuantizer::Train(ivf, sample.data(), partitions.data(), 100, five).ok());
}

TEST(ProductQuantizer, CodebooksDoNotDependOnTheThreadCount) {
  constexpr int kDim = 32;
  constexpr int kRows = 3000;
  const auto sample = RandomVectors(kRows, kDim, 6);
  std::vector<float> centroids(sample.begin(), sample.begin() + 3 * kDim);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, centroids));
  std::vector<int32_t> partitions(kRows);
  ASSERT_OK(ivf.AssignBatch(sample.data(), kRows, partitions.data()));
  ProductQuantizerOptions options;
  options.num_sub_vectors = 8;
  options.max_iterations = 6;
  ASSERT_OK_AND_ASSIGN(auto parallel, ProductQuantizer::Train(ivf, sample.data(), partitions.data(),
                                                              kRows, options));
  // Inside a loop body every nested ParallelFor runs on the calling thread: a serial reference.
  std::string serial;
  ASSERT_OK(util::ParallelFor(1, [&](int64_t, int64_t) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto trained, ProductQuantizer::Train(ivf, sample.data(),
                                                                partitions.data(), kRows, options));
    serial = trained.Serialize();
    return arrow::Status::OK();
  }));
  EXPECT_EQ(parallel.Serialize(), serial);
}

// --- through datasets ---

constexpr int kDim = 32;

synthetic::EmbeddingOptions Embeddings(int64_t rows, uint64_t seed) {
  synthetic::EmbeddingOptions options;
  options.rows = rows;
  options.dim = kDim;
  options.latent_dim = 8;
  options.clusters = 12;
  options.seed = seed;
  options.batch_rows = 500;
  return options;
}

dataset::WriteOptions Files() {
  dataset::WriteOptions options;
  options.max_rows_per_file = 1500;
  options.rows_per_batch = 256;
  return options;
}

// IVF_RQ or IVF_PQ with num_bits b is named "IVF_RQ/b", "IVF_PQ/b" (defaults: 1 and 8 bits);
// "IVF_PQ/bv" encodes the vectors instead of their residuals (residual=false).
std::string FamilyName(const std::string& family) { return family.substr(0, family.find('/')); }

// A directory name for `family`.
std::string DirectoryName(std::string family) {
  std::replace(family.begin(), family.end(), '/', '_');
  return family;
}

IndexSpec Spec(const std::string& family, Metric metric = Metric::kL2) {
  IndexSpec spec{"vec_idx", "vector", FamilyName(family), {}};
  spec.params = {
      {"metric", std::string(MetricName(metric))}, {"num_partitions", "16"}, {"max_iters", "15"}};
  if (family == "IVF_PQ") spec.params["num_sub_vectors"] = "8";
  // 4-bit codes: twice the sub-vectors in the same 8 bytes a row.
  if (family.rfind("IVF_PQ/4", 0) == 0) spec.params["num_sub_vectors"] = "16";
  if (family.find('/') != std::string::npos) {
    std::string bits = family.substr(family.find('/') + 1);
    if (bits.back() == 'v') {
      spec.params["residual"] = "false";
      bits.pop_back();
    }
    spec.params["num_bits"] = bits;
  }
  return spec;
}

std::vector<std::vector<float>> Queries(int count, uint64_t seed) {
  auto flat = synthetic::MakeQueryVectorsFlat(Embeddings(0, seed), count).ValueOrDie();
  std::vector<std::vector<float>> queries;
  for (int i = 0; i < count; ++i) {
    queries.emplace_back(flat.begin() + i * kDim, flat.begin() + (i + 1) * kDim);
  }
  return queries;
}

std::shared_ptr<dataset::Dataset> Indexed(const std::string& uri, const std::string& family,
                                          Metric metric = Metric::kL2) {
  auto data = dataset::Dataset::Create(
                  uri, synthetic::MakeEmbeddingReader(Embeddings(4500, 21)).ValueOrDie(), Files())
                  .ValueOrDie();
  auto created = CreateIndex(*data, Spec(family, metric));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return *created;
}

TEST(IvfQuantizedFamilies, ParametersAreCheckedAndNormalized) {
  const auto column = arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 48));
  ASSERT_OK_AND_ASSIGN(const IndexFamily* pq, GetFamily("ivf_pq"));
  ASSERT_OK_AND_ASSIGN(auto normalized, pq->Validate(*column, {}));
  EXPECT_EQ(normalized.at("num_sub_vectors"), "6");  // 48 / 8
  EXPECT_EQ(normalized.at("num_bits"), "8");
  auto not_dividing = pq->Validate(*column, {{"num_sub_vectors", "5"}});
  ASSERT_FALSE(not_dividing.ok());
  EXPECT_EQ(KindOf(not_dividing.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(not_dividing.status().message().find("must divide the vector dimension 48"),
            std::string::npos)
      << not_dividing.status().message();
  // The default is left out: definitions saved before the parameter existed stay equal.
  EXPECT_EQ(normalized.count("residual"), 0u);
  ASSERT_OK_AND_ASSIGN(normalized,
                       pq->Validate(*column, {{"num_bits", "4"}, {"residual", "FALSE"}}));
  EXPECT_EQ(normalized.at("num_bits"), "4");
  EXPECT_EQ(normalized.at("num_sub_vectors"), "12");  // 4 dimensions each: 6 bytes, as 8-bit's
  EXPECT_EQ(normalized.at("residual"), "false");
  // Where dim / 4 is too many or odd, the default is another even count of at most 256.
  const auto wide = arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 3072));
  ASSERT_OK_AND_ASSIGN(normalized, pq->Validate(*wide, {{"num_bits", "4"}}));
  EXPECT_EQ(normalized.at("num_sub_vectors"), "192");
  // A dimension no even count of sub-vectors divides: an error, not a default of 0.
  for (int dim : {6, 7}) {
    auto none = pq->Validate(*arrow::field("v", arrow::fixed_size_list(arrow::float32(), dim)),
                             {{"num_bits", "4"}});
    ASSERT_FALSE(none.ok()) << dim;
    EXPECT_NE(none.status().message().find("cannot take 4-bit"), std::string::npos)
        << none.status().message();
  }
  const auto narrow = arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 24));
  ASSERT_OK_AND_ASSIGN(normalized, pq->Validate(*narrow, {{"num_bits", "4"}}));
  EXPECT_EQ(normalized.at("num_sub_vectors"), "6");
  auto odd_count = pq->Validate(*column, {{"num_bits", "4"}, {"num_sub_vectors", "3"}});
  ASSERT_FALSE(odd_count.ok());
  EXPECT_NE(odd_count.status().message().find("such as 12"), std::string::npos)
      << odd_count.status().message();
  for (const Params& bad : std::vector<Params>{{{"num_bits", "5"}},
                                               {{"num_bits", "16"}},
                                               {{"residual", "maybe"}},
                                               {{"num_bits", "4"}, {"num_sub_vectors", "3"}}}) {
    auto rejected = pq->Validate(*column, bad);
    ASSERT_FALSE(rejected.ok());
    EXPECT_EQ(KindOf(rejected.status()), ErrorKind::kInvalidArgument);
  }
  ASSERT_OK_AND_ASSIGN(const IndexFamily* hnsw_pq, GetFamily("IVF_HNSW_PQ"));
  auto graph_four = hnsw_pq->Validate(*column, {{"num_bits", "4"}});
  ASSERT_FALSE(graph_four.ok());
  EXPECT_NE(graph_four.status().message().find("for IVF_PQ"), std::string::npos)
      << graph_four.status().message();
  ASSERT_OK_AND_ASSIGN(const IndexFamily* sq, GetFamily("IVF_SQ"));
  auto unknown = sq->Validate(*column, {{"num_sub_vectors", "8"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("num_sub_vectors"), std::string::npos);
  auto scalar = sq->Validate(*arrow::field("x", arrow::int32()), {});
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(KindOf(scalar.status()), ErrorKind::kUnsupported);
  ASSERT_OK_AND_ASSIGN(const IndexFamily* rq, GetFamily("ivf_rq"));
  ASSERT_OK_AND_ASSIGN(normalized, rq->Validate(*column, {}));
  EXPECT_EQ(normalized.at("num_bits"), "1");
  ASSERT_OK_AND_ASSIGN(normalized, rq->Validate(*column, {{"num_bits", "8"}}));
  EXPECT_EQ(normalized.at("num_bits"), "8");
  for (const char* bits : {"0", "9", "two"}) {
    auto rejected = rq->Validate(*column, {{"num_bits", bits}});
    ASSERT_FALSE(rejected.ok()) << bits;
    EXPECT_EQ(KindOf(rejected.status()), ErrorKind::kInvalidArgument);
    EXPECT_NE(rejected.status().message().find("num_bits"), std::string::npos);
  }
  EXPECT_FALSE(rq->Validate(*column, {{"num_sub_vectors", "8"}}).ok());
  auto too_long =
      rq->Validate(*arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 4097)), {});
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("at most 4096 dimensions"), std::string::npos)
      << too_long.status().message();
}

struct RecallCase {
  std::string family;
  Metric metric;
  int refine_factor;
  double minimum_recall;
};

TEST(IvfQuantizedFamilies, RecallAtFewProbesWithAndWithoutRefinement) {
  TempDirectory directory;
  const std::vector<RecallCase> cases = {
      {"IVF_SQ", Metric::kL2, 1, 0.80},
      {"IVF_SQ", Metric::kL2, 4, 0.95},
      {"IVF_PQ", Metric::kL2, 1, 0.50},
      {"IVF_PQ", Metric::kL2, 10, 0.90},
      {"IVF_PQ", Metric::kCosine, 10, 0.9},
      {"IVF_PQ/4", Metric::kL2, 1, 0.55},
      {"IVF_PQ/4", Metric::kL2, 10, 0.92},
      {"IVF_PQ/4", Metric::kDot, 10, 0.9},
      {"IVF_PQ/4", Metric::kCosine, 10, 0.9},
      // Codes of the vectors: worse than residuals on these tightly clustered rows.
      {"IVF_PQ/4v", Metric::kL2, 1, 0.40},
      {"IVF_PQ/4v", Metric::kL2, 10, 0.9},
      {"IVF_PQ/4v", Metric::kCosine, 10, 0.7},
      {"IVF_PQ/8v", Metric::kL2, 1, 0.35},
      {"IVF_PQ/8v", Metric::kDot, 10, 0.9},
      {"IVF_SQ", Metric::kDot, 4, 0.9},
      // One bit per rotated dimension: 8 bytes a row at 32 dimensions padded to 64 (IVF_PQ: 8).
      {"IVF_RQ", Metric::kL2, 1, 0.30},
      {"IVF_RQ", Metric::kL2, 10, 0.85},
      {"IVF_RQ", Metric::kCosine, 10, 0.8},
      {"IVF_RQ", Metric::kDot, 10, 0.75},
      {"IVF_RQ/4", Metric::kL2, 1, 0.8},
      {"IVF_RQ/4", Metric::kL2, 4, 0.95},
      {"IVF_RQ/8", Metric::kDot, 1, 0.9},
  };
  const auto queries = Queries(40, 77);
  for (const auto& test : cases) {
    const std::string name =
        DirectoryName(test.family) + "_" + std::string(MetricName(test.metric));
    auto data = Indexed(directory.Child(name + std::to_string(test.refine_factor)), test.family,
                        test.metric);
    query::NearestOptions options;
    options.column = "vector";
    options.nprobes = 6;
    options.refine_factor = test.refine_factor;
    ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
    double recall = 0;
    for (const auto& query : queries) {
      ASSERT_OK_AND_ASSIGN(auto found, prepared->Search(query.data()));
      recall += testing::RecallAt(10, found,
                                  testing::BruteForceNearest(*data, "vector", query, test.metric));
    }
    recall /= static_cast<double>(queries.size());
    EXPECT_GE(recall, test.minimum_recall) << name << " refine " << test.refine_factor;
    std::cout << name << " refine " << test.refine_factor << ": recall@10 " << recall << "\n";
  }
}

bool SameRows(const std::vector<ScoredRow>& a, const std::vector<ScoredRow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].row_address != b[i].row_address || a[i].distance != b[i].distance) return false;
  }
  return true;
}

TEST(IvfQuantizedFamilies, BatchSearchAnswersEachQueryLikeASingleSearch) {
  TempDirectory directory;
  for (const std::string family : {"IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_PQ/4", "IVF_PQ/4v",
                                   "IVF_RQ", "IVF_RQ/3", "IVF_HNSW_SQ", "IVF_HNSW_FLAT"}) {
    auto data = Indexed(directory.Child(DirectoryName(family)), family);
    // An unindexed fragment and deletions in both parts.
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(synthetic::MakeEmbeddingReader(Embeddings(700, 22)).ValueOrDie(), Files()));
    ASSERT_OK_AND_ASSIGN(data, data->Delete("id < 300 OR (id >= 2000 AND id < 2150)"));
    const auto queries = Queries(25, 9);
    std::vector<float> flat;
    for (const auto& query : queries) flat.insert(flat.end(), query.begin(), query.end());
    query::NearestOptions options;
    options.column = "vector";
    options.k = 7;
    options.offset = 2;
    ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
    for (int refine : {1, 3}) {
      for (int nprobes : {1, 5}) {
        query::NearestKnobs knobs;
        knobs.nprobes = nprobes;
        knobs.refine_factor = refine;
        ASSERT_OK_AND_ASSIGN(auto batch, prepared->SearchBatch(flat.data(), 25, knobs));
        ASSERT_EQ(batch.size(), 25u);
        for (size_t q = 0; q < queries.size(); ++q) {
          ASSERT_OK_AND_ASSIGN(auto single, prepared->Search(queries[q].data(), knobs));
          EXPECT_EQ(single.size(), 7u);
          EXPECT_TRUE(SameRows(batch[q], single))
              << family << " query " << q << " refine " << refine << " nprobes " << nprobes;
        }
      }
    }
    // The knobs are checked like the options.
    query::NearestKnobs bad;
    bad.refine_factor = 0;
    EXPECT_FALSE(prepared->Search(queries[0].data(), bad).ok());
    std::vector<float> infinite(queries[0]);
    infinite[3] = INFINITY;
    auto rejected = prepared->Search(infinite.data());
    ASSERT_FALSE(rejected.ok());
    EXPECT_EQ(KindOf(rejected.status()), ErrorKind::kInvalidArgument);
  }
}

// A quantized reader's SearchBatch with queries that differ in k (0 included), nprobes, the
// distance window and the accept callback answers each as its Search does, bit for bit.
TEST(IvfQuantizedFamilies, ReaderBatchAnswersEachQueryAsSearch) {
  TempDirectory directory;
  for (const std::string family :
       {"IVF_SQ", "IVF_PQ", "IVF_PQ/4", "IVF_PQ/4v", "IVF_RQ", "IVF_RQ/3"}) {
    auto data = Indexed(directory.Child(DirectoryName(family)), family);
    ASSERT_EQ(data->manifest().indexes_size(), 1);
    ASSERT_EQ(data->manifest().indexes(0).segments_size(), 1);
    const format::SegmentMeta& meta = data->manifest().indexes(0).segments(0);
    ASSERT_OK_AND_ASSIGN(auto dir, DirectoryOf(data->storage(), meta));
    ASSERT_OK_AND_ASSIGN(auto reader, FindFamily(FamilyName(family))->Open(meta, dir));
    const VectorSegmentReader& vectors = *reader->AsVector();
    const std::function<bool(uint64_t)> even = [](uint64_t address) { return address % 2 == 0; };
    const auto vectors_of_queries = Queries(30, 17);
    std::vector<VectorQuery> queries(vectors_of_queries.size());
    for (size_t q = 0; q < queries.size(); ++q) {
      VectorQuery& query = queries[q];
      query.vector = vectors_of_queries[q].data();
      query.dim = vectors.dim();
      query.k = q % 6 == 0 ? 0 : static_cast<int>(1 + q * 4);
      query.nprobes = static_cast<int>(1 + q % 5);
      if (q % 4 == 1) query.accept = &even;
      if (q % 5 == 3) {
        const auto nearest = vectors.Search(query).ValueOrDie();
        if (nearest.size() > 3) {
          query.lower_distance = nearest[1].distance;
          query.upper_distance = nearest[3].distance;
        }
      }
    }
    ASSERT_OK_AND_ASSIGN(auto batch,
                         vectors.SearchBatch(queries.data(), static_cast<int64_t>(queries.size())));
    ASSERT_EQ(batch.size(), queries.size());
    for (size_t q = 0; q < queries.size(); ++q) {
      ASSERT_OK_AND_ASSIGN(auto alone, vectors.Search(queries[q]));
      EXPECT_TRUE(SameRows(batch[q], alone)) << family << " query " << q;
    }
    ASSERT_OK_AND_ASSIGN(auto none, vectors.SearchBatch(nullptr, -3));
    EXPECT_TRUE(none.empty());
  }
}

TEST(IvfQuantizedFamilies, MergedSegmentsAnswerLikeTheirInputs) {
  TempDirectory directory;
  for (const std::string family :
       {"IVF_SQ", "IVF_PQ", "IVF_PQ/4", "IVF_PQ/4v", "IVF_RQ", "IVF_RQ/3"}) {
    auto data = Indexed(directory.Child(DirectoryName(family)), family);
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(synthetic::MakeEmbeddingReader(Embeddings(1000, 23)).ValueOrDie(), Files()));
    OptimizeOptions delta;
    delta.merge.kind = MergePolicy::Kind::kNone;
    ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*data, delta));
    data = report.dataset;
    ASSERT_OK_AND_ASSIGN(auto described, DescribeIndex(*data, "vec_idx"));
    ASSERT_EQ(described.segments.size(), 2u) << family;

    query::NearestOptions options;
    options.column = "vector";
    options.nprobes = 4;
    // Unrefined: a merged segment keeps the k best codes of its inputs' union, which are the
    // inputs' k best merged (with refinement each segment keeps k × refine_factor candidates,
    // so the candidate pool depends on the segment count).
    options.refine_factor = 1;
    const auto queries = Queries(10, 31);
    std::vector<std::vector<ScoredRow>> before;
    {
      ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
      for (const auto& query : queries) {
        ASSERT_OK_AND_ASSIGN(auto found, prepared->Search(query.data()));
        before.push_back(found);
      }
    }
    OptimizeOptions merge;
    merge.merge.kind = MergePolicy::Kind::kMaxSegments;
    merge.merge.max_segments = 1;
    ASSERT_OK_AND_ASSIGN(report, OptimizeIndexes(*data, merge));
    data = report.dataset;
    ASSERT_OK_AND_ASSIGN(described, DescribeIndex(*data, "vec_idx"));
    ASSERT_EQ(described.segments.size(), 1u) << family;
    if (family == "IVF_PQ/4") {
      EXPECT_EQ(described.segments[0].details().at("num_bits"), "4");
      EXPECT_EQ(described.segments[0].details().at("code_size"), "8");
    }
    ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
    for (size_t q = 0; q < queries.size(); ++q) {
      ASSERT_OK_AND_ASSIGN(auto after, prepared->Search(queries[q].data()));
      EXPECT_TRUE(SameRows(before[q], after)) << family << " query " << q;
    }
  }
}

// A graph walks codes row by row: an IVF_HNSW_PQ model holding 4-bit codes (stored in blocks) is
// refused before anything is built, whichever way it arrives.
TEST(IvfQuantizedFamilies, GraphOverFourBitCodesIsRefused) {
  TempDirectory directory;
  auto data = dataset::Dataset::Create(
                  directory.Child("d"),
                  synthetic::MakeEmbeddingReader(Embeddings(600, 21)).ValueOrDie(), Files())
                  .ValueOrDie();
  IndexSpec four = Spec("IVF_PQ/4");
  ASSERT_OK_AND_ASSIGN(Model inner, TrainModel(*data, four));
  const std::string wrapped = WrapHnswModel(HnswParams{16, 100}, inner.bytes);
  const Model graph{"IVF_HNSW_PQ", IvfModel::FingerprintOf(wrapped), wrapped};
  IndexSpec spec{"graph_idx", "vector", "IVF_HNSW_PQ", four.params};
  spec.params["m"] = "16";
  spec.params["ef_construction"] = "100";
  spec.params["num_bits"] = "8";  // as the family accepts; the model says 4
  auto built = BuildSegment(*data, spec, {}, &graph);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.status().message().find("which a graph cannot walk"), std::string::npos)
      << built.status().ToString();
}

TEST(IvfQuantizedFamilies, DamagedModelIsCorrupt) {
  TempDirectory directory;
  auto data = Indexed(directory.Child("pq"), "IVF_PQ");
  ASSERT_OK_AND_ASSIGN(auto described, DescribeIndex(*data, "vec_idx"));
  ASSERT_EQ(described.segments.size(), 1u);
  const std::string model =
      directory.Child("pq") + "/_indices/" + described.segments[0].uuid() + "/model.bin";
  {
    std::fstream file(model, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(40);
    file.put('\x7f');
  }
  query::NearestOptions options;
  options.column = "vector";
  auto opened = query::PreparedNearest::Make(*data, options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
}

}  // namespace
}  // namespace tessera::index::vector::ivf_quantized_test
