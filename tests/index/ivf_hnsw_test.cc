// The IVF_HNSW_FLAT / IVF_HNSW_SQ / IVF_HNSW_PQ families (index/vector/ivf_graphs.h): parameters,
// recall through the graphs against brute force over several segments and an unindexed tail,
// ef as a knob, prefiltered searches, merges that rebuild the graphs, and damaged graphs.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector_segment.h"
#include "tessera/query/nearest.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/status.h"
#include "tessera/synthetic/embedding_generator.h"

namespace tessera::index::vector::ivf_hnsw_test {
namespace {

using testing::TempDirectory;

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

// 4 partitions over 4,500 rows: about 1,100 rows each, far more than a search's ef, so every
// probed partition is searched through its graph.
IndexSpec Spec(const std::string& family, Metric metric = Metric::kL2) {
  IndexSpec spec{"vec_idx", "vector", family, {}};
  spec.params = {{"metric", std::string(MetricName(metric))},
                 {"num_partitions", "4"},
                 {"max_iters", "10"},
                 {"m", "8"},
                 {"ef_construction", "60"}};
  if (family == "IVF_HNSW_PQ") spec.params["num_sub_vectors"] = "8";
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

double MeanRecall(const dataset::Dataset& data, const query::PreparedNearest& prepared,
                  const std::vector<std::vector<float>>& queries, Metric metric,
                  const query::NearestKnobs& knobs = {}, const std::string& filter = "") {
  double recall = 0;
  for (const auto& query : queries) {
    auto found = prepared.Search(query.data(), knobs);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    recall += testing::RecallAt(10, *found,
                                testing::BruteForceNearest(data, "vector", query, metric, filter));
  }
  return recall / static_cast<double>(queries.size());
}

TEST(IvfHnswFamilies, ParametersAreCheckedAndNormalized) {
  const auto column = arrow::field("vector", arrow::fixed_size_list(arrow::float32(), 48));
  for (const char* name : {"IVF_HNSW_FLAT", "ivf_hnsw_sq", "IVF_HNSW_PQ"}) {
    ASSERT_OK_AND_ASSIGN(const IndexFamily* family, GetFamily(name));
    ASSERT_OK_AND_ASSIGN(auto normalized, family->Validate(*column, {}));
    EXPECT_EQ(normalized.at("m"), "16") << name;
    EXPECT_EQ(normalized.at("ef_construction"), "100") << name;
    EXPECT_EQ(normalized.at("num_partitions"), "256") << name;
    for (const Params& bad : std::vector<Params>{{{"m", "1"}},
                                                 {{"m", "257"}},
                                                 {{"m", "twelve"}},
                                                 {{"m", "32"}, {"ef_construction", "31"}},
                                                 {{"ef_construction", "10001"}},
                                                 {{"ef", "40"}}}) {
      auto rejected = family->Validate(*column, bad);
      ASSERT_FALSE(rejected.ok()) << name << " " << bad.begin()->first;
      EXPECT_EQ(KindOf(rejected.status()), ErrorKind::kInvalidArgument);
      EXPECT_NE(rejected.status().message().find(bad.rbegin()->first), std::string::npos)
          << rejected.status().message();
    }
  }
  ASSERT_OK_AND_ASSIGN(const IndexFamily* pq, GetFamily("IVF_HNSW_PQ"));
  ASSERT_OK_AND_ASSIGN(auto normalized, pq->Validate(*column, {}));
  EXPECT_EQ(normalized.at("num_sub_vectors"), "6");
  EXPECT_FALSE(pq->Validate(*column, {{"num_bits", "4"}}).ok());
  ASSERT_OK_AND_ASSIGN(const IndexFamily* flat, GetFamily("IVF_HNSW_FLAT"));
  EXPECT_FALSE(flat->Validate(*column, {{"num_sub_vectors", "8"}}).ok());
}

struct RecallCase {
  std::string family;
  Metric metric;
  int refine_factor;
};

// Probing 2 of 4 partitions, each searched through its graph, over two segments (an appended
// fragment, built after the first) and an unindexed tail: the graph walks find nearly what
// scanning the same partitions finds (an ef covering every partition scans them), and l2 finds
// nearly all the true neighbours. (Dot loses neighbours to the partitions, not the graphs: its
// partitions serve inner products less well.)
TEST(IvfHnswFamilies, GraphWalksFindWhatScanningTheProbedPartitionsFinds) {
  TempDirectory directory;
  const std::vector<RecallCase> cases = {
      {"IVF_HNSW_FLAT", Metric::kL2, 1},   {"IVF_HNSW_FLAT", Metric::kCosine, 1},
      {"IVF_HNSW_FLAT", Metric::kDot, 1},  {"IVF_HNSW_SQ", Metric::kL2, 4},
      {"IVF_HNSW_SQ", Metric::kCosine, 1}, {"IVF_HNSW_PQ", Metric::kL2, 10},
      {"IVF_HNSW_PQ", Metric::kDot, 10},
  };
  const auto queries = Queries(30, 77);
  for (const auto& test : cases) {
    const std::string name = test.family + "_" + std::string(MetricName(test.metric));
    auto data = Indexed(directory.Child(name), test.family, test.metric);
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(synthetic::MakeEmbeddingReader(Embeddings(1200, 22)).ValueOrDie(), Files()));
    OptimizeOptions delta;
    delta.merge.kind = MergePolicy::Kind::kNone;
    ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*data, delta));
    ASSERT_OK_AND_ASSIGN(
        data, report.dataset->Append(
                  synthetic::MakeEmbeddingReader(Embeddings(300, 23)).ValueOrDie(), Files()));
    ASSERT_OK_AND_ASSIGN(data, data->Delete("id >= 100 AND id < 400"));
    ASSERT_OK_AND_ASSIGN(auto described, DescribeIndex(*data, "vec_idx"));
    ASSERT_EQ(described.segments.size(), 2u) << name;
    EXPECT_EQ(described.segments[0].details().at("m"), "8");
    ASSERT_EQ(described.unindexed_fragments, 1u) << name;

