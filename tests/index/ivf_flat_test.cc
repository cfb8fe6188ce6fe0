// The IVF_FLAT family (index/vector/ivf_family.h): parameters, training, builds over
// float32 and float16 columns, exactness against brute force when every partition is probed
// (all metrics, with accept filters and distance ranges), recall at few probes, merging, and
// the errors of bad inputs.
#include "tessera/index/vector/ivf_family.h"
#include "tessera/index/vector/ivf_partitions.h"

#include <arrow/api.h>
#include <arrow/util/float16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/distance.h"
#include "tessera/index/vector_segment.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::index::vector::ivf_flat_test {
namespace {

using dataset::Dataset;
using testing::TempDirectory;

constexpr int kDim = 16;
constexpr int kRows = 1200;
constexpr int kQueries = 40;

// Row i is null when i % 13 == 5; row i copies row i - 1 when i % 17 == 9, so distances tie.
bool IsNullRow(int64_t row) { return row % 13 == 5; }

struct TestData {
  std::shared_ptr<Dataset> dataset;
  std::vector<float> queries;  // kQueries × kDim
};

// A dataset of kRows clustered vectors in fragments of 300 rows and batches of 64.
TestData MakeData(const TempDirectory& directory, bool float16, const std::string& name = "ds") {
  synthetic::EmbeddingOptions options;
  options.dim = kDim;
  options.latent_dim = 8;
  options.clusters = 12;
  options.seed = 5;
  auto flat = synthetic::MakeQueryVectorsFlat(options, kRows + kQueries);
  EXPECT_TRUE(flat.ok()) << flat.status().ToString();
  std::vector<float> values(flat->begin(), flat->begin() + kRows * kDim);
  for (int64_t row = 0; row < kRows; ++row) {
    if (row % 17 == 9) {
      std::copy(values.begin() + (row - 1) * kDim, values.begin() + row * kDim,
                values.begin() + row * kDim);
    }
  }

  arrow::Int64Builder ids;
  std::shared_ptr<arrow::Array> elements;
  if (float16) {
    arrow::HalfFloatBuilder builder;
    for (float value : values) {
      EXPECT_TRUE(builder.Append(arrow::util::Float16::FromFloat(value).bits()).ok());
    }
    EXPECT_TRUE(builder.Finish(&elements).ok());
  } else {
    arrow::FloatBuilder builder;
    EXPECT_TRUE(builder.AppendValues(values).ok());
    EXPECT_TRUE(builder.Finish(&elements).ok());
  }
  arrow::TypedBufferBuilder<bool> validity;
  for (int64_t row = 0; row < kRows; ++row) {
    EXPECT_TRUE(ids.Append(row).ok());
    EXPECT_TRUE(validity.Append(!IsNullRow(row)).ok());
  }
  std::shared_ptr<arrow::Array> id_array;
  EXPECT_TRUE(ids.Finish(&id_array).ok());
  auto type = arrow::fixed_size_list(elements->type(), kDim);
  auto bitmap = validity.Finish().ValueOrDie();
  auto vectors = std::make_shared<arrow::FixedSizeListArray>(type, kRows, elements, bitmap);
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("vector", type)});
  auto batch = arrow::RecordBatch::Make(schema, kRows, {id_array, vectors});
  auto reader = arrow::RecordBatchReader::Make({batch}, schema).ValueOrDie();

  dataset::WriteOptions write;
  write.max_rows_per_file = 300;
  write.rows_per_batch = 64;
  auto created = Dataset::Create(directory.Child(name), reader, write);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return {*created, std::vector<float>(flat->begin() + kRows * kDim, flat->end())};
}

const IndexFamily& Family() {
  static const auto family = MakeIvfFlatFamily();
  return *family;
}

std::vector<format::Fragment> Fragments(const Dataset& dataset, size_t begin, size_t end) {
  const auto& all = dataset.manifest().fragments();
  return {all.begin() + static_cast<int>(begin),
          all.begin() + static_cast<int>(std::min<size_t>(end, all.size()))};
}

std::vector<format::Fragment> AllFragments(const Dataset& dataset) {
  return Fragments(dataset, 0, static_cast<size_t>(dataset.manifest().fragments_size()));
}

