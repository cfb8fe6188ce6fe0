// RaBitQ (index/vector/rabit_quantizer.h): both random rotations keep lengths, the estimator
// converges to the exact distance as bits grow and is unbiased at one bit (with the structured
// rotation new models use and the dense one older models hold), rows at their centroid score
// exactly, precomputed rotated centroids change nothing, codes do not depend on the thread count,
// models record the oldest format version that reads them, and damaged quantizers are Corrupt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/ivf_quantized_model.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/rabit_quantizer.h"
#include "tessera/index/vector/random_rotation.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector::rabit_quantizer_test {
namespace {

constexpr int kDim = 45;  // not a multiple of 64: the rotation pads to 64
constexpr int kRows = 800;
constexpr int kPartitions = 4;

std::vector<float> RandomVectors(int64_t count, int dim, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count) * dim);
  for (float& value : values) value = normal(random);
  return values;
}

// A quantizer as models written before the structured rotation hold it: header (dim, padded
// dimension, bits) and a dense rotation, padded × dim floats.
std::string DenseRotationBytes(int dim, int bits, uint64_t seed) {
  const int padded = (dim + 63) / 64 * 64;
  const uint32_t header[3] = {static_cast<uint32_t>(dim), static_cast<uint32_t>(padded),
                              static_cast<uint32_t>(bits)};
  const auto rotation = RandomOrthonormalColumns(padded, dim, seed);
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  bytes.append(reinterpret_cast<const char*>(rotation.data()), rotation.size() * sizeof(float));
  return bytes;
}

// The quantizer of `bits` bits drawn from `seed`, with the structured rotation (as Make draws
// it) or a dense one (as older models hold it).
RabitQuantizer MakeQuantizer(bool dense, int dim, int bits, uint64_t seed) {
  auto made = dense ? RabitQuantizer::Deserialize(DenseRotationBytes(dim, bits, seed), dim, "test")
                    : RabitQuantizer::Make(dim, bits, seed);
  EXPECT_OK(made.status());
  return std::move(made).ValueOrDie();
}

double Exact(Metric metric, const float* query, const float* row, int dim) {
  double dot = 0;
  double l2 = 0;
  for (int d = 0; d < dim; ++d) {
    dot += static_cast<double>(query[d]) * row[d];
    l2 += (static_cast<double>(query[d]) - row[d]) * (query[d] - row[d]);
  }
  if (metric == Metric::kL2) return l2;
  return metric == Metric::kCosine ? 1.0 - dot : -dot;
}

// Rows, their partitions among four centroids (four of the rows), and their codes.
struct Encoded {
  std::vector<float> rows;
  std::vector<int32_t> partitions;
  std::vector<uint8_t> codes;
};

Encoded Encode(const RabitQuantizer& rq, const IvfModel& ivf, std::vector<float> rows) {
  Encoded encoded;
  encoded.rows = std::move(rows);
  const int64_t count = static_cast<int64_t>(encoded.rows.size()) / kDim;
  encoded.partitions.resize(static_cast<size_t>(count));
  EXPECT_OK(ivf.AssignBatch(encoded.rows.data(), count, encoded.partitions.data()));
  encoded.codes.resize(static_cast<size_t>(count) * rq.code_size());
  EXPECT_OK(
      rq.Encode(ivf, encoded.rows.data(), encoded.partitions.data(), count, encoded.codes.data()));
  return encoded;
}

// The scores of every row, partition by partition, for `query`.
std::vector<float> ScoreAll(const RabitQuantizer& rq, const IvfModel& ivf, const Encoded& encoded,
                            const float* query) {
  const size_t code_size = static_cast<size_t>(rq.code_size());
  auto scorer = rq.Prepare(ivf, query);
  std::vector<float> scores(encoded.partitions.size());
  for (int p = 0; p < ivf.num_partitions(); ++p) {
    std::vector<size_t> rows;
    std::vector<uint8_t> codes;
    for (size_t i = 0; i < encoded.partitions.size(); ++i) {
      if (encoded.partitions[i] != p) continue;
      rows.push_back(i);
      codes.insert(codes.end(), encoded.codes.begin() + i * code_size,
                   encoded.codes.begin() + (i + 1) * code_size);
    }
    std::vector<float> out(rows.size());
    scorer->Score(p, codes.data(), static_cast<int64_t>(rows.size()), out.data());
    for (size_t r = 0; r < rows.size(); ++r) scores[rows[r]] = out[r];
  }
  return scores;
}

