// query::Nearest: with every partition probed, the answer is exactly the brute-force one — with
// partly indexed tables, deletions, each metric and each IVF family, filters, distance ranges
// and offsets. Quantized families (IVF_SQ, IVF_PQ) are exact when refinement re-ranks every
// candidate (refine_factor × k at least the row count): distances are then vector::Distance.
#include "tessera/query/nearest.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/brute_force.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::query::nearest_test {
namespace {

using index::vector::Metric;
using testing::ReaderOf;
using testing::TempDirectory;

constexpr int kDim = 16;
constexpr int kPartitions = 8;

struct Hit {
  uint64_t address;
  float distance;
  bool operator==(const Hit& other) const {
    // Bit-equal distances: the index and the exact scan compute them with one function.
    return address == other.address && distance == other.distance;
  }
};

std::ostream& operator<<(std::ostream& stream, const Hit& hit) {
  return stream << "(" << hit.address << ", " << hit.distance << ")";
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

dataset::WriteOptions Files() {
  dataset::WriteOptions options;
  options.max_rows_per_file = 400;
  options.rows_per_batch = 128;
  return options;
}

// Re-ranks every candidate of a quantized segment by exact distance: (k + offset) × this is
// more than the rows of every test table.
constexpr int kFullRefine = 2000;

index::IndexSpec IvfSpec(const std::string& name, Metric metric,
                         const std::string& family = "IVF_FLAT") {
  index::IndexSpec spec;
  spec.name = name;
  spec.column = "vector";
  spec.family = family;
  spec.params = {{"metric", std::string(index::vector::MetricName(metric))},
                 {"num_partitions", std::to_string(kPartitions)},
                 {"max_iters", "10"}};
  if (family == "IVF_PQ") spec.params["num_sub_vectors"] = "4";
  return spec;
}

// Every live row passing `filter` with a non-null vector, by (distance, row address).
std::vector<Hit> BruteForce(const dataset::Dataset& data, const std::string& column,
                            const std::vector<float>& query, Metric metric,
                            const std::string& filter = "") {
  std::vector<Hit> hits;
  for (const auto& row : testing::BruteForceNearest(data, column, query, metric, filter)) {
    hits.push_back({row.row_address, row.distance});
  }
  return hits;
}

std::vector<Hit> Window(const std::vector<Hit>& hits, size_t offset, size_t k,
                        std::optional<float> lower = {}, std::optional<float> upper = {}) {
  std::vector<Hit> in_range;
  for (const auto& hit : hits) {
    if (lower && !(hit.distance >= *lower)) continue;
    if (upper && !(hit.distance < *upper)) continue;
    in_range.push_back(hit);
  }
  std::vector<Hit> window;
  for (size_t i = offset; i < in_range.size() && window.size() < k; ++i) {
    window.push_back(in_range[i]);
  }
  return window;
}

std::vector<Hit> HitsOf(const arrow::Table& table) {
  auto batch = table.CombineChunksToBatch().ValueOrDie();
  const auto& distances =
      static_cast<const arrow::FloatArray&>(*batch->GetColumnByName(kDistanceColumn));
  const auto& addresses =
      static_cast<const arrow::UInt64Array&>(*batch->GetColumnByName(dataset::kRowAddressColumn));
  std::vector<Hit> hits;
  for (int64_t row = 0; row < batch->num_rows(); ++row) {
    hits.push_back({addresses.Value(row), distances.Value(row)});
  }
  return hits;
}

std::vector<std::vector<float>> Queries(int count, uint64_t seed) {
  auto flat = synthetic::MakeQueryVectorsFlat(Embeddings(0, seed), count).ValueOrDie();
  std::vector<std::vector<float>> queries;
  for (int i = 0; i < count; ++i) {
    queries.emplace_back(flat.begin() + i * kDim, flat.begin() + (i + 1) * kDim);
  }
  return queries;
}

// 1200 rows in 3 fragments indexed with `metric`, then 400 unindexed rows, then deletions in
// both parts.
std::shared_ptr<dataset::Dataset> PartlyIndexed(const std::string& uri, Metric metric,
                                                const std::string& family = "IVF_FLAT") {
  auto data = dataset::Dataset::Create(
                  uri, synthetic::MakeEmbeddingReader(Embeddings(1200, 11)).ValueOrDie(), Files())
                  .ValueOrDie();
  auto created = index::CreateIndex(*data, IvfSpec("vec_idx", metric, family));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  data = *created;
  data = data->Append(synthetic::MakeEmbeddingReader(Embeddings(400, 12)).ValueOrDie(), Files())
             .ValueOrDie();
  data = data->Delete("id >= 100 AND id < 160").ValueOrDie();  // both parts: ids repeat
  data = data->Delete("price > 70").ValueOrDie();
  return data;
}

using FamilyAndMetric = std::tuple<std::string, Metric>;

class QueryNearestMetric : public ::testing::TestWithParam<FamilyAndMetric> {
 protected:
  const std::string& family() const { return std::get<0>(GetParam()); }
  Metric metric() const { return std::get<1>(GetParam()); }
};

TEST_P(QueryNearestMetric, AllPartitionsProbedEqualsBruteForce) {
  const Metric metric = this->metric();
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), metric, family());
  ASSERT_EQ(data->manifest().fragments_size(), 4);
  for (const auto& query : Queries(6, 99)) {
    const auto expected = BruteForce(*data, "vector", query, metric);
    NearestOptions options;
    options.column = "vector";
    options.query = query;
    options.nprobes = kPartitions;
    options.refine_factor = kFullRefine;
    options.with_row_address = true;
    Explain explain;
    ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options, &explain));
    EXPECT_EQ(HitsOf(*table), Window(expected, 0, 10)) << explain.ToString();
    const std::string text = explain.ToString();
    EXPECT_NE(text.find("fragments [0..2]: " + family() + " index 'vec_idx' segment"),
              std::string::npos)
        << text;
    if (family() != "IVF_FLAT") {
      EXPECT_NE(text.find("k × " + std::to_string(kFullRefine) +
                          " candidates re-ranked by exact distance"),
                std::string::npos)
          << text;
    }
    EXPECT_NE(text.find("fragment 3: exact distance (unindexed)"), std::string::npos) << text;
    EXPECT_NE(text.find("metric " + std::string(index::vector::MetricName(metric))),
              std::string::npos)
        << text;

    // Offsets and distance ranges are applied inside the search.
    options.k = 25;
    options.offset = 7;
    ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options));
    EXPECT_EQ(HitsOf(*table), Window(expected, 7, 25));
    const float lower = expected[3].distance;
    const float upper = expected[40].distance;
    options.lower_distance = lower;
    options.upper_distance = upper;
    options.offset = 2;
    options.k = 100;
    ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options));
    EXPECT_EQ(HitsOf(*table), Window(expected, 2, 100, lower, upper));
  }
}