BuildInput MakeInput(const Dataset& dataset, std::vector<format::Fragment> fragments,
                     const Params& params) {
  BuildInput input;
  input.storage = dataset.storage();
  input.schema = dataset.schema();
  input.column_index = dataset.schema()->GetFieldIndex("vector");
  input.field_id = dataset.field_ids()[static_cast<size_t>(input.column_index)];
  input.dataset_version = dataset.version();
  input.fragments = std::move(fragments);
  input.index_name = "vector_idx";
  auto normalized = Family().Validate(*dataset.schema()->field(input.column_index), params);
  EXPECT_TRUE(normalized.ok()) << normalized.status().ToString();
  input.params = normalized.ok() ? *normalized : params;
  return input;
}

format::SegmentMeta BuildSegment(const BuildInput& input, const Model* model = nullptr) {
  auto directory = NewSegmentDirectory(input.storage);
  EXPECT_TRUE(directory.ok()) << directory.status().ToString();
  auto meta = Family().Build(input, model, *directory);
  EXPECT_TRUE(meta.ok()) << meta.status().ToString();
  return meta.ok() ? *meta : format::SegmentMeta{};
}

std::unique_ptr<SegmentReader> OpenSegment(const Dataset& dataset,
                                           const format::SegmentMeta& meta) {
  auto reader = Family().Open(meta, DirectoryOf(dataset.storage(), meta).ValueOrDie());
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? std::move(*reader) : nullptr;
}

struct Search {
  int k = 10;
  int nprobes = 1;
  const std::function<bool(uint64_t)>* accept = nullptr;
  std::optional<float> lower;
  std::optional<float> upper;
};

std::vector<ScoredRow> Ask(const SegmentReader& reader, const float* query, const Search& search) {
  VectorQuery request;
  request.vector = query;
  request.dim = kDim;
  request.k = search.k;
  request.nprobes = search.nprobes;
  request.accept = search.accept;
  request.lower_distance = search.lower;
  request.upper_distance = search.upper;
  auto rows = const_cast<SegmentReader&>(reader).AsVector()->Search(request);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<ScoredRow>{};
}

// The exact answer over all rows of the dataset, read through a scan (independent of the
// index code): vector::Distance on float32 (float16 converted), ties by row address.
std::vector<ScoredRow> BruteForce(const Dataset& dataset, Metric metric, const float* query,
                                  const Search& search) {
  dataset::ScanOptions options;
  options.columns = {"vector"};
  options.with_row_address = true;
  auto table = dataset.ScanToTable(options);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  auto combined = (*table)->CombineChunksToBatch().ValueOrDie();
  const auto& lists = static_cast<const arrow::FixedSizeListArray&>(*combined->column(0));
  const auto& addresses = static_cast<const arrow::UInt64Array&>(
      *combined->GetColumnByName(dataset::kRowAddressColumn));
  std::vector<ScoredRow> rows;
  std::vector<float> vector(kDim);
  for (int64_t i = 0; i < combined->num_rows(); ++i) {
    if (lists.IsNull(i)) continue;
    const int64_t start = lists.value_offset(i);
    for (int d = 0; d < kDim; ++d) {
      if (lists.values()->type_id() == arrow::Type::HALF_FLOAT) {
        const auto& halves = static_cast<const arrow::HalfFloatArray&>(*lists.values());
        vector[d] = arrow::util::Float16::FromBits(halves.Value(start + d)).ToFloat();
      } else {
        vector[d] = static_cast<const arrow::FloatArray&>(*lists.values()).Value(start + d);
      }
    }
    const float distance = Distance(metric, query, vector.data(), kDim);
    if (search.lower && distance < *search.lower) continue;
    if (search.upper && distance >= *search.upper) continue;
    if (search.accept != nullptr && !(*search.accept)(addresses.Value(i))) continue;
    rows.push_back({addresses.Value(i), distance});
  }
  std::sort(rows.begin(), rows.end(), [](const ScoredRow& a, const ScoredRow& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.row_address < b.row_address);
  });
  if (rows.size() > static_cast<size_t>(search.k)) rows.resize(static_cast<size_t>(search.k));
  return rows;
}

void ExpectSameRows(const std::vector<ScoredRow>& actual, const std::vector<ScoredRow>& expected,
                    const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].row_address, expected[i].row_address) << context << " rank " << i;
    // Bit-identical, not merely close.
    EXPECT_EQ(std::bit_cast<uint32_t>(actual[i].distance),
              std::bit_cast<uint32_t>(expected[i].distance))
        << context << " rank " << i;
  }
}