TEST(RandomRotation, ColumnsAreOrthonormal) {
  const auto matrix = RandomOrthonormalColumns(48, kDim, 7);
  for (int a = 0; a < kDim; ++a) {
    for (int b = a; b < kDim; ++b) {
      double dot = 0;
      for (int i = 0; i < 48; ++i) {
        dot += static_cast<double>(matrix[i * kDim + a]) * matrix[i * kDim + b];
      }
      EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-5) << a << ", " << b;
    }
  }
  EXPECT_EQ(RandomOrthonormalColumns(48, kDim, 7), matrix);
  EXPECT_NE(RandomOrthonormalColumns(48, kDim, 8), matrix);
}

// The structured rotation, applied to each basis vector, gives orthonormal columns and spreads
// each basis vector about as evenly as a uniformly random rotation would: its largest coordinate
// stays within a quarter above √(2 ln(2D²) / D), the typical largest of D² Gaussian entries of
// variance 1/D. (Walsh–Hadamard transforms over two overlapping power-of-two blocks, tried first,
// left coordinates of 0.43–0.54 at 320 dimensions.)
TEST(StructuredRotation, IsOrthonormalReproducibleAndSpreadsLength) {
  for (int padded : {64, 192, 320, 768}) {
    const StructuredRotation rotation = StructuredRotation::Draw(padded, 7);
    const double spread_bound = 1.25 * std::sqrt(2 * std::log(2.0 * padded * padded) / padded);
    std::vector<float> columns(static_cast<size_t>(padded) * padded);
    std::vector<float> basis(static_cast<size_t>(padded), 0.0f);
    float largest = 0;
    for (int i = 0; i < padded; ++i) {
      basis[i] = 1.0f;
      rotation.Apply(basis.data(), padded, columns.data() + static_cast<size_t>(i) * padded);
      basis[i] = 0.0f;
      for (int d = 0; d < padded; ++d) {
        largest = std::max(largest, std::fabs(columns[static_cast<size_t>(i) * padded + d]));
      }
    }
    EXPECT_LT(largest, spread_bound) << padded;
    double worst = 0;
    for (int a = 0; a < padded; ++a) {
      for (int b = a; b < padded; ++b) {
        double dot = 0;
        for (int d = 0; d < padded; ++d) {
          dot += static_cast<double>(columns[static_cast<size_t>(a) * padded + d]) *
                 columns[static_cast<size_t>(b) * padded + d];
        }
        worst = std::max(worst, std::fabs(dot - (a == b ? 1.0 : 0.0)));
      }
    }
    EXPECT_LT(worst, 1e-5) << padded;
    // The same rotation, drawn or read back, rotates alike; another seed does not.
    const auto vector = RandomVectors(1, padded - 5, 3);  // zero-padded by Apply
    std::vector<float> first(static_cast<size_t>(padded));
    std::vector<float> again(static_cast<size_t>(padded));
    rotation.Apply(vector.data(), padded - 5, first.data());
    const std::string bytes = rotation.Serialize();
    EXPECT_EQ(bytes.size(), StructuredRotation::SerializedBytes(padded));
    auto restored = StructuredRotation::Deserialize(padded, bytes);
    ASSERT_TRUE(restored.has_value());
    restored->Apply(vector.data(), padded - 5, again.data());
    EXPECT_EQ(first, again);
    StructuredRotation::Draw(padded, 7).Apply(vector.data(), padded - 5, again.data());
    EXPECT_EQ(first, again);
    StructuredRotation::Draw(padded, 8).Apply(vector.data(), padded - 5, again.data());
    EXPECT_NE(first, again);
  }
  // Bytes of the wrong size, a dimension that is not a multiple of 64, a non-finite entry: none.
  const std::string bytes = StructuredRotation::Draw(128, 1).Serialize();
  EXPECT_FALSE(StructuredRotation::Deserialize(128, bytes.substr(1)).has_value());
  EXPECT_FALSE(StructuredRotation::Deserialize(96, bytes).has_value());
  std::string infinite = bytes;
  const float inf = INFINITY;
  std::memcpy(infinite.data() + infinite.size() - 4, &inf, sizeof(inf));
  EXPECT_FALSE(StructuredRotation::Deserialize(128, infinite).has_value());
}

