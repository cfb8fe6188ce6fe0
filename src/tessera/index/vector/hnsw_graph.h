// HNSW: a hierarchical navigable small-world graph over the rows of one IVF partition, the graph
// the IVF_HNSW_* families (ivf_family.h) search instead of scanning the partition.
//
// Nodes are the partition's rows, numbered in partition order. Node v lives on levels 0..L(v),
// L drawn from a geometric distribution (P(L >= l) = m^-l) by a generator seeded per partition.
// Level 0 links a node to at most 2m others, every upper level to at most m, chosen by HNSW's
// heuristic: a candidate is linked only when it is nearer to the node than to every neighbour
// already linked, which keeps links pointing in different directions (so a search crosses
// between clusters) instead of crowding into the nearest one. Nodes are inserted in a seeded
// random order, in batches of at most 1/32 of the nodes inserted so far: the nodes of a batch
// find their neighbours (a search of ef_construction candidates) in parallel in the graph as it
// stood before the batch, then are linked one by one. The graph depends only on the vectors and
// options, never on the thread count.
//
// Stored form (HnswRows; written to the graphs file, ivf_graphs.h): one row per (node, level),
// key = level << 32 | node, value = 2m neighbour ids (int32), the unused slots -1 after the last.
// Rows are in key order: the level-0 rows are nodes 0..n-1, so node v's level-0 links are row v;
// the upper levels follow, level by level, nodes ascending. The last row names the entry point,
// a node of the top level. A graph is read in place (HnswGraphView), from a memory map: nothing
// is decoded at open, and every id is checked as it is followed, so a damaged file is an error
// (Corrupt), never a read out of bounds.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::index::vector {

// HNSW's parameters: the links per node (m; 2m on level 0) and the candidates a build keeps
// while it looks for a node's neighbours. The defaults follow hnswlib's M = 16 and a smaller
// ef_construction (100, hnswlib 200): builds run on few cores, and recall at a given query ef
// changes little beyond 100 (docs/indexes.md).
inline constexpr int kDefaultHnswM = 16;
inline constexpr int kMinHnswM = 2;
inline constexpr int kMaxHnswM = 256;
inline constexpr int kDefaultEfConstruction = 100;
inline constexpr int kMaxEfConstruction = 10000;
// A query's candidate list (ef) when the query names none; a search keeps at least k.
inline constexpr int kDefaultHnswEf = 64;

struct HnswBuildOptions {
  int m = kDefaultHnswM;
  int ef_construction = kDefaultEfConstruction;
  uint64_t seed = 0;
};

// One partition's graph in its stored form.
struct HnswRows {
  std::vector<uint64_t> keys;      // level << 32 | node, ascending
  std::vector<int32_t> neighbors;  // keys.size() × (2m), -1 after the last link
};

// The graph over `count` vectors (dim floats each, row-major), linked by squared l2 distance
// (ivf_graphs.h maps the other metrics onto it). An empty input gives no rows. Fails only when
// the current operation is cancelled (checked per batch) or memory runs out.
arrow::Result<HnswRows> BuildHnswGraph(const float* vectors, int64_t count, int dim,
                                       const HnswBuildOptions& options);

// Marks the nodes one search has visited; reused between searches without clearing (a
// generation per search).
class VisitedNodes {
 public:
  // Forgets every mark, for a graph of `count` nodes.
  void Reset(int64_t count);
  // Marks `node`; false when it already was.
  bool Visit(int32_t node) {
    if (marks_[static_cast<size_t>(node)] == generation_) return false;
    marks_[static_cast<size_t>(node)] = generation_;
    return true;
  }
  bool visited(int32_t node) const { return marks_[static_cast<size_t>(node)] == generation_; }

 private:
  std::vector<uint32_t> marks_;
  uint32_t generation_ = 0;
};

// A node and its distance to the query.
struct GraphCandidate {
  float distance;
  int32_t node;
};

// One partition's stored graph, read in place. `keys` and `neighbors` hold `rows` rows of
// `width` links; the graph covers `nodes` nodes (the partition's rows).
class HnswGraphView {
 public:
  HnswGraphView(const uint64_t* keys, const int32_t* neighbors, int64_t rows, int width,
                int64_t nodes)
      : keys_(keys), neighbors_(neighbors), rows_(rows), width_(width), nodes_(nodes) {}

  int64_t nodes() const { return nodes_; }
  int width() const { return width_; }
  // Corrupt unless the rows could be this graph's: at least one per node, the level-0 keys the
  // node numbers, an entry point among the nodes. Cheap (no link is read); the searches check
  // every link they follow.
  arrow::Status CheckShape() const;
  // The entry point and its level (after CheckShape).
  int32_t entry() const { return static_cast<int32_t>(keys_[rows_ - 1] & 0xffffffffu); }
  int top_level() const { return static_cast<int>(keys_[rows_ - 1] >> 32); }
  // The `width` link slots of `node` on `level`; null when the graph has no such row.
  const int32_t* Links(int level, int32_t node) const;

 private:
  const uint64_t* keys_;
  const int32_t* neighbors_;
  int64_t rows_;
  int width_;
  int64_t nodes_;
};

// The error of a link to a node the graph does not have.
arrow::Status BadLink(const HnswGraphView& graph, int level, int32_t from, int64_t to);

// Searches `graph` for the nodes nearest a query: a greedy descent through the upper levels,
// then a search of level 0 keeping the `ef` nearest accepted nodes. distances(nodes, count, out)
// computes the query's distance to `count` nodes; accept(node, distance) says whether a node may
// be returned (a filter, a distance range): rejected nodes are still walked through, so a filter
// does not cut the graph. When fewer than `ef` accepted nodes were found (a selective filter, or
// nodes the walk cannot reach), the nodes not visited are scored too: every accepted node of a
// graph of at most ef accepted nodes is found. `found` receives the accepted nodes (any order).
template <typename Distances, typename Accept>
arrow::Status SearchHnswGraph(const HnswGraphView& graph, int ef, Distances&& distances,
                              Accept&& accept, VisitedNodes& visited,
                              std::vector<GraphCandidate>* found);

}  // namespace tessera::index::vector

#include "tessera/index/vector/hnsw_search_inl.h"