using DetailMap = std::map<std::string, std::string>;
DetailMap Details(const format::SegmentMeta& meta) {
  return DetailMap(meta.details().begin(), meta.details().end());
}

const float* Query(const TestData& data, int q) { return data.queries.data() + q * kDim; }

// --- parameters ---

TEST(IvfFlat, ValidateFillsDefaultsAndCanonicalSpelling) {
  auto field = arrow::field("embedding", arrow::fixed_size_list(arrow::float32(), 8));
  auto params = Family().Validate(*field, {});
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  EXPECT_EQ(*params, (Params{{"metric", "l2"},
                             {"num_partitions", "256"},
                             {"sample_rate", "256"},
                             {"max_iters", "50"},
                             {"seed", "42"}}));
  auto cosine = Family().Validate(*field, {{"metric", "COSINE"}, {"num_partitions", "064"}});
  ASSERT_TRUE(cosine.ok()) << cosine.status().ToString();
  EXPECT_EQ(cosine->at("metric"), "cosine");
  EXPECT_EQ(cosine->at("num_partitions"), "64");
  auto half = arrow::field("embedding", arrow::fixed_size_list(arrow::float16(), 8));
  EXPECT_TRUE(Family().Validate(*half, {{"metric", "dot"}}).ok());
  EXPECT_EQ(Family().name(), "IVF_FLAT");
  const IndexFamily* registered = FindFamily("ivf_flat");
  ASSERT_NE(registered, nullptr);
  EXPECT_EQ(registered->name(), "IVF_FLAT");
  EXPECT_TRUE(Family().has_model());
}

TEST(IvfFlat, ValidateRejectsBadParametersAndColumns) {
  auto field = arrow::field("embedding", arrow::fixed_size_list(arrow::float32(), 8));
  for (const Params& bad : std::vector<Params>{{{"metric", "hamming"}},
                                               {{"num_partitions", "0"}},
                                               {{"num_partitions", "65537"}},
                                               {{"num_partitions", "ten"}},
                                               {{"sample_rate", "0"}},
                                               {{"max_iters", "-1"}},
                                               {{"seed", "-5"}},
                                               {{"nprobes", "4"}}}) {
    auto result = Family().Validate(*field, bad);
    ASSERT_FALSE(result.ok()) << bad.begin()->first;
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument) << result.status().ToString();
    EXPECT_NE(result.status().message().find(bad.begin()->first), std::string::npos)
        << result.status().ToString();
  }
  for (const auto& type :
       {arrow::utf8(), arrow::float32(), arrow::fixed_size_list(arrow::int32(), 8),
        arrow::list(arrow::float32())}) {
    auto result = Family().Validate(*arrow::field("title", type), {});
    ASSERT_FALSE(result.ok()) << type->ToString();
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kUnsupported);
    EXPECT_NE(result.status().message().find("'title'"), std::string::npos)
        << result.status().ToString();
  }
}

// --- exactness ---

struct ExactCase {
  Metric metric;
  bool float16;
};

void PrintTo(const ExactCase& value, std::ostream* out) {
  *out << MetricName(value.metric) << (value.float16 ? " float16" : " float32");
}

class IvfFlatExact : public ::testing::TestWithParam<ExactCase> {};