// Every SIMD level rotates a vector to the same bits (the block mixing runs on the active
// level's inner_product_transposed): codes do not depend on the CPU that encoded them.
TEST(StructuredRotation, EveryLevelRotatesToTheSameBits) {
  const StructuredRotation rotation = StructuredRotation::Draw(320, 5);
  const auto vector = RandomVectors(1, 300, 6);
  std::vector<float> reference(320);
  rotation.Apply(vector.data(), 300, reference.data(), simd::KernelsFor(simd::Level::kScalar));
  for (int level = 1; level <= static_cast<int>(simd::DetectedLevel()); ++level) {
    std::vector<float> rotated(320);
    rotation.Apply(vector.data(), 300, rotated.data(),
                   simd::KernelsFor(static_cast<simd::Level>(level)));
    EXPECT_EQ(rotated, reference) << simd::LevelName(static_cast<simd::Level>(level));
  }
}

TEST(RabitQuantizer, EstimatesTightenWithBitsAndAreUnbiasedAtOneBit) {
  for (bool dense : {false, true}) {
    for (Metric metric : {Metric::kL2, Metric::kDot, Metric::kCosine}) {
      auto rows = RandomVectors(kRows, kDim, 1);
      auto queries = RandomVectors(8, kDim, 2);
      if (metric == Metric::kCosine) {
        for (int i = 0; i < kRows; ++i) Normalize(rows.data() + i * kDim, kDim);
        for (int q = 0; q < 8; ++q) Normalize(queries.data() + q * kDim, kDim);
      }
      std::vector<float> centroids(rows.begin(), rows.begin() + kPartitions * kDim);
      ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(metric, kDim, centroids));
      double previous_rms = INFINITY;
      for (int bits : {1, 2, 4, 8}) {
        const RabitQuantizer rq = MakeQuantizer(dense, kDim, bits, 3);
        EXPECT_EQ(rq.padded_dim(), 64);
        EXPECT_EQ(rq.code_size(), bits * 8 + 12);
        const Encoded encoded = Encode(rq, ivf, rows);
        double error_sum = 0;
        double squared_error_sum = 0;
        double squared_scale_sum = 0;
        int64_t count = 0;
        for (int q = 0; q < 8; ++q) {
          const float* query = queries.data() + q * kDim;
          const auto scores = ScoreAll(rq, ivf, encoded, query);
          for (int i = 0; i < kRows; ++i) {
            const float* row = encoded.rows.data() + i * kDim;
            const double exact = Exact(metric, query, row, kDim);
            const double error = scores[i] - exact;
            error_sum += error;
            squared_error_sum += error * error;
            // The error scales with ‖r‖ · ‖q − c‖ (l2) or ‖r‖ · ‖q‖ (dot, cosine).
            const float* centroid = centroids.data() + encoded.partitions[i] * kDim;
            const double r = std::sqrt(Exact(Metric::kL2, row, centroid, kDim));
            const double v = metric == Metric::kL2
                                 ? std::sqrt(Exact(Metric::kL2, query, centroid, kDim))
                                 : std::sqrt(-Exact(Metric::kDot, query, query, kDim));
            squared_scale_sum += r * v * r * v;
            ++count;
          }
        }
        const double rms = std::sqrt(squared_error_sum / count);
        const double relative = rms / std::sqrt(squared_scale_sum / count);
        std::cout << (dense ? "dense " : "structured ") << MetricName(metric) << " bits " << bits
                  << ": relative rms error " << relative << ", mean error " << error_sum / count
                  << " (rms " << rms << ")\n";
        // One bit: about 1 / √D of ‖r‖·‖v‖; each bit more about halves it.
        EXPECT_LT(relative, 0.25 / (1 << (bits - 1))) << "bits " << bits;
        EXPECT_LT(rms, previous_rms) << "bits " << bits;
        previous_rms = rms;
        if (bits == 1) {
          // Unbiased: the mean of 6,400 errors is a small part of their spread.
          EXPECT_LT(std::fabs(error_sum / count), 0.1 * rms) << MetricName(metric);
        }
      }
    }
  }
}

TEST(RabitQuantizer, RowsAtTheirCentroidScoreExactly) {
  auto rows = RandomVectors(kPartitions, kDim, 4);  // every row is a centroid
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, rows));
  ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, 1, 5));
  const Encoded encoded = Encode(rq, ivf, rows);
  const auto query = RandomVectors(1, kDim, 6);
  const auto scores = ScoreAll(rq, ivf, encoded, query.data());
  for (int i = 0; i < kPartitions; ++i) {
    EXPECT_NEAR(scores[i], Exact(Metric::kL2, query.data(), rows.data() + i * kDim, kDim),
                1e-4 * scores[i]);
  }
}