    query::NearestOptions options;
    options.column = "vector";
    options.nprobes = 2;
    options.refine_factor = test.refine_factor;
    ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
    const double walked = MeanRecall(*data, *prepared, queries, test.metric);
    query::NearestKnobs scan;
    scan.ef = 100000;
    const double scanned = MeanRecall(*data, *prepared, queries, test.metric, scan);
    EXPECT_GE(walked, scanned - 0.05) << name << " refine " << test.refine_factor;
    if (test.metric == Metric::kL2) {
      EXPECT_GE(walked, 0.9) << name;
    }
    std::cout << name << " refine " << test.refine_factor << ": recall@10 " << walked
              << " (scanning the probed partitions: " << scanned << ")\n";
  }
}

// ef is the knob of a graph search: a larger ef finds at least as many true neighbours, an ef of
// at least every partition's size scans them (IVF_HNSW_FLAT is then exact at every probe), and a
// negative ef is refused.
TEST(IvfHnswFamilies, EfTradesSpeedForRecall) {
  TempDirectory directory;
  auto data = Indexed(directory.Child("flat"), "IVF_HNSW_FLAT");
  query::NearestOptions options;
  options.column = "vector";
  options.nprobes = 4;
  ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
  const auto queries = Queries(30, 5);
  query::NearestKnobs narrow;
  narrow.ef = 10;
  query::NearestKnobs wide;
  wide.ef = 200;
  const double narrow_recall = MeanRecall(*data, *prepared, queries, Metric::kL2, narrow);
  const double wide_recall = MeanRecall(*data, *prepared, queries, Metric::kL2, wide);
  EXPECT_GE(wide_recall, narrow_recall);
  EXPECT_GE(wide_recall, 0.97);
  query::NearestKnobs everything;
  everything.ef = 5000;
  EXPECT_EQ(MeanRecall(*data, *prepared, queries, Metric::kL2, everything), 1.0);
  // A distance range is applied inside the walk: rows outside it are walked through, never kept.
  for (const auto& query : queries) {
    const auto truth = testing::BruteForceNearest(*data, "vector", query, Metric::kL2);
    ASSERT_GT(truth.size(), 130u);
    query::NearestOptions ranged = options;
    ranged.query = query;
    // Beyond the 64 nearest rows the walk keeps by default: a range applied after the walk
    // would find none.
    ranged.lower_distance = truth[100].distance;
    ranged.upper_distance = truth[130].distance;
    ranged.with_row_address = true;
    ASSERT_OK_AND_ASSIGN(auto table, query::Nearest(*data, ranged));
    ASSERT_EQ(table->num_rows(), 10);
    auto distances =
        std::static_pointer_cast<arrow::FloatArray>(table->GetColumnByName("_distance")->chunk(0));
    for (int64_t i = 0; i < distances->length(); ++i) {
      EXPECT_GE(distances->Value(i), *ranged.lower_distance);
      EXPECT_LT(distances->Value(i), *ranged.upper_distance);
    }
  }
  query::NearestKnobs negative;
  negative.ef = -2;
  auto refused = prepared->Search(queries[0].data(), negative);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("ef"), std::string::npos);
}