TEST_P(IvfFlatExact, ProbingEveryPartitionEqualsBruteForce) {
  const ExactCase param = GetParam();
  TempDirectory directory;
  const TestData data = MakeData(directory, param.float16);
  const std::string metric(MetricName(param.metric));
  const BuildInput input =
      MakeInput(*data.dataset, AllFragments(*data.dataset),
                {{"metric", metric}, {"num_partitions", "8"}, {"sample_rate", "64"}});
  const format::SegmentMeta meta = BuildSegment(input);
  EXPECT_EQ(meta.family(), "IVF_FLAT");
  EXPECT_EQ(meta.num_rows(), static_cast<uint64_t>(kRows));
  EXPECT_EQ(meta.details().at("metric"), metric);
  EXPECT_EQ(meta.details().at("num_partitions"), "8");
  EXPECT_EQ(meta.details().at("dim"), std::to_string(kDim));
  int nulls = 0;
  for (int row = 0; row < kRows; ++row) nulls += IsNullRow(row);
  EXPECT_EQ(meta.details().at("num_vectors"), std::to_string(kRows - nulls));
  // The largest partition and its size over the mean, as the partitions file holds them.
  {
    const auto directory_of = DirectoryOf(data.dataset->storage(), meta).ValueOrDie();
    auto opened =
        IvfPartitions::Open(*directory_of.storage, directory_of.path + "/" + kIvfPartitionsFile,
                            PartitionLayout::Vectors(kDim), 8);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    const auto& partitions = *opened;
    int64_t largest = 0;
    for (int p = 0; p < 8; ++p) {
      ASSERT_OK(partitions->Verify(p));
      largest = std::max(largest, partitions->size(p));
    }
    EXPECT_EQ(meta.details().at("largest_partition"), std::to_string(largest));
    const double mean = static_cast<double>(kRows - nulls) / 8;
    EXPECT_NEAR(std::stod(meta.details().at("partition_imbalance")),
                static_cast<double>(largest) / mean, 0.005);
  }
  auto reader = OpenSegment(*data.dataset, meta);
  ASSERT_NE(reader, nullptr);
  ASSERT_NE(reader->AsVector(), nullptr);
  EXPECT_EQ(reader->AsVector()->metric(), param.metric);
  EXPECT_EQ(reader->AsVector()->dim(), kDim);

  const std::function<bool(uint64_t)> every_third = [](uint64_t row) { return row % 3 != 0; };
  for (int q = 0; q < 10; ++q) {
    const std::string context =
        metric + (param.float16 ? " float16" : " float32") + " query " + std::to_string(q);
    Search all;
    all.nprobes = 8;
    ExpectSameRows(Ask(*reader, Query(data, q), all),
                   BruteForce(*data.dataset, param.metric, Query(data, q), all), context);

    Search filtered = all;
    filtered.k = 25;
    filtered.accept = &every_third;
    ExpectSameRows(Ask(*reader, Query(data, q), filtered),
                   BruteForce(*data.dataset, param.metric, Query(data, q), filtered),
                   context + " filtered");

    // A range cutting through the middle of the ranking, bounds taken from real distances so
    // the half-open ends are exercised.
    Search everything = all;
    everything.k = kRows;
    const auto ranked = BruteForce(*data.dataset, param.metric, Query(data, q), everything);
    ASSERT_GT(ranked.size(), 60u);
    Search ranged = all;
    ranged.k = 20;
    ranged.lower = ranked[5].distance;
    ranged.upper = ranked[50].distance;
    ranged.accept = &every_third;
    ExpectSameRows(Ask(*reader, Query(data, q), ranged),
                   BruteForce(*data.dataset, param.metric, Query(data, q), ranged),
                   context + " ranged");

    // k beyond the row count returns every non-null row.
    const auto every_row = Ask(*reader, Query(data, q), everything);
    EXPECT_EQ(every_row.size(), static_cast<size_t>(kRows - nulls));
    ExpectSameRows(every_row, ranked, context + " all rows");
  }

  // A zero query ties every partition and, for cosine, every row.
  const std::vector<float> zero(kDim, 0.0f);
  Search all;
  all.nprobes = 8;
  all.k = 30;
  ExpectSameRows(Ask(*reader, zero.data(), all),
                 BruteForce(*data.dataset, param.metric, zero.data(), all), "zero query");

  // Fewer probes scan fewer rows: the index does not degenerate into a full scan.
  Search one = all;
  one.nprobes = 1;
  one.k = kRows;
  EXPECT_LT(Ask(*reader, Query(data, 0), one).size(), static_cast<size_t>(kRows - nulls) / 2);

  // An indexed vector as the query: its duplicate ties with it, and the lower address wins.
  const uint32_t fragment = data.dataset->manifest().fragments(0).id();
  const uint64_t original = dataset::MakeRowAddress(fragment, 8);
  const uint64_t copy = dataset::MakeRowAddress(fragment, 9);
  auto taken = data.dataset->Take({original}, {"vector"});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  const auto& lists = static_cast<const arrow::FixedSizeListArray&>(*(*taken)->column(0)->chunk(0));
  std::vector<float> stored(kDim);
  for (int d = 0; d < kDim; ++d) {
    const int64_t at = lists.value_offset(0) + d;
    stored[d] = param.float16
                    ? arrow::util::Float16::FromBits(
                          static_cast<const arrow::HalfFloatArray&>(*lists.values()).Value(at))
                          .ToFloat()
                    : static_cast<const arrow::FloatArray&>(*lists.values()).Value(at);
  }
  Search tie;
  tie.nprobes = 8;
  const auto tied = Ask(*reader, stored.data(), tie);
  ExpectSameRows(tied, BruteForce(*data.dataset, param.metric, stored.data(), tie), "tie");
  ASSERT_GE(tied.size(), 2u);
  if (param.metric == Metric::kL2) {
    EXPECT_EQ(tied[0].row_address, original);
    EXPECT_EQ(tied[1].row_address, copy);
  }
}

