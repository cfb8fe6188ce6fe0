#include "tessera/synthetic/embedding_generator.h"

#include <arrow/api.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/writer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tessera/status.h"

namespace tessera::synthetic::embedding_generator_test {
namespace {

std::shared_ptr<arrow::Table> Generate(const EmbeddingOptions& options) {
  auto reader = MakeEmbeddingReader(options);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return nullptr;
  auto table = (*reader)->ToTable();
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? *table : nullptr;
}

// The bytes of an Arrow IPC stream holding `table`, one record batch per chunk.
std::shared_ptr<arrow::Buffer> IpcBytes(const std::shared_ptr<arrow::Table>& table) {
  auto sink = arrow::io::BufferOutputStream::Create().ValueOrDie();
  auto writer = arrow::ipc::MakeStreamWriter(sink, table->schema()).ValueOrDie();
  EXPECT_TRUE(writer->WriteTable(*table).ok());
  EXPECT_TRUE(writer->Close().ok());
  return sink->Finish().ValueOrDie();
}

// One column as a single array.
std::shared_ptr<arrow::Array> Column(const std::shared_ptr<arrow::Table>& table,
                                     const std::string& name) {
  auto column = table->GetColumnByName(name);
  EXPECT_NE(column, nullptr) << name;
  return arrow::Concatenate(column->chunks()).ValueOrDie();
}

EmbeddingOptions SmallOptions() {
  EmbeddingOptions options;
  options.rows = 1000;
  options.dim = 32;
  options.clusters = 8;
  options.seed = 7;
  options.batch_rows = 128;
  return options;
}

TEST(SyntheticEmbeddings, SchemaHasTheDocumentedColumns) {
  auto table = Generate(SmallOptions());
  auto expected = arrow::schema({
      arrow::field("id", arrow::int64()),
      arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 32)),
      arrow::field("category", arrow::utf8()),
      arrow::field("price", arrow::float64()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
      arrow::field("tags", arrow::list(arrow::utf8())),
      arrow::field("text", arrow::utf8()),
  });
  EXPECT_TRUE(table->schema()->Equals(*expected)) << table->schema()->ToString();
  EXPECT_TRUE(EmbeddingSchema(32)->Equals(*expected));
  EXPECT_EQ(table->num_rows(), 1000);
  ASSERT_TRUE(table->ValidateFull().ok());

  auto ids = std::static_pointer_cast<arrow::Int64Array>(Column(table, "id"));
  for (int64_t i = 0; i < ids->length(); ++i) ASSERT_EQ(ids->Value(i), i);
  EXPECT_EQ(table->GetColumnByName("vector")->null_count(), 0);
  EXPECT_EQ(table->GetColumnByName("ts")->null_count(), 0);
  EXPECT_EQ(table->GetColumnByName("text")->null_count(), 0);
}

TEST(SyntheticEmbeddings, BatchesHaveTheRequestedSize) {
  auto reader = MakeEmbeddingReader(SmallOptions()).ValueOrDie();
  std::vector<int64_t> sizes;
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ASSERT_TRUE(reader->ReadNext(&batch).ok());
    if (!batch) break;
    sizes.push_back(batch->num_rows());
  }
  ASSERT_EQ(sizes.size(), 8u);  // 7 × 128 + 104
  EXPECT_EQ(sizes.front(), 128);
  EXPECT_EQ(sizes.back(), 1000 - 7 * 128);
}

TEST(SyntheticEmbeddings, SameOptionsGiveByteIdenticalData) {
  auto first = IpcBytes(Generate(SmallOptions()));
  auto second = IpcBytes(Generate(SmallOptions()));
  EXPECT_TRUE(first->Equals(*second));

  EmbeddingOptions other = SmallOptions();
  other.seed = 8;
  EXPECT_FALSE(Generate(SmallOptions())->Equals(*Generate(other)));
}

TEST(SyntheticEmbeddings, RowsDoNotDependOnBatchSize) {
  EmbeddingOptions options = SmallOptions();
  auto reference = Generate(options);
  for (int64_t batch_rows : {1, 7, 999, 1000, 5000}) {
    options.batch_rows = batch_rows;
    auto table = Generate(options);
    EXPECT_TRUE(table->Equals(*reference)) << "batch_rows=" << batch_rows;
  }
  // A prefix of a longer dataset is the shorter dataset.
  options = SmallOptions();
  options.rows = 1500;
  EXPECT_TRUE(Generate(options)->Slice(0, 1000)->Equals(*reference));
}

TEST(SyntheticEmbeddings, NullFractionsAreAsDocumented) {
  EmbeddingOptions options = SmallOptions();
  options.rows = 20000;
  options.dim = 4;
  options.batch_rows = 4096;
  auto table = Generate(options);
  const double rows = static_cast<double>(table->num_rows());
  const double category_nulls = table->GetColumnByName("category")->null_count() / rows;
  const double price_nulls = table->GetColumnByName("price")->null_count() / rows;
  EXPECT_NEAR(category_nulls, 0.02, 0.006);
  EXPECT_NEAR(price_nulls, 0.05, 0.01);

  auto categories = Column(table, "category");
  std::set<std::string> values;
  auto strings = std::static_pointer_cast<arrow::StringArray>(categories);
  for (int64_t i = 0; i < strings->length(); ++i) {
    if (strings->IsValid(i)) values.insert(std::string(strings->GetView(i)));
  }
  EXPECT_EQ(values.size(), 8u);

  auto tags = std::static_pointer_cast<arrow::ListArray>(Column(table, "tags"));
  int64_t max_tags = 0;
  for (int64_t i = 0; i < tags->length(); ++i)
    max_tags = std::max<int64_t>(max_tags, tags->value_length(i));
  EXPECT_EQ(max_tags, 3);
  EXPECT_EQ(tags->null_count(), 0);
}