TEST_P(QueryNearestMetric, PrefilterReturnsKRowsWheneverKPass) {
  const Metric metric = this->metric();
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), metric, family());
  // A BTREE on price answers the prefilter on the fragments it covers.
  index::IndexSpec price{"price_idx", "price", "BTREE", {}};
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, price));
  const auto queries = Queries(4, 5);
  for (const std::string filter :
       {"price < 15", "price < 4 AND category != 'books'", "category = 'beauty'", "id = 5"}) {
    for (const auto& query : queries) {
      const auto expected = BruteForce(*data, "vector", query, metric, filter);
      NearestOptions options;
      options.column = "vector";
      options.query = query;
      options.k = 12;
      options.filter = filter;
      options.prefilter = true;
      options.refine_factor = kFullRefine;
      options.with_row_address = true;
      // Every partition: exact.
      options.nprobes = kPartitions;
      Explain explain;
      ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options, &explain));
      EXPECT_EQ(HitsOf(*table), Window(expected, 0, 12)) << filter << "\n" << explain.ToString();
      EXPECT_NE(explain.ToString().find("prefilter"), std::string::npos) << explain.ToString();
      // One partition: still k rows whenever k pass.
      options.nprobes = 1;
      explain = Explain();
      ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options, &explain));
      if (filter == "id = 5") {
        // Two rows pass: computing their distances beats probing the index.
        EXPECT_NE(explain.ToString().find("fragments [0..2]: exact distance over the prefiltered "
                                          "rows (fewer than index 'vec_idx' would probe)"),
                  std::string::npos)
            << explain.ToString();
      }
      EXPECT_EQ(static_cast<size_t>(table->num_rows()), std::min<size_t>(12, expected.size()))
          << filter;
      for (const auto& hit : HitsOf(*table)) {
        EXPECT_NE(std::find(expected.begin(), expected.end(), hit), expected.end()) << filter;
      }
    }
  }
}