INSTANTIATE_TEST_SUITE_P(
    IvfFlat, IvfFlatExact,
    ::testing::Values(ExactCase{Metric::kL2, false}, ExactCase{Metric::kCosine, false},
                      ExactCase{Metric::kDot, false}, ExactCase{Metric::kL2, true},
                      ExactCase{Metric::kCosine, true}, ExactCase{Metric::kDot, true}),
    [](const ::testing::TestParamInfo<ExactCase>& info) {
      return std::string(MetricName(info.param.metric)) +
             (info.param.float16 ? "_float16" : "_float32");
    });

// --- recall ---

TEST(IvfFlat, RecallAtAQuarterOfThePartitions) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    const BuildInput input =
        MakeInput(*data.dataset, AllFragments(*data.dataset),
                  {{"metric", std::string(MetricName(metric))}, {"num_partitions", "16"}});
    auto reader = OpenSegment(*data.dataset, BuildSegment(input));
    ASSERT_NE(reader, nullptr);
    size_t found = 0;
    size_t wanted = 0;
    for (int q = 0; q < kQueries; ++q) {
      Search search;
      search.nprobes = 4;
      const auto approximate = Ask(*reader, Query(data, q), search);
      const auto exact = BruteForce(*data.dataset, metric, Query(data, q), search);
      std::set<uint64_t> truth;
      for (const auto& row : exact) truth.insert(row.row_address);
      for (const auto& row : approximate) found += truth.count(row.row_address);
      wanted += exact.size();
      // Whatever is found carries its exact distance, in order.
      EXPECT_TRUE(std::is_sorted(
          approximate.begin(), approximate.end(),
          [](const ScoredRow& a, const ScoredRow& b) { return a.distance < b.distance; }));
    }
    const double recall = static_cast<double>(found) / static_cast<double>(wanted);
    RecordProperty(std::string("recall_") + std::string(MetricName(metric)),
                   std::to_string(recall));
    EXPECT_GT(recall, metric == Metric::kDot ? 0.6 : 0.8) << MetricName(metric);
  }
}

// --- training ---

TEST(IvfFlat, TrainingIsDeterministicAndSegmentsCarryTheirModel) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  const BuildInput input = MakeInput(*data.dataset, AllFragments(*data.dataset),
                                     {{"num_partitions", "8"}, {"sample_rate", "32"}});
  auto first = Family().Train(input);
  auto second = Family().Train(input);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->family, "IVF_FLAT");
  EXPECT_EQ(first->fingerprint, second->fingerprint);
  EXPECT_EQ(first->bytes, second->bytes);
  EXPECT_EQ(first->fingerprint.size(), 16u);

  BuildInput reseeded = input;
  reseeded.params["seed"] = "7";
  auto other = Family().Train(reseeded);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->fingerprint, first->fingerprint);

  const format::SegmentMeta meta = BuildSegment(input, &*first);
  EXPECT_EQ(meta.model_fingerprint(), first->fingerprint);
  auto loaded = Family().LoadModel(meta, DirectoryOf(data.dataset->storage(), meta).ValueOrDie());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->fingerprint, first->fingerprint);
  EXPECT_EQ(loaded->bytes, first->bytes);

  // A build without a model trains the same one.
  EXPECT_EQ(BuildSegment(input).model_fingerprint(), first->fingerprint);
}

TEST(IvfFlat, FewerVectorsThanPartitionsUsesOnePartitionPerVector) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  // Fragment 0 holds 300 rows, 23 of them null.
  BuildInput input = MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1),
                               {{"num_partitions", "1000"}, {"max_iters", "3"}});
  const format::SegmentMeta meta = BuildSegment(input);
  int vectors = 0;
  for (int row = 0; row < 300; ++row) vectors += !IsNullRow(row);
  EXPECT_EQ(meta.details().at("num_partitions"), std::to_string(vectors));
  auto reader = OpenSegment(*data.dataset, meta);
  ASSERT_NE(reader, nullptr);
  Search search;
  search.k = 5;
  search.nprobes = 100000;  // more than there are partitions: all of them
  const auto rows = Ask(*reader, Query(data, 1), search);
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& row : rows) EXPECT_EQ(dataset::FragmentOf(row.row_address), 0u);
}