// A prefilter passes the graph walk an allow-list: only passing rows come back, k of them
// whenever k pass, and most of the true nearest passing rows, however selective the filter.
TEST(IvfHnswFamilies, PrefilteredSearchesKeepOnlyPassingRows) {
  TempDirectory directory;
  for (const std::string family : {"IVF_HNSW_FLAT", "IVF_HNSW_SQ"}) {
    auto data = Indexed(directory.Child(family), family);
    for (const std::string filter : {"id % 5 = 0", "id < 2000", "id % 997 = 3"}) {
      query::NearestOptions options;
      options.column = "vector";
      options.nprobes = 4;
      options.refine_factor = family == "IVF_HNSW_SQ" ? 4 : 1;
      options.filter = filter;
      options.prefilter = true;
      ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
      const auto queries = Queries(15, 9);
      double recall = 0;
      for (const auto& query : queries) {
        const auto truth = testing::BruteForceNearest(*data, "vector", query, Metric::kL2, filter);
        ASSERT_OK_AND_ASSIGN(auto found, prepared->Search(query.data()));
        EXPECT_EQ(found.size(), std::min<size_t>(10, truth.size())) << family << " " << filter;
        std::set<uint64_t> passing;
        for (const auto& row : truth) passing.insert(row.row_address);
        for (const auto& row : found) EXPECT_EQ(passing.count(row.row_address), 1u) << filter;
        recall += testing::RecallAt(10, found, truth);
      }
      EXPECT_GE(recall / static_cast<double>(queries.size()), 0.85) << family << " " << filter;
    }
  }
}