TEST_P(QueryNearestMetric, SeveralSegmentsAndUnindexedFragmentsEqualBruteForce) {
  const Metric metric = this->metric();
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), metric, family());
  // The unindexed fragment becomes a delta segment of the same model; one more fragment stays
  // unindexed; deletions land in every part.
  index::OptimizeOptions delta;
  delta.merge.kind = index::MergePolicy::Kind::kNone;
  ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*data, delta));
  data = report.dataset;
  ASSERT_OK_AND_ASSIGN(
      data,
      data->Append(synthetic::MakeEmbeddingReader(Embeddings(300, 13)).ValueOrDie(), Files()));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id >= 200 AND id < 230"));
  ASSERT_OK_AND_ASSIGN(auto described, index::DescribeIndex(*data, "vec_idx"));
  ASSERT_EQ(described.segments.size(), 2u);
  ASSERT_EQ(described.unindexed_fragments, 1u);

  NearestOptions options;
  options.column = "vector";
  options.k = 15;
  options.nprobes = kPartitions;
  options.refine_factor = kFullRefine;
  ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(*data, options));
  double recall = 0;
  const auto queries = Queries(8, 41);
  for (const auto& query : queries) {
    const auto expected = BruteForce(*data, "vector", query, metric);
    // Every partition probed and every candidate re-ranked: exact.
    ASSERT_OK_AND_ASSIGN(auto exact, prepared->Search(query.data()));
    std::vector<Hit> hits;
    for (const auto& row : exact) hits.push_back({row.row_address, row.distance});
    EXPECT_EQ(hits, Window(expected, 0, 15));
    // Half of the partitions with a modest refinement: most of the true neighbours (dot, whose
    // partitions serve inner products less well, finds the fewest).
    NearestKnobs knobs;
    knobs.nprobes = kPartitions / 2;
    knobs.refine_factor = 4;
    ASSERT_OK_AND_ASSIGN(auto approximate, prepared->Search(query.data(), knobs));
    std::vector<index::ScoredRow> truth;
    for (const auto& hit : expected) truth.push_back({hit.address, hit.distance});
    recall += testing::RecallAt(15, approximate, truth);
  }
  EXPECT_GE(recall / static_cast<double>(queries.size()), 0.7) << family();
}