TEST(IvfFlat, ColumnsWithoutVectorsCannotTrainButTakeAModel) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  // Only null vectors: append a fragment of them.
  auto type = arrow::fixed_size_list(arrow::float32(), kDim);
  arrow::Int64Builder id_builder;
  ASSERT_TRUE(id_builder.AppendValues({5000, 5001, 5002}).ok());
  auto ids = id_builder.Finish().ValueOrDie();
  auto vectors = arrow::MakeArrayOfNull(type, 3).ValueOrDie();
  auto batch = arrow::RecordBatch::Make(data.dataset->schema(), 3, {ids, vectors});
  auto appended = data.dataset->Append(
      arrow::RecordBatchReader::Make({batch}, data.dataset->schema()).ValueOrDie());
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  const size_t count = static_cast<size_t>((*appended)->manifest().fragments_size());
  const BuildInput nulls =
      MakeInput(**appended, Fragments(**appended, count - 1, count), {{"num_partitions", "4"}});
  auto trained = Family().Train(nulls);
  ASSERT_FALSE(trained.ok());
  EXPECT_EQ(KindOf(trained.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(trained.status().message().find("'vector'"), std::string::npos);

  auto model =
      Family().Train(MakeInput(**appended, Fragments(**appended, 0, 1), {{"num_partitions", "4"}}));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const format::SegmentMeta meta = BuildSegment(nulls, &*model);
  EXPECT_EQ(meta.num_rows(), 3u);
  EXPECT_EQ(meta.details().at("num_vectors"), "0");
  auto reader = OpenSegment(**appended, meta);
  ASSERT_NE(reader, nullptr);
  Search search;
  search.nprobes = 4;
  EXPECT_TRUE(Ask(*reader, Query(data, 0), search).empty());
}

TEST(IvfFlat, BuildReadsOnlyItsFragmentsOnce) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/true);
  auto model = Family().Train(
      MakeInput(*data.dataset, AllFragments(*data.dataset), {{"num_partitions", "4"}}));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const BuildInput delta =
      MakeInput(*data.dataset, Fragments(*data.dataset, 2, 3), {{"num_partitions", "4"}});
  dataset::GlobalReadStatistics().rows_scanned = 0;
  const format::SegmentMeta meta = BuildSegment(delta, &*model);
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), 300u);
  auto covered = DecodeFragmentBitmap(meta);
  ASSERT_TRUE(covered.ok());
  EXPECT_EQ(covered->cardinality(), 1u);
  EXPECT_TRUE(covered->contains(data.dataset->manifest().fragments(2).id()));
  EXPECT_EQ(meta.num_rows(), 300u);
  EXPECT_GT(meta.size_bytes(), 300u * kDim * sizeof(float) / 2);
}

TEST(IvfFlat, BuildRejectsAModelThatDoesNotFit) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  const BuildInput l2 =
      MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1), {{"num_partitions", "4"}});
  auto model = Family().Train(l2);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const BuildInput cosine = MakeInput(*data.dataset, Fragments(*data.dataset, 1, 2),
                                      {{"num_partitions", "4"}, {"metric", "cosine"}});
  auto directory_out = NewSegmentDirectory(data.dataset->storage());
  ASSERT_TRUE(directory_out.ok());
  auto mismatched = Family().Build(cosine, &*model, *directory_out);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(KindOf(mismatched.status()), ErrorKind::kInvalidArgument);

  Model tampered = *model;
  tampered.bytes[20] ^= 1;
  auto damaged = Family().Build(l2, &tampered, *directory_out);
  ASSERT_FALSE(damaged.ok());
  Model foreign = *model;
  foreign.family = "IVF_PQ";
  EXPECT_FALSE(Family().Build(l2, &foreign, *directory_out).ok());
}

// --- merge ---