TEST(RabitQuantizer, RowsWithNaNOrInfinityScoreNaN) {
  auto rows = RandomVectors(6, kDim, 12);
  rows[1 * kDim + 3] = NAN;
  rows[3 * kDim + 0] = INFINITY;
  rows[5 * kDim + 44] = -INFINITY;
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, RandomVectors(1, kDim, 13)));
  const auto query = RandomVectors(1, kDim, 14);
  for (int bits : {1, 5}) {
    ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, bits, 15));
    Encoded encoded;
    encoded.rows = rows;
    encoded.partitions.assign(6, 0);
    encoded.codes.resize(6 * static_cast<size_t>(rq.code_size()));
    ASSERT_OK(rq.Encode(ivf, rows.data(), encoded.partitions.data(), 6, encoded.codes.data()));
    const auto scores = ScoreAll(rq, ivf, encoded, query.data());
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(std::isnan(scores[i]), i % 2 == 1) << "row " << i << " bits " << bits;
    }
  }
}

// Values near the float range (a damaged model's, a fuzzer found): the rotated query overflows.
// Its distances are unknown, so NaN, never undefined behaviour (UBSan runs this in `make test`).
TEST(RabitQuantizer, QueriesWhoseRotationOverflowsScoreNaN) {
  const std::vector<float> centroid(kDim, 3e38f);
  std::vector<float> rows = RandomVectors(4, kDim, 16);
  for (float& value : rows) value += 3e38f;  // rows at the centroid, as far as floats tell
  const std::vector<float> query(kDim, -3e38f);
  for (Metric metric : {Metric::kL2, Metric::kDot}) {
    ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(metric, kDim, centroid));
    for (int bits : {1, 4}) {
      ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, bits, 17));
      rq.PrepareSearch(ivf);
      const Encoded encoded = Encode(rq, ivf, rows);
      for (float score : ScoreAll(rq, ivf, encoded, query.data())) {
        EXPECT_TRUE(std::isnan(score)) << MetricName(metric) << " bits " << bits << ": " << score;
      }
    }
  }
}

// A model made by hand whose "rotation" is all zeros (checksummed, so not damage): encoding and
// scoring stay defined (UBSan) and every score is a number.
TEST(RabitQuantizer, AZeroRotationEncodesAndScoresWithoutUndefinedBehaviour) {
  std::string bytes = DenseRotationBytes(kDim, 4, 18);
  std::fill(bytes.begin() + 12, bytes.end(), '\0');
  ASSERT_OK_AND_ASSIGN(auto zero, RabitQuantizer::Deserialize(bytes, kDim, "test"));
  const auto rows = RandomVectors(20, kDim, 19);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, RandomVectors(1, kDim, 20)));
  const Encoded encoded = Encode(zero, ivf, rows);
  const auto query = RandomVectors(1, kDim, 21);
  for (float score : ScoreAll(zero, ivf, encoded, query.data())) EXPECT_TRUE(std::isfinite(score));
}

TEST(RabitQuantizer, PrecomputedRotatedCentroidsScoreTheSame) {
  const auto rows = RandomVectors(kRows, kDim, 7);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim,
                                                {rows.begin(), rows.begin() + kPartitions * kDim}));
  ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, 3, 8));
  const Encoded encoded = Encode(rq, ivf, rows);
  const auto query = RandomVectors(1, kDim, 9);
  const auto alone = ScoreAll(rq, ivf, encoded, query.data());
  rq.PrepareSearch(ivf);
  EXPECT_EQ(ScoreAll(rq, ivf, encoded, query.data()), alone);
}

TEST(RabitQuantizer, CodesDoNotDependOnTheThreadCount) {
  const auto rows = RandomVectors(3000, kDim, 10);
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim,
                                                {rows.begin(), rows.begin() + kPartitions * kDim}));
  ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, 4, 11));
  const Encoded parallel = Encode(rq, ivf, rows);
  // Inside a loop body every nested ParallelFor runs on the calling thread: a serial reference.
  std::vector<uint8_t> serial;
  ASSERT_OK(util::ParallelFor(1, [&](int64_t, int64_t) -> arrow::Status {
    serial = Encode(rq, ivf, rows).codes;
    return arrow::Status::OK();
  }));
  EXPECT_EQ(parallel.codes, serial);
}

