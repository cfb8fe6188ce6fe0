// The HNSW graph of one partition (index/vector/hnsw_graph.h): its stored shape, recall against
// brute force, filtered walks that still find every accepted node, reproducible builds, and
// damaged rows reported as errors.
#include "tessera/index/vector/hnsw_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/status.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector::hnsw_graph_test {
namespace {

constexpr int kDim = 16;

// Points around 20 centres: clustered like embeddings, so the walk must cross between clusters.
std::vector<float> ClusteredVectors(int64_t count, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> centres(20 * kDim);
  for (float& value : centres) value = 4.0f * normal(random);
  std::vector<float> values(static_cast<size_t>(count) * kDim);
  for (int64_t i = 0; i < count; ++i) {
    const float* centre = centres.data() + (i % 20) * kDim;
    for (int d = 0; d < kDim; ++d) values[i * kDim + d] = centre[d] + normal(random);
  }
  return values;
}

float L2(const float* a, const float* b) {
  float sum = 0;
  for (int d = 0; d < kDim; ++d) sum += (a[d] - b[d]) * (a[d] - b[d]);
  return sum;
}

struct Graph {
  HnswRows rows;
  int width = 0;
  int64_t nodes = 0;
  HnswGraphView view() const {
    return HnswGraphView(rows.keys.data(), rows.neighbors.data(),
                         static_cast<int64_t>(rows.keys.size()), width, nodes);
  }
};

Graph Build(const std::vector<float>& vectors, int m = 8, int ef_construction = 64) {
  HnswBuildOptions options;
  options.m = m;
  options.ef_construction = ef_construction;
  options.seed = 5;
  Graph graph;
  graph.nodes = static_cast<int64_t>(vectors.size() / kDim);
  graph.width = 2 * m;
  graph.rows = BuildHnswGraph(vectors.data(), graph.nodes, kDim, options).ValueOrDie();
  return graph;
}

// The nodes a search of `graph` finds for `query` (ef candidates, accept as given), nearest
// first.
template <typename Accept>
std::vector<GraphCandidate> Search(const Graph& graph, const std::vector<float>& vectors,
                                   const float* query, int ef, Accept&& accept,
                                   int64_t* scored = nullptr) {
  VisitedNodes visited;
  std::vector<GraphCandidate> found;
  int64_t distances = 0;
  const auto status = SearchHnswGraph(
      graph.view(), ef,
      [&](const int32_t* nodes, int count, float* out) {
        distances += count;
        for (int i = 0; i < count; ++i) out[i] = L2(query, vectors.data() + nodes[i] * kDim);
      },
      accept, visited, &found);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (scored != nullptr) *scored = distances;
  std::sort(found.begin(), found.end(), [](const GraphCandidate& a, const GraphCandidate& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.node < b.node);
  });
  return found;
}

// The k nodes nearest `query` that `accept` takes, by brute force.
template <typename Accept>
std::vector<int32_t> Nearest(const std::vector<float>& vectors, const float* query, size_t k,
                             Accept&& accept) {
  std::vector<std::pair<float, int32_t>> all;
  for (int32_t node = 0; node < static_cast<int32_t>(vectors.size() / kDim); ++node) {
    const float distance = L2(query, vectors.data() + node * kDim);
    if (accept(node, distance)) all.push_back({distance, node});
  }
  std::sort(all.begin(), all.end());
  std::vector<int32_t> nodes;
  for (size_t i = 0; i < std::min(k, all.size()); ++i) nodes.push_back(all[i].second);
  return nodes;
}

double Recall(const std::vector<GraphCandidate>& found, const std::vector<int32_t>& truth) {
  std::set<int32_t> got;
  for (size_t i = 0; i < std::min(found.size(), truth.size()); ++i) got.insert(found[i].node);
  size_t hits = 0;
  for (int32_t node : truth) hits += got.count(node);
  return truth.empty() ? 1.0 : static_cast<double>(hits) / static_cast<double>(truth.size());
}

TEST(HnswGraph, StoredRowsHaveTheDocumentedShape) {
  const auto vectors = ClusteredVectors(3000, 1);
  const Graph graph = Build(vectors);
  const auto& keys = graph.rows.keys;
  ASSERT_GT(keys.size(), 3000u);  // upper levels exist at 3,000 nodes and m = 8
  ASSERT_EQ(graph.rows.neighbors.size(), keys.size() * 16);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
  for (int64_t row = 0; row < static_cast<int64_t>(keys.size()); ++row) {
    const int level = static_cast<int>(keys[row] >> 32);
    const int32_t node = static_cast<int32_t>(keys[row] & 0xffffffffu);
    if (row < 3000) {
      EXPECT_EQ(keys[row], static_cast<uint64_t>(row));
    }
    const int32_t* links = graph.rows.neighbors.data() + row * 16;
    int count = 0;
    while (count < 16 && links[count] >= 0) {
      EXPECT_LT(links[count], 3000);
      EXPECT_NE(links[count], node) << "a node links to itself";
      // An upper-level link leads to a node that lives on that level too.
      if (level > 0) {
        EXPECT_NE(graph.view().Links(level, links[count]), nullptr);
      }
      ++count;
    }
    for (int slot = count; slot < 16; ++slot) EXPECT_EQ(links[slot], -1);
    // (A node may be alone on an upper level: one drawn higher than the graph so far, before
    // any other rose as high.)
    if (level == 0) {
      EXPECT_GE(count, 1) << "row " << row << " has no link";
    }
    EXPECT_LE(count, level == 0 ? 16 : 8);
  }
  EXPECT_OK(graph.view().CheckShape());
  EXPECT_GT(graph.view().top_level(), 0);
  // Built again: the same rows (levels come from the seed, batches from the count inserted),
  // also on one thread (a loop nested in a ParallelFor body runs serially).
  EXPECT_EQ(Build(vectors).rows.neighbors, graph.rows.neighbors);
  Graph serial;
  ASSERT_OK(util::ParallelFor(1, [&](int64_t, int64_t) {
    serial = Build(vectors);
    return arrow::Status::OK();
  }));
  EXPECT_EQ(serial.rows.keys, graph.rows.keys);
  EXPECT_EQ(serial.rows.neighbors, graph.rows.neighbors);
}