TEST_P(QueryNearestMetric, PostfilterFiltersTheNearestRows) {
  const Metric metric = this->metric();
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), metric, family());
  dataset::ScanOptions passing;
  passing.columns = {"id"};
  passing.filter = "price < 20";
  passing.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto passing_table, data->ScanToTable(passing));
  std::set<uint64_t> pass;
  auto passing_batch = passing_table->CombineChunksToBatch().ValueOrDie();
  for (int64_t row = 0; row < passing_batch->num_rows(); ++row) {
    pass.insert(static_cast<const arrow::UInt64Array&>(*passing_batch->column(1)).Value(row));
  }
  for (const auto& query : Queries(4, 8)) {
    const auto all = BruteForce(*data, "vector", query, metric);
    NearestOptions options;
    options.column = "vector";
    options.query = query;
    options.k = 20;
    options.offset = 3;
    options.nprobes = kPartitions;
    options.filter = "price < 20";
    options.refine_factor = kFullRefine;
    options.with_row_address = true;
    ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options));
    std::vector<Hit> expected;
    for (const auto& hit : Window(all, 3, 20)) {
      if (pass.count(hit.address) > 0) expected.push_back(hit);
    }
    EXPECT_EQ(HitsOf(*table), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    QueryNearest, QueryNearestMetric,
    ::testing::Combine(::testing::Values("IVF_FLAT", "IVF_SQ", "IVF_PQ", "IVF_RQ"),
                       ::testing::Values(Metric::kL2, Metric::kCosine, Metric::kDot)),
    [](const ::testing::TestParamInfo<FamilyAndMetric>& info) {
      return std::get<0>(info.param) + "_" +
             std::string(index::vector::MetricName(std::get<1>(info.param)));
    });

TEST(QueryNearest, IndexesOfAnotherMetricAreNotUsed) {
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), Metric::kCosine);
  const auto query = Queries(1, 3)[0];
  NearestOptions options;
  options.column = "vector";
  options.query = query;
  options.nprobes = kPartitions;
  options.with_row_address = true;

  // The default metric is the index's.
  Explain explain;
  ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options, &explain));
  EXPECT_EQ(HitsOf(*table), Window(BruteForce(*data, "vector", query, Metric::kCosine), 0, 10));
  EXPECT_NE(explain.ToString().find("metric cosine (of index 'vec_idx')"), std::string::npos)
      << explain.ToString();

  options.metric = Metric::kL2;
  explain = Explain();
  ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options, &explain));
  EXPECT_EQ(HitsOf(*table), Window(BruteForce(*data, "vector", query, Metric::kL2), 0, 10));
  const std::string text = explain.ToString();
  EXPECT_NE(text.find("index 'vec_idx' not used: metric cosine differs from query metric l2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fragments [0..2]: exact distance (its index has another metric)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fragment 3: exact distance (unindexed)"), std::string::npos) << text;

  // A second index with the query's metric is used where it covers fragments.
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, IvfSpec("vec_l2", Metric::kL2)));
  explain = Explain();
  ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options, &explain));
  EXPECT_EQ(HitsOf(*table), Window(BruteForce(*data, "vector", query, Metric::kL2), 0, 10));
  EXPECT_NE(explain.ToString().find("fragments [0..3]: IVF_FLAT index 'vec_l2'"), std::string::npos)
      << explain.ToString();
}

TEST(QueryNearest, ProjectionAndOutputColumns) {
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), Metric::kL2);
  NearestOptions options;
  options.column = "vector";
  options.query = Queries(1, 4)[0];
  options.k = 5;
  options.columns = {"price", "id"};
  ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options));
  ASSERT_EQ(table->num_columns(), 3);
  EXPECT_EQ(table->schema()->field(0)->name(), "price");
  EXPECT_EQ(table->schema()->field(1)->name(), "id");
  EXPECT_EQ(table->schema()->field(2)->name(), kDistanceColumn);
  EXPECT_TRUE(table->schema()->field(2)->type()->Equals(arrow::float32()));
  EXPECT_EQ(table->num_rows(), 5);

  // A range nothing falls in returns an empty table of the same schema.
  options.lower_distance = -2.0f;
  options.upper_distance = -1.0f;
  ASSERT_OK_AND_ASSIGN(auto empty, Nearest(*data, options));
  EXPECT_EQ(empty->num_rows(), 0);
  EXPECT_TRUE(empty->schema()->Equals(*table->schema()));
}