TEST(RabitQuantizer, BadParametersAndDamagedBytesAreRejected) {
  for (int bits : {0, 9}) {
    auto made = RabitQuantizer::Make(kDim, bits, 1);
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(KindOf(made.status()), ErrorKind::kInvalidArgument);
  }
  for (int dim : {0, kMaxRabitDimension + 1}) {
    auto made = RabitQuantizer::Make(dim, 1, 1);
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(KindOf(made.status()), ErrorKind::kInvalidArgument);
    EXPECT_NE(made.status().message().find("IVF_PQ"), std::string::npos);
  }
  ASSERT_OK_AND_ASSIGN(auto rq, RabitQuantizer::Make(kDim, 2, 1));
  const std::string bytes = rq.Serialize();
  EXPECT_EQ(bytes.size(), 12 + StructuredRotation::SerializedBytes(64));
  ASSERT_OK_AND_ASSIGN(auto restored, RabitQuantizer::Deserialize(bytes, kDim, "test"));
  EXPECT_EQ(restored.Serialize(), bytes);
  EXPECT_EQ(restored.bits(), 2);
  const std::string dense = DenseRotationBytes(kDim, 2, 1);
  ASSERT_OK_AND_ASSIGN(auto old, RabitQuantizer::Deserialize(dense, kDim, "test"));
  EXPECT_EQ(old.Serialize(), dense);

  std::string nine_bits = bytes;
  nine_bits[8] = 9;
  std::string not_finite = dense;
  const float nan = NAN;
  std::memcpy(not_finite.data() + 12 + 4 * 5, &nan, sizeof(nan));
  std::string dense_flagged = dense;  // a dense rotation's bytes under the structured flag
  dense_flagged[10] = 1;
  std::string structured_unflagged = bytes;
  structured_unflagged[10] = 0;
  for (const auto& [damaged, dim] :
       std::vector<std::pair<std::string, int>>{{bytes, kDim + 1},
                                                {bytes.substr(0, bytes.size() - 4), kDim},
                                                {dense.substr(0, dense.size() - 4), kDim},
                                                {nine_bits, kDim},
                                                {not_finite, kDim},
                                                {dense_flagged, kDim},
                                                {structured_unflagged, kDim},
                                                {"", kDim}}) {
    auto read = RabitQuantizer::Deserialize(damaged, dim, "model.bin");
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(KindOf(read.status()), ErrorKind::kCorrupt);
    EXPECT_NE(read.status().message().find("model.bin"), std::string::npos);
  }
}

// A model records the oldest format version that reads it: 2 with the structured rotation, 1
// with a dense one (readers of version 1 still read those). A version newer than this build's is
// Unsupported, not damage; version 0 is damage.
TEST(RabitQuantizer, ModelsRecordTheOldestFormatVersionThatReadsThem) {
  ASSERT_OK_AND_ASSIGN(auto ivf, IvfModel::Make(Metric::kL2, kDim, RandomVectors(2, kDim, 22)));
  for (bool dense : {false, true}) {
    IvfQuantizedModel model;
    model.ivf = ivf;
    model.kind = QuantizerKind::kRabit;
    model.quantizer = std::make_shared<RabitQuantizer>(MakeQuantizer(dense, kDim, 1, 23));
    const std::string bytes = model.Serialize();
    uint32_t version = 0;
    std::memcpy(&version, bytes.data() + 8, sizeof(version));
    EXPECT_EQ(version, dense ? 1u : 2u);
    ASSERT_OK_AND_ASSIGN(auto read,
                         IvfQuantizedModel::Deserialize(bytes, QuantizerKind::kRabit, "m.bin"));
    EXPECT_EQ(read.Serialize(), bytes);
    for (uint32_t other : {0u, 3u}) {
      std::string changed = bytes;
      std::memcpy(changed.data() + 8, &other, sizeof(other));
      const uint32_t crc = io::Crc32c(changed.data(), changed.size() - 4);
      std::memcpy(changed.data() + changed.size() - 4, &crc, sizeof(crc));
      auto refused = IvfQuantizedModel::Deserialize(changed, QuantizerKind::kRabit, "m.bin");
      ASSERT_FALSE(refused.ok());
      EXPECT_EQ(KindOf(refused.status()),
                other == 0 ? ErrorKind::kCorrupt : ErrorKind::kUnsupported)
          << refused.status().ToString();
      EXPECT_NE(refused.status().message().find("m.bin"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace tessera::index::vector::rabit_quantizer_test