TEST(HnswGraph, FindsTheNearestNodesWithoutScoringThemAll) {
  const auto vectors = ClusteredVectors(4000, 2);
  const Graph graph = Build(vectors, 16, 100);
  const auto queries = ClusteredVectors(50, 3);
  auto all = [](int32_t, float) { return true; };
  double recall = 0;
  int64_t scored_total = 0;
  for (int q = 0; q < 50; ++q) {
    const float* query = queries.data() + q * kDim;
    int64_t scored = 0;
    const auto found = Search(graph, vectors, query, 64, all, &scored);
    EXPECT_EQ(found.size(), 64u);
    recall += Recall(found, Nearest(vectors, query, 10, all));
    scored_total += scored;
  }
  EXPECT_GE(recall / 50, 0.95);
  // A walk scores a small part of the graph (about 400 of 4,000 rows).
  EXPECT_LT(scored_total / 50, 4000 / 4);
}

TEST(HnswGraph, FilteredWalksKeepOnlyAcceptedNodesAndFindThemAll) {
  const auto vectors = ClusteredVectors(3000, 4);
  const Graph graph = Build(vectors);
  const auto queries = ClusteredVectors(20, 5);
  // One node in 7: the walk goes through rejected nodes to reach accepted ones.
  auto sevenths = [](int32_t node, float) { return node % 7 == 0; };
  // Three nodes: fewer than ef, so every one of them must come back.
  auto three = [](int32_t node, float) { return node == 17 || node == 1500 || node == 2999; };
  double recall = 0;
  for (int q = 0; q < 20; ++q) {
    const float* query = queries.data() + q * kDim;
    const auto found = Search(graph, vectors, query, 40, sevenths);
    for (const auto& candidate : found) EXPECT_EQ(candidate.node % 7, 0);
    recall += Recall(found, Nearest(vectors, query, 10, sevenths));
    const auto rare = Search(graph, vectors, query, 40, three);
    ASSERT_EQ(rare.size(), 3u);
    EXPECT_EQ(std::vector<int32_t>({rare[0].node, rare[1].node, rare[2].node}),
              Nearest(vectors, query, 3, three));
  }
  EXPECT_GE(recall / 20, 0.9);
}

TEST(HnswGraph, NanDistancesAreNeverKept) {
  auto vectors = ClusteredVectors(500, 6);
  for (int d = 0; d < kDim; ++d) vectors[7 * kDim + d] = NAN;  // node 7 is a NaN vector
  const Graph graph = Build(vectors);
  auto all = [](int32_t, float) { return true; };
  const auto found = Search(graph, vectors, vectors.data(), 600, all);
  EXPECT_EQ(found.size(), 499u);  // every node but the NaN one
  for (const auto& candidate : found) EXPECT_NE(candidate.node, 7);
}

TEST(HnswGraph, DamagedRowsAreCorruptNotOutOfBounds) {
  const auto vectors = ClusteredVectors(600, 7);
  auto all = [](int32_t, float) { return true; };
  auto search = [&](const Graph& graph) {
    VisitedNodes visited;
    std::vector<GraphCandidate> found;
    return SearchHnswGraph(
        graph.view(), 20,
        [&](const int32_t* nodes, int count, float* out) {
          for (int i = 0; i < count; ++i)
            out[i] = L2(vectors.data(), vectors.data() + nodes[i] * kDim);
        },
        all, visited, &found);
  };
  const Graph good = Build(vectors);
  ASSERT_OK(search(good));
  {
    Graph bad = good;  // a link beyond the nodes
    for (int32_t& link : bad.rows.neighbors) {
      if (link >= 0) link += 600;
    }
    auto status = search(bad);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  }
  {
    Graph bad = good;  // an entry point beyond the nodes
    bad.rows.keys.back() |= 0xfffffu;
    auto status = search(bad);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  }
  {
    Graph bad = good;  // fewer rows than nodes
    bad.nodes = static_cast<int64_t>(good.rows.keys.size()) + 5;
    auto status = search(bad);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kCorrupt) << status.ToString();
  }
}

TEST(HnswGraph, SmallGraphs) {
  auto all = [](int32_t, float) { return true; };
  const Graph empty = Build({});
  EXPECT_TRUE(empty.rows.keys.empty());
  const auto one = ClusteredVectors(1, 8);
  const Graph single = Build(one);
  ASSERT_GE(single.rows.keys.size(), 1u);
  const auto found = Search(single, one, one.data(), 10, all);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, 0);
}

}  // namespace
}  // namespace tessera::index::vector::hnsw_graph_test