TEST(IvfFlat, MergedSegmentAnswersLikeOneSegmentOverAllFragments) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  const Params params{{"num_partitions", "8"}};
  const BuildInput all = MakeInput(*data.dataset, AllFragments(*data.dataset), params);
  auto model = Family().Train(all);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const format::SegmentMeta whole = BuildSegment(all, &*model);
  std::vector<format::SegmentMeta> parts = {
      BuildSegment(MakeInput(*data.dataset, Fragments(*data.dataset, 2, 4), params), &*model),
      BuildSegment(MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1), params), &*model),
      BuildSegment(MakeInput(*data.dataset, Fragments(*data.dataset, 1, 2), params), &*model)};
  std::vector<SegmentDirectory> directories;
  for (const auto& part : parts)
    directories.push_back(DirectoryOf(data.dataset->storage(), part).ValueOrDie());
  auto out = NewSegmentDirectory(data.dataset->storage());
  ASSERT_TRUE(out.ok());
  auto merged = Family().Merge(parts, directories, *out);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->uuid(), out->uuid);
  EXPECT_EQ(merged->model_fingerprint(), model->fingerprint);
  EXPECT_EQ(merged->num_rows(), whole.num_rows());
  EXPECT_EQ(Details(*merged), Details(whole));
  EXPECT_EQ(merged->fragment_bitmap(), whole.fragment_bitmap());
  EXPECT_EQ(merged->index_name(), whole.index_name());
  EXPECT_EQ(merged->field_id(), whole.field_id());
  EXPECT_EQ(merged->dataset_version(), whole.dataset_version());
  EXPECT_EQ(merged->size_bytes(), whole.size_bytes());

  auto merged_reader = OpenSegment(*data.dataset, *merged);
  auto whole_reader = OpenSegment(*data.dataset, whole);
  ASSERT_NE(merged_reader, nullptr);
  ASSERT_NE(whole_reader, nullptr);
  const std::function<bool(uint64_t)> odd = [](uint64_t row) { return row % 2 == 1; };
  for (int q = 0; q < kQueries; ++q) {
    for (int nprobes : {1, 3, 8}) {
      Search search;
      search.k = 15;
      search.nprobes = nprobes;
      search.accept = q % 2 == 0 ? &odd : nullptr;
      ExpectSameRows(Ask(*merged_reader, Query(data, q), search),
                     Ask(*whole_reader, Query(data, q), search),
                     "query " + std::to_string(q) + " nprobes " + std::to_string(nprobes));
    }
  }
  auto loaded = Family().LoadModel(*merged, *out);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->bytes, model->bytes);
}

TEST(IvfFlat, MergeRefusesSegmentsOfDifferentModels) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  const format::SegmentMeta a = BuildSegment(
      MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1), {{"num_partitions", "4"}}));
  const format::SegmentMeta b = BuildSegment(
      MakeInput(*data.dataset, Fragments(*data.dataset, 1, 2), {{"num_partitions", "4"}}));
  ASSERT_NE(a.model_fingerprint(), b.model_fingerprint());
  auto out = NewSegmentDirectory(data.dataset->storage());
  ASSERT_TRUE(out.ok());
  auto merged = Family().Merge({a, b},
                               {DirectoryOf(data.dataset->storage(), a).ValueOrDie(),
                                DirectoryOf(data.dataset->storage(), b).ValueOrDie()},
                               *out);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(KindOf(merged.status()), ErrorKind::kUnsupported);
  EXPECT_NE(merged.status().message().find("different models"), std::string::npos);
  EXPECT_NE(merged.status().message().find("retrain"), std::string::npos);

  // Overlapping fragments are refused too.
  auto overlapping = Family().Merge({a, a},
                                    {DirectoryOf(data.dataset->storage(), a).ValueOrDie(),
                                     DirectoryOf(data.dataset->storage(), a).ValueOrDie()},
                                    *out);
  ASSERT_FALSE(overlapping.ok());
  EXPECT_EQ(KindOf(overlapping.status()), ErrorKind::kInvalidArgument);
}

// --- reading ---

TEST(IvfFlat, SearchRejectsMalformedQueries) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  auto reader = OpenSegment(*data.dataset,
                            BuildSegment(MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1),
                                                   {{"num_partitions", "4"}})));
  ASSERT_NE(reader, nullptr);
  VectorQuery query;
  query.vector = Query(data, 0);
  query.dim = kDim - 1;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  query.dim = kDim;
  query.nprobes = 0;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  query.nprobes = 1;
  query.k = -1;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  std::vector<float> bad(Query(data, 0), Query(data, 0) + kDim);
  bad[3] = NAN;
  query.vector = bad.data();
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  bad[3] = INFINITY;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  query.vector = Query(data, 0);
  query.upper_distance = NAN;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
  query.upper_distance.reset();
  query.k = 0;
  auto none = reader->AsVector()->Search(query);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  query.vector = nullptr;
  query.k = 3;
  EXPECT_EQ(KindOf(reader->AsVector()->Search(query).status()), ErrorKind::kInvalidArgument);
}