// Merging rebuilds the graphs of the merged partitions: the merged segment has a graph row for
// every row, searches it as well as its inputs, and answers exactly like them when ef covers the
// partitions (a scan of the same rows and codes).
TEST(IvfHnswFamilies, MergeRebuildsTheGraphs) {
  TempDirectory directory;
  for (const std::string family : {"IVF_HNSW_FLAT", "IVF_HNSW_PQ"}) {
    auto data = Indexed(directory.Child(family), family);
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(synthetic::MakeEmbeddingReader(Embeddings(1500, 23)).ValueOrDie(), Files()));
    OptimizeOptions delta;
    delta.merge.kind = MergePolicy::Kind::kNone;
    ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*data, delta));
    data = report.dataset;
    query::NearestOptions options;
    options.column = "vector";
    options.nprobes = 2;
    query::NearestKnobs scan;
    scan.ef = 100000;
    const auto queries = Queries(20, 31);
    std::vector<std::vector<ScoredRow>> before;
    double recall_before = 0;
    {
      ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
      for (const auto& query : queries) {
        ASSERT_OK_AND_ASSIGN(auto found, prepared->Search(query.data(), scan));
        before.push_back(found);
      }
      recall_before = MeanRecall(*data, *prepared, queries, Metric::kL2);
    }
    OptimizeOptions merge;
    merge.merge.kind = MergePolicy::Kind::kMaxSegments;
    merge.merge.max_segments = 1;
    ASSERT_OK_AND_ASSIGN(report, OptimizeIndexes(*data, merge));
    data = report.dataset;
    ASSERT_OK_AND_ASSIGN(auto described, DescribeIndex(*data, "vec_idx"));
    ASSERT_EQ(described.segments.size(), 1u) << family;
    const std::string graphs =
        data->uri() + "/_indices/" + described.segments[0].uuid() + "/graphs.arrow";
    EXPECT_TRUE(std::filesystem::exists(graphs)) << graphs;
    ASSERT_OK_AND_ASSIGN(auto prepared, query::PreparedNearest::Make(*data, options));
    for (size_t q = 0; q < queries.size(); ++q) {
      ASSERT_OK_AND_ASSIGN(auto after, prepared->Search(queries[q].data(), scan));
      ASSERT_EQ(after.size(), before[q].size());
      for (size_t i = 0; i < after.size(); ++i) {
        EXPECT_EQ(after[i].row_address, before[q][i].row_address) << family << " query " << q;
        EXPECT_EQ(after[i].distance, before[q][i].distance) << family << " query " << q;
      }
    }
    const double recall_after = MeanRecall(*data, *prepared, queries, Metric::kL2);
    EXPECT_GE(recall_after, recall_before - 0.05) << family;
  }
}

TEST(IvfHnswFamilies, DamagedGraphsAreCorrupt) {
  TempDirectory directory;
  auto data = Indexed(directory.Child("flat"), "IVF_HNSW_FLAT");
  ASSERT_OK_AND_ASSIGN(auto described, DescribeIndex(*data, "vec_idx"));
  const std::string graphs =
      data->uri() + "/_indices/" + described.segments[0].uuid() + "/graphs.arrow";
  const auto size = std::filesystem::file_size(graphs);
  {
    std::fstream file(graphs, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size / 2));
    file.put('\x55');
    file.put('\x7f');
  }
  query::NearestOptions options;
  options.column = "vector";
  options.nprobes = 4;
  auto prepared = query::PreparedNearest::Make(*data, options);
  arrow::Status status = prepared.status();
  if (status.ok()) {
    for (const auto& query : Queries(5, 3)) {
      auto found = (*prepared)->Search(query.data());
      if (!found.ok()) {
        status = found.status();
        break;
      }
    }
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  EXPECT_NE(status.message().find("graphs.arrow"), std::string::npos) << status.ToString();
}

// A model carries its graph parameters: building with other ones, or as another family, is
// refused before any work, with the fix.
TEST(IvfHnswFamilies, AModelOfOtherGraphParametersIsRefused) {
  TempDirectory directory;
  auto data = Indexed(directory.Child("flat"), "IVF_HNSW_FLAT");
  const IndexSpec trained = Spec("IVF_HNSW_FLAT");  // m 8
  ASSERT_OK_AND_ASSIGN(Model model, TrainModel(*data, trained));
  IndexSpec other = trained;
  other.params["m"] = "12";
  auto refused = BuildSegment(*data, other, {}, &model);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("m 8"), std::string::npos) << refused.status();
  EXPECT_NE(refused.status().message().find("retrain"), std::string::npos) << refused.status();
  IndexSpec flat = trained;
  flat.family = "IVF_FLAT";
  flat.params.erase("m");
  flat.params.erase("ef_construction");
  auto wrong = BuildSegment(*data, flat, {}, &model);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(KindOf(wrong.status()), ErrorKind::kInvalidArgument) << wrong.status();
}