// Vectors that are null (the list, or an element) are never returned, indexed or not.
TEST(QueryNearest, NullVectorsAreSkipped) {
  auto batch = [](int64_t first, int64_t rows) {
    arrow::Int64Builder ids;
    auto values = std::make_shared<arrow::FloatBuilder>();
    arrow::FixedSizeListBuilder vectors(arrow::default_memory_pool(), values, 4);
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t id = first + row;
      EXPECT_OK(ids.Append(id));
      if (id % 5 == 2) {
        EXPECT_OK(vectors.AppendNull());
        continue;
      }
      EXPECT_OK(vectors.Append());
      for (int i = 0; i < 4; ++i) {
        if (id % 7 == 3 && i == 1) {
          EXPECT_OK(values->AppendNull());
        } else {
          EXPECT_OK(values->Append(static_cast<float>((id * (i + 3)) % 17) - 8.0f));
        }
      }
    }
    auto schema =
        arrow::schema({arrow::field("id", arrow::int64()),
                       arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 4))});
    return arrow::RecordBatch::Make(schema, rows,
                                    {ids.Finish().ValueOrDie(), vectors.Finish().ValueOrDie()});
  };
  TempDirectory directory;
  dataset::WriteOptions write;
  write.max_rows_per_file = 60;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(directory.Child("nulls"),
                                                           ReaderOf(batch(0, 120)), write));
  index::IndexSpec spec;
  spec.name = "v";
  spec.column = "vector";
  spec.family = "IVF_FLAT";
  spec.params = {{"num_partitions", "3"}};
  ASSERT_OK_AND_ASSIGN(data, index::CreateIndex(*data, spec));
  ASSERT_OK_AND_ASSIGN(data, data->Append(ReaderOf(batch(120, 60)), write));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id = 10 OR id = 130"));
  NearestOptions options;
  options.column = "vector";
  options.query = {1.0f, -2.0f, 0.5f, 3.0f};
  options.k = 1000;
  options.nprobes = 3;
  options.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options));
  const auto expected = BruteForce(*data, "vector", options.query, Metric::kL2);
  EXPECT_EQ(HitsOf(*table), expected);
  EXPECT_LT(expected.size(), 178u);  // nulls and deletions left out
}

// k, offset, nprobes and refine_factor far beyond the data (up to their types' limits) are
// legal: they are capped by the rows the version holds before anything is sized by them, so a
// search returns at most every row, exactly, and never runs out of memory or overflows.
TEST(QueryNearest, HugeKnobsAreCappedByTheRows) {
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), Metric::kL2, "IVF_PQ");
  const auto queries = Queries(6, 21);
  NearestOptions options;
  options.column = "vector";
  options.with_row_address = true;
  for (const auto& query : queries) {
    const auto expected = BruteForce(*data, "vector", query, Metric::kL2);
    options.query = query;
    // Every row, re-ranked exactly: (2^31 - 1) × (2^31 - 1) candidates capped at the rows.
    options.k = INT_MAX;
    options.nprobes = INT_MAX;
    options.refine_factor = INT_MAX;
    ASSERT_OK_AND_ASSIGN(auto table, Nearest(*data, options));
    EXPECT_EQ(HitsOf(*table), expected);
    // k × refine_factor just below 2^31 (the probe of issue 9): the exact top 3.
    options.k = 3;
    options.refine_factor = 715827882;
    ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options));
    EXPECT_EQ(HitsOf(*table), Window(expected, 0, 3));
    // k + offset beyond int64: nothing is left after the offset.
    options.k = INT64_MAX;
    options.offset = INT64_MAX;
    options.refine_factor = 1;
    ASSERT_OK_AND_ASSIGN(table, Nearest(*data, options));
    EXPECT_EQ(table->num_rows(), 0);
    options.offset = 0;
  }

  // The same as a batch, in parallel over the queries (TESSERA_NUM_THREADS workers).
  options.query.clear();
  options.nprobes = kPartitions;
  ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(*data, options));
  std::vector<float> flat;
  for (const auto& query : queries) flat.insert(flat.end(), query.begin(), query.end());
  for (const NearestKnobs knobs : {NearestKnobs{INT_MAX, INT_MAX, INT_MAX},
                                   NearestKnobs{3, -1, 715827882}, NearestKnobs{INT_MAX, 1, 1}}) {
    ASSERT_OK_AND_ASSIGN(auto found, prepared->SearchBatch(flat.data(), 6, knobs));
    ASSERT_EQ(found.size(), queries.size());
    for (size_t q = 0; q < queries.size(); ++q) {
      const auto expected = BruteForce(*data, "vector", queries[q], Metric::kL2);
      if (knobs.refine_factor > 1) {
        std::vector<Hit> hits;
        for (const auto& row : found[q]) hits.push_back({row.row_address, row.distance});
        EXPECT_EQ(hits, Window(expected, 0, static_cast<size_t>(knobs.k)));
      } else {
        // Approximate distances, but every live row with a vector, once.
        EXPECT_EQ(found[q].size(), expected.size());
      }
    }
  }
}