// SearchBatch with queries that differ in everything a query sets (k, 0 included; nprobes; the
// distance window; the accept callback) answers each as Search does, bit for bit; an empty
// batch answers nothing; a malformed query fails the batch as it fails alone.
TEST(IvfFlat, SearchBatchAnswersEachQueryAsSearch) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  auto reader =
      OpenSegment(*data.dataset, BuildSegment(MakeInput(*data.dataset, AllFragments(*data.dataset),
                                                        {{"num_partitions", "8"}})));
  ASSERT_NE(reader, nullptr);
  const VectorSegmentReader& vectors = *reader->AsVector();
  const std::function<bool(uint64_t)> odd = [](uint64_t address) { return address % 2 == 1; };
  std::vector<VectorQuery> queries(kQueries);
  for (int q = 0; q < kQueries; ++q) {
    VectorQuery& query = queries[static_cast<size_t>(q)];
    query.vector = Query(data, q);
    query.dim = kDim;
    query.k = q % 7 == 0 ? 0 : 1 + q * 3;
    query.nprobes = 1 + q % 9;  // 9 probes every partition
    if (q % 3 == 1) query.accept = &odd;
    if (q % 5 == 2) {
      const auto nearest = vectors.Search(query).ValueOrDie();
      if (nearest.size() > 4) {
        query.lower_distance = nearest[1].distance;
        query.upper_distance = nearest[4].distance;
      }
    }
  }
  ASSERT_OK_AND_ASSIGN(auto batch, vectors.SearchBatch(queries.data(), kQueries));
  ASSERT_EQ(batch.size(), queries.size());
  for (size_t q = 0; q < queries.size(); ++q) {
    ASSERT_OK_AND_ASSIGN(auto alone, vectors.Search(queries[q]));
    ExpectSameRows(batch[q], alone, "query " + std::to_string(q));
  }
  ASSERT_OK_AND_ASSIGN(auto none, vectors.SearchBatch(nullptr, 0));
  EXPECT_TRUE(none.empty());
  queries[5].nprobes = 0;
  EXPECT_EQ(KindOf(vectors.SearchBatch(queries.data(), kQueries).status()),
            ErrorKind::kInvalidArgument);
}

TEST(IvfFlat, DamagedSegmentFilesAreReportedAsCorrupt) {
  TempDirectory directory;
  const TestData data = MakeData(directory, /*float16=*/false);
  const format::SegmentMeta meta = BuildSegment(
      MakeInput(*data.dataset, Fragments(*data.dataset, 0, 1), {{"num_partitions", "4"}}));
  const auto segment = std::filesystem::path(directory.Child("ds")) / SegmentPath(meta.uuid());

  format::SegmentMeta wrong = meta;
  wrong.set_model_fingerprint("0123456789abcdef");
  auto mismatched = Family().Open(wrong, DirectoryOf(data.dataset->storage(), wrong).ValueOrDie());
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(KindOf(mismatched.status()), ErrorKind::kCorrupt);

  {
    std::ofstream partitions(segment / "partitions.arrow", std::ios::binary | std::ios::trunc);
    partitions << "not an arrow file";
  }
  auto broken = Family().Open(meta, DirectoryOf(data.dataset->storage(), meta).ValueOrDie());
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(KindOf(broken.status()), ErrorKind::kCorrupt);

  {
    std::ofstream model(segment / "model.bin", std::ios::binary | std::ios::trunc);
    model << "TSIVFMDL and then garbage";
  }
  auto damaged = Family().LoadModel(meta, DirectoryOf(data.dataset->storage(), meta).ValueOrDie());
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(KindOf(damaged.status()), ErrorKind::kCorrupt);

  std::filesystem::remove(segment / "model.bin");
  auto missing = Family().Open(meta, DirectoryOf(data.dataset->storage(), meta).ValueOrDie());
  ASSERT_FALSE(missing.ok());
}

}  // namespace
}  // namespace tessera::index::vector::ivf_flat_test