// Graphs files written with valid checksums but contents no build writes: fewer rows than the
// partition (refused at open) and links to rows the partition does not have (refused when the
// walk follows them), each Corrupt naming the file, never a read out of bounds.
TEST(IvfHnswFamilies, WellFormedButWrongGraphsAreCorrupt) {
  TempDirectory directory;
  auto data = Indexed(directory.Child("flat"), "IVF_HNSW_FLAT");
  ASSERT_EQ(data->manifest().indexes(0).segments_size(), 1);
  const format::SegmentMeta& meta = data->manifest().indexes(0).segments(0);
  ASSERT_OK_AND_ASSIGN(auto dir, DirectoryOf(data->storage(), meta));
  const std::string path = dir.path + "/" + kIvfGraphsFile;
  const PartitionLayout layout = PartitionLayout::GraphLinks(16);  // m 8
  // The good graphs, copied out before any rewrite.
  std::vector<std::vector<uint64_t>> good_keys(4);
  std::vector<std::vector<int32_t>> good_links(4);
  {
    ASSERT_OK_AND_ASSIGN(auto good, IvfPartitions::Open(*dir.storage, path, layout, 4));
    for (int p = 0; p < 4; ++p) {
      ASSERT_OK(good->Verify(p));
      good_keys[p].assign(good->row_addresses(p), good->row_addresses(p) + good->size(p));
      good_links[p].assign(good->links(p), good->links(p) + good->size(p) * 16);
    }
  }
  // Rewrites every partition's graph from the good one through `change`.
  auto rewrite =
      [&](const std::function<void(std::vector<uint64_t>&, std::vector<int32_t>&)>& change)
      -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto writer, IvfPartitionWriter::Open(*dir.storage, path, layout, 4));
    for (int p = 0; p < 4; ++p) {
      auto keys = good_keys[p];
      auto links = good_links[p];
      change(keys, links);
      ARROW_RETURN_NOT_OK(
          writer->Write(keys.data(), links.data(), static_cast<int64_t>(keys.size())));
    }
    return writer->Finish();
  };
  auto search = [&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto reader, FindFamily("IVF_HNSW_FLAT")->Open(meta, dir));
    const auto query = Queries(1, 3)[0];
    VectorQuery search;
    search.vector = query.data();
    search.dim = kDim;
    search.k = 10;
    search.nprobes = 4;
    return reader->AsVector()->Search(search).status();
  };
  ASSERT_OK(search());
  const std::vector<std::function<void(std::vector<uint64_t>&, std::vector<int32_t>&)>> damages = {
      // Half the rows: the graph cannot cover its partition.
      [](std::vector<uint64_t>& keys, std::vector<int32_t>& links) {
        keys.resize(keys.size() / 2);
        links.resize(keys.size() * 16);
      },
      // Every link beyond the partition's rows.
      [](std::vector<uint64_t>&, std::vector<int32_t>& links) {
        for (int32_t& link : links) {
          if (link >= 0) link += 100000;
        }
      },
      // An entry point beyond them.
      [](std::vector<uint64_t>& keys, std::vector<int32_t>&) { keys.back() |= 0xfffffu; },
  };
  for (size_t d = 0; d < damages.size(); ++d) {
    ASSERT_OK(rewrite(damages[d]));
    auto refused = search();
    ASSERT_FALSE(refused.ok()) << "damage " << d;
    EXPECT_EQ(KindOf(refused), ErrorKind::kCorrupt) << refused.ToString();
    EXPECT_NE(refused.message().find("graphs.arrow"), std::string::npos) << refused.ToString();
  }
  ASSERT_OK(rewrite([](std::vector<uint64_t>&, std::vector<int32_t>&) {}));
  EXPECT_OK(search());
}

}  // namespace
}  // namespace tessera::index::vector::ivf_hnsw_test
