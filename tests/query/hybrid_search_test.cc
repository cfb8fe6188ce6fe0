// query::HybridSearch: the fusion of Nearest's and TextSearch's candidate lists (query/fusion.h)
// over one dataset — a row strong in both lists wins over the best of each, the filter applies
// to both lists, the reciprocal-rank constant and the text weight are the caller's, and the
// options are validated by name.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/query/fusion.h"
#include "tessera/query/nearest.h"
#include "tessera/query/text_search.h"
#include "tessera/status.h"

namespace tessera::query::hybrid_search_test {
namespace {

using testing::TempDirectory;

struct Row {
  int64_t id;
  float x;  // the vector is [x, 0]; the query [0, 0]
  std::string text;
};

// Row 0 is the nearest; row 4 the best text match for "zebra"; row 2 second in both.
const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = {{0, 0.0f, "apple orchard"},  {1, 1.0f, "zebra apple"},
                                        {2, 0.5f, "zebra"},          {3, 3.0f, "plain words"},
                                        {4, 4.0f, "zebra zebra"},    {5, 5.0f, "quiet garden path"},
                                        {6, 6.0f, "zebra crossing"}, {7, 7.0f, "nothing special"}};
  return rows;
}

std::shared_ptr<arrow::RecordBatch> Batch(size_t begin, size_t end) {
  arrow::Int64Builder ids;
  auto floats = std::make_shared<arrow::FloatBuilder>();
  arrow::FixedSizeListBuilder vectors(arrow::default_memory_pool(), floats, 2);
  arrow::StringBuilder texts;
  for (size_t i = begin; i < end; ++i) {
    const Row& row = Rows()[i];
    EXPECT_TRUE(ids.Append(row.id).ok());
    EXPECT_TRUE(vectors.Append().ok());
    EXPECT_TRUE(floats->AppendValues({row.x, 0.0f}).ok());
    EXPECT_TRUE(texts.Append(row.text).ok());
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()),
                               arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 2)),
                               arrow::field("text", arrow::utf8())});
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(end - begin),
      {ids.Finish().ValueOrDie(), vectors.Finish().ValueOrDie(), texts.Finish().ValueOrDie()});
}

// Two fragments, so row addresses are not the ids.
std::shared_ptr<dataset::Dataset> MakeDataset(const std::string& uri) {
  auto first = arrow::RecordBatchReader::Make({Batch(0, 5)}).ValueOrDie();
  auto data = dataset::Dataset::Create(uri, first).ValueOrDie();
  auto second = arrow::RecordBatchReader::Make({Batch(5, 8)}).ValueOrDie();
  return data->Append(second).ValueOrDie();
}

HybridSearchOptions Options(int64_t k) {
  HybridSearchOptions options;
  options.vector.column = "vector";
  options.vector.query = {0.0f, 0.0f};
  options.text.columns = {{"text", 1.0}};
  options.text.text = "zebra";
  options.k = k;
  options.projection = {"id"};
  options.with_row_address = true;
  return options;
}

std::vector<int64_t> Ids(const arrow::Table& table) {
  std::vector<int64_t> ids;
  auto column = table.GetColumnByName("id");
  for (const auto& chunk : column->chunks()) {
    const auto& values = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i) ids.push_back(values.Value(i));
  }
  return ids;
}

template <typename ArrayType>
std::vector<typename ArrayType::value_type> Column(const arrow::Table& table,
                                                   const std::string& name) {
  std::vector<typename ArrayType::value_type> out;
  for (const auto& chunk : table.GetColumnByName(name)->chunks()) {
    const auto& values = static_cast<const ArrayType&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i) out.push_back(values.Value(i));
  }
  return out;
}

// The two lists HybridSearch fuses, found by the searches themselves.
struct Lists {
  std::vector<RankedRow> by_distance;
  std::vector<RankedRow> by_score;
  std::vector<int64_t> vector_ids;
  std::vector<int64_t> text_ids;
};