TEST(QueryNearest, MaterializingABatchOpensEachDataFileOnce) {
  // Materialize runs once per query of a batch; the rows come through the snapshot's open
  // fragments, so a data file is opened (mapped, its checksums decoded) once for the batch, not
  // once per query.
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), Metric::kL2, "IVF_FLAT");
  const auto queries = Queries(20, 5);
  NearestOptions options;
  options.column = "vector";
  options.k = 5;
  options.nprobes = kPartitions;
  ASSERT_OK_AND_ASSIGN(auto prepared, PreparedNearest::Make(*data, options));
  std::vector<float> flat;
  for (const auto& query : queries) flat.insert(flat.end(), query.begin(), query.end());
  ASSERT_OK_AND_ASSIGN(auto found, prepared->SearchBatch(flat.data(), 20));
  auto& statistics = dataset::GlobalReadStatistics();
  statistics.Reset();
  for (size_t q = 0; q < queries.size(); ++q) {
    ASSERT_OK_AND_ASSIGN(auto table, prepared->Materialize(found[q]));
    ASSERT_EQ(table->num_rows(), 5);
  }
  EXPECT_LE(statistics.data_files_opened.load(),
            static_cast<uint64_t>(data->manifest().fragments_size()));
}

TEST(QueryNearest, InvalidArgumentsAreRejectedClearly) {
  TempDirectory directory;
  auto data = PartlyIndexed(directory.Child("vectors"), Metric::kL2);
  auto expect_invalid = [&](NearestOptions options, const std::string& words) {
    auto result = Nearest(*data, options);
    ASSERT_FALSE(result.ok()) << words;
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument) << result.status().ToString();
    EXPECT_NE(result.status().message().find(words), std::string::npos)
        << result.status().ToString();
  };
  NearestOptions good;
  good.column = "vector";
  good.query = Queries(1, 1)[0];

  NearestOptions options = good;
  options.column = "vectr";
  expect_invalid(options, "no column 'vectr'");
  options = good;
  options.column = "price";
  expect_invalid(options, "not a vector column");
  options = good;
  options.query.pop_back();
  expect_invalid(options, "15 dimensions");
  options = good;
  options.k = 0;
  expect_invalid(options, "k must be at least 1");
  options = good;
  options.nprobes = 0;
  expect_invalid(options, "nprobes");
  options = good;
  options.offset = -1;
  expect_invalid(options, "offset");
  options = good;
  options.query[2] = std::nanf("");
  expect_invalid(options, "finite");
  options = good;
  options.columns = {"id", "nope"};
  expect_invalid(options, "nope");
  options = good;
  options.filter = "price <";
  auto result = Nearest(*data, options);
  EXPECT_FALSE(result.ok());
}

}  // namespace
}  // namespace tessera::query::nearest_test