TEST(SyntheticEmbeddings, TimestampsIncreaseWithId) {
  auto table = Generate(SmallOptions());
  auto ts = std::static_pointer_cast<arrow::TimestampArray>(Column(table, "ts"));
  for (int64_t i = 1; i < ts->length(); ++i) ASSERT_LT(ts->Value(i - 1), ts->Value(i));
}

std::vector<float> FlatVectors(const std::shared_ptr<arrow::Table>& table) {
  auto vectors = std::static_pointer_cast<arrow::FixedSizeListArray>(Column(table, "vector"));
  auto values = std::static_pointer_cast<arrow::FloatArray>(vectors->values());
  const float* begin = values->raw_values() + vectors->value_offset(0);
  return std::vector<float>(begin, begin + vectors->length() * vectors->value_length());
}

double SquaredDistance(const float* a, const float* b, int dim) {
  double sum = 0;
  for (int j = 0; j < dim; ++j) {
    const double d = static_cast<double>(a[j]) - b[j];
    sum += d * d;
  }
  return sum;
}

// Over a sample of points: the median of (distance to nearest other point) / (median distance
// to the other points).
double MedianNearestToMedianRatio(const std::vector<float>& vectors, int dim) {
  const int n = static_cast<int>(vectors.size() / dim);
  std::vector<double> ratios;
  for (int i = 0; i < n; i += 10) {
    std::vector<double> distances;
    distances.reserve(n - 1);
    for (int j = 0; j < n; ++j) {
      if (j != i) {
        distances.push_back(std::sqrt(SquaredDistance(&vectors[i * dim], &vectors[j * dim], dim)));
      }
    }
    const double nearest = *std::min_element(distances.begin(), distances.end());
    std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
    ratios.push_back(nearest / distances[distances.size() / 2]);
  }
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

// Real embeddings have structure: a point's nearest neighbour is much closer than a typical
// point. Isotropic noise in 128 dimensions would give a ratio close to 1.
TEST(SyntheticEmbeddings, NearestNeighboursAreMuchCloserThanTypicalPoints) {
  EmbeddingOptions options;
  options.rows = 2000;
  options.dim = 128;
  options.seed = 42;
  auto table = Generate(options);
  const std::vector<float> vectors = FlatVectors(table);
  const int dim = options.dim;
  const double ratio = MedianNearestToMedianRatio(vectors, dim);
  EXPECT_LT(ratio, 0.5);
  EXPECT_GT(ratio, 0.01);  // not degenerate (duplicates)

  // The contrast the property is about: isotropic noise of the same shape has almost
  // equidistant neighbours.
  std::mt19937_64 engine(1);
  std::normal_distribution<float> normal;
  std::vector<float> noise(vectors.size());
  for (float& value : noise) value = normal(engine);
  EXPECT_GT(MedianNearestToMedianRatio(noise, dim), 0.7);
}

TEST(SyntheticEmbeddings, QueriesComeFromTheSameDistributionButAreNotRows) {
  EmbeddingOptions options = SmallOptions();
  auto table = Generate(options);
  const std::vector<float> rows = FlatVectors(table);
  auto queries = MakeQueryVectorsFlat(options, 50);
  ASSERT_TRUE(queries.ok()) << queries.status();
  ASSERT_EQ(queries->size(), 50u * options.dim);
  auto again = MakeQueryVectors(options, 50);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)->type()->Equals(arrow::fixed_size_list(arrow::float32(), options.dim)));
  auto again_values = std::static_pointer_cast<arrow::FloatArray>((*again)->values());
  EXPECT_TRUE(std::equal(queries->begin(), queries->end(), again_values->raw_values()));

  const int dim = options.dim;
  const int n = static_cast<int>(options.rows);
  double query_nearest_sum = 0, row_nearest_sum = 0;
  for (int q = 0; q < 50; ++q) {
    double nearest = 1e300, row_nearest = 1e300;
    for (int j = 0; j < n; ++j) {
      nearest = std::min(nearest, SquaredDistance(&(*queries)[q * dim], &rows[j * dim], dim));
      if (j != q) {
        row_nearest = std::min(row_nearest, SquaredDistance(&rows[q * dim], &rows[j * dim], dim));
      }
    }
    EXPECT_GT(nearest, 0.0) << "query " << q << " copies a row";
    query_nearest_sum += std::sqrt(nearest);
    row_nearest_sum += std::sqrt(row_nearest);
  }
  // Same distribution: a query's nearest row is about as close as a row's nearest other row.
  EXPECT_LT(query_nearest_sum, 2.0 * row_nearest_sum);
  EXPECT_GT(query_nearest_sum, 0.5 * row_nearest_sum);
}

TEST(SyntheticEmbeddings, RejectsBadOptions) {
  EmbeddingOptions options = SmallOptions();
  options.dim = 0;
  auto reader = MakeEmbeddingReader(options);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(KindOf(reader.status()), ErrorKind::kInvalidArgument);

  options = SmallOptions();
  options.batch_rows = 0;
  EXPECT_FALSE(MakeEmbeddingReader(options).ok());
  options = SmallOptions();
  options.rows = -1;
  EXPECT_FALSE(MakeEmbeddingReader(options).ok());
  EXPECT_FALSE(MakeQueryVectors(SmallOptions(), -1).ok());

  options = SmallOptions();
  options.rows = 0;
  auto empty = Generate(options);
  EXPECT_EQ(empty->num_rows(), 0);
}

}  // namespace
}  // namespace tessera::synthetic::embedding_generator_test