Lists SearchApart(const dataset::Dataset& data, const HybridSearchOptions& options) {
  Lists lists;
  NearestOptions vector = options.vector;
  vector.k = options.k * options.candidate_factor;
  vector.filter = options.filter;
  vector.prefilter = options.prefilter;
  vector.columns = {"id"};
  vector.with_row_address = true;
  auto nearest = Nearest(data, vector).ValueOrDie();
  const auto distances = Column<arrow::FloatArray>(*nearest, kDistanceColumn);
  const auto vector_addresses = Column<arrow::UInt64Array>(*nearest, dataset::kRowAddressColumn);
  for (size_t i = 0; i < distances.size(); ++i) {
    lists.by_distance.push_back({vector_addresses[i], distances[i]});
  }
  lists.vector_ids = Ids(*nearest);

  TextSearchOptions text = options.text;
  text.k = options.k * options.candidate_factor;
  text.filter = options.filter;
  text.prefilter = options.prefilter;
  text.projection = {"id"};
  text.with_row_address = true;
  auto found = TextSearch(data, text).ValueOrDie();
  const auto scores = Column<arrow::FloatArray>(*found, kScoreColumn);
  const auto text_addresses = Column<arrow::UInt64Array>(*found, dataset::kRowAddressColumn);
  for (size_t i = 0; i < scores.size(); ++i) {
    lists.by_score.push_back({text_addresses[i], scores[i]});
  }
  lists.text_ids = Ids(*found);
  return lists;
}

// The result equals the fusion of the lists searched apart: addresses, order and _score.
void ExpectFusionOfTheLists(const dataset::Dataset& data, const HybridSearchOptions& options) {
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(data, options));
  const Lists lists = SearchApart(data, options);
  auto fused = options.fusion == Fusion::kReciprocalRank
                   ? FuseReciprocalRank(lists.by_distance, lists.by_score, options.rrf_k)
                   : FuseWeighted(lists.by_distance, lists.by_score, options.text_weight);
  if (static_cast<int64_t>(fused.size()) > options.k) fused.resize(options.k);
  const auto addresses = Column<arrow::UInt64Array>(*table, dataset::kRowAddressColumn);
  const auto scores = Column<arrow::FloatArray>(*table, kScoreColumn);
  ASSERT_EQ(addresses.size(), fused.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    EXPECT_EQ(addresses[i], fused[i].row_address) << "place " << i;
    EXPECT_EQ(scores[i], static_cast<float>(fused[i].score)) << "place " << i;
  }
}

TEST(HybridSearch, ARowStrongInBothListsWinsOverTheBestOfEach) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  const auto options = Options(3);
  const Lists lists = SearchApart(*data, options);
  ASSERT_FALSE(lists.vector_ids.empty());
  ASSERT_FALSE(lists.text_ids.empty());
  EXPECT_EQ(lists.vector_ids.front(), 0);
  EXPECT_EQ(lists.text_ids.front(), 4);

  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  EXPECT_EQ(table->schema()->ToString(),
            arrow::schema({arrow::field("id", arrow::int64()),
                           arrow::field(kScoreColumn, arrow::float32(), false),
                           arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false)})
                ->ToString());
  const auto ids = Ids(*table);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.front(), 2);  // second in both lists: 1/62 + 1/62
  const auto scores = Column<arrow::FloatArray>(*table, kScoreColumn);
  EXPECT_FLOAT_EQ(scores.front(), static_cast<float>(2.0 / 62));
  ExpectFusionOfTheLists(*data, options);
}

TEST(HybridSearch, WithoutRowAddressesOrProjectionItReturnsEveryColumnAndTheScore) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(2);
  options.projection.clear();
  options.with_row_address = false;
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  EXPECT_EQ(table->schema()->num_fields(), 4);
  EXPECT_EQ(table->schema()->field(3)->name(), kScoreColumn);
  // Row 4 (1/65 + 1/61) passes row 1 (third in both: 2/63).
  EXPECT_EQ(Ids(*table), (std::vector<int64_t>{2, 4}));
}

TEST(HybridSearch, ThePrefilterAppliesToBothLists) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(3);
  options.filter = "id != 2 AND id != 4";
  options.prefilter = true;
  options.candidate_factor = 1;
  const Lists lists = SearchApart(*data, options);
  for (const auto* ids : {&lists.vector_ids, &lists.text_ids}) {
    for (int64_t id : *ids) EXPECT_TRUE(id != 2 && id != 4) << id;
  }
  EXPECT_EQ(lists.vector_ids.size(), 3u);  // prefiltered: k rows whenever k pass
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  const auto ids = Ids(*table);
  EXPECT_EQ(ids.size(), 3u);
  for (int64_t id : ids) EXPECT_TRUE(id != 2 && id != 4) << id;
  EXPECT_EQ(ids.front(), 1);  // now second in both lists
  ExpectFusionOfTheLists(*data, options);
}

TEST(HybridSearch, APostfilterDropsRowsOfBothLists) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(3);
  options.filter = "id != 2";
  options.candidate_factor = 1;
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  for (int64_t id : Ids(*table)) EXPECT_NE(id, 2);
  ExpectFusionOfTheLists(*data, options);
}

TEST(HybridSearch, TheReciprocalRankConstantIsTheCallers) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(8);
  for (double rrf_k : {0.01, 1.0, 60.0, 1000.0}) {
    options.rrf_k = rrf_k;
    ExpectFusionOfTheLists(*data, options);
  }
  // A tiny constant favours the first of a list over the row second in both (first with 60):
  // row 4, first by score and fifth by distance, gets 1/1.01 + 1/5.01, row 2 2/2.01.
  options.rrf_k = 0.01;
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  const auto ids = Ids(*table);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[0], 4);
  EXPECT_EQ(ids[1], 2);
}

TEST(HybridSearch, WeightedFusionFollowsTheTextWeight) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(8);
  options.fusion = Fusion::kWeighted;
  for (double weight : {0.0, 0.3, 0.5, 1.0}) {
    options.text_weight = weight;
    ExpectFusionOfTheLists(*data, options);
  }
  options.text_weight = 0;
  ASSERT_OK_AND_ASSIGN(auto by_vector, HybridSearch(*data, options));
  EXPECT_EQ(Ids(*by_vector).front(), 0);
  options.text_weight = 1;
  ASSERT_OK_AND_ASSIGN(auto by_text, HybridSearch(*data, options));
  EXPECT_EQ(Ids(*by_text).front(), 4);
}

TEST(HybridSearch, BadOptionsAreInvalidArgumentNamingTheOption) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  const auto expect_invalid = [&](const HybridSearchOptions& options, const std::string& name) {
    auto result = HybridSearch(*data, options);
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument) << result.status().ToString();
    EXPECT_NE(result.status().message().find(name), std::string::npos)
        << result.status().ToString();
  };
  auto options = Options(0);
  expect_invalid(options, "k must");
  options = Options(3);
  options.rrf_k = 0;
  expect_invalid(options, "rrf_k");
  options.rrf_k = std::nan("");
  expect_invalid(options, "rrf_k");
  options = Options(3);
  options.text_weight = 1.5;
  expect_invalid(options, "text_weight");
  options.text_weight = -0.1;
  expect_invalid(options, "text_weight");
  options = Options(3);
  options.candidate_factor = 0;
  expect_invalid(options, "candidate_factor");
  options = Options(3);
  options.projection = {"nope"};
  expect_invalid(options, "nope");
  options = Options(3);
  options.vector.column = "text";
  expect_invalid(options, "text");
  options = Options(3);
  options.text.columns = {{"vector", 1.0}};
  expect_invalid(options, "vector");
}

TEST(HybridSearch, AHugeKIsCappedWithoutOverflow) {
  TempDirectory directory;
  auto data = MakeDataset(directory.Child("ds"));
  auto options = Options(std::numeric_limits<int64_t>::max());
  ASSERT_OK_AND_ASSIGN(auto table, HybridSearch(*data, options));
  EXPECT_EQ(table->num_rows(), 8);  // every row is in the vector list
}

}  // namespace
}  // namespace tessera::query::hybrid_search_test
