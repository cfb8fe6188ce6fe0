// SearchHnswGraph's body (declared and explained in hnsw_graph.h): a template, so that the
// family's distance and accept callables inline into the walk.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace tessera::index::vector {

namespace hnsw_detail {

// Heap orders over GraphCandidate, ties by node so a walk is deterministic.
struct FartherOnTop {  // a max-heap: the farthest kept node on top
  bool operator()(const GraphCandidate& a, const GraphCandidate& b) const {
    return a.distance < b.distance || (a.distance == b.distance && a.node < b.node);
  }
};
struct NearerOnTop {  // a min-heap: the nearest candidate on top
  bool operator()(const GraphCandidate& a, const GraphCandidate& b) const {
    return a.distance > b.distance || (a.distance == b.distance && a.node > b.node);
  }
};

// Appends the links of `node` on `level` to `out`; an error for a missing row or a bad id.
inline arrow::Status AppendLinks(const HnswGraphView& graph, int level, int32_t node,
                                 std::vector<int32_t>& out) {
  const int32_t* links = graph.Links(level, node);
  if (links == nullptr) return BadLink(graph, level, node, node);
  for (int i = 0; i < graph.width() && links[i] >= 0; ++i) {
    if (links[i] >= graph.nodes()) return BadLink(graph, level, node, links[i]);
    out.push_back(links[i]);
  }
  return arrow::Status::OK();
}

}  // namespace hnsw_detail

template <typename Distances, typename Accept>
arrow::Status SearchHnswGraph(const HnswGraphView& graph, int ef, Distances&& distances,
                              Accept&& accept, VisitedNodes& visited,
                              std::vector<GraphCandidate>* found) {
  using hnsw_detail::FartherOnTop;
  using hnsw_detail::NearerOnTop;
  found->clear();
  const int64_t nodes = graph.nodes();
  if (nodes == 0) return arrow::Status::OK();
  ARROW_RETURN_NOT_OK(graph.CheckShape());
  const size_t capacity = static_cast<size_t>(std::max(ef, 1));
  std::vector<int32_t> batch;
  std::vector<float> batch_distances;
  auto score = [&]() {
    if (batch.empty()) return;  // a lone node on an upper level
    batch_distances.resize(batch.size());
    distances(batch.data(), static_cast<int>(batch.size()), batch_distances.data());
  };

  // Upper levels: move to the nearest neighbour while one is nearer.
  // NaN distances (a damaged code, a NaN vector) walk as infinitely far and are never kept.
  auto walking = [](float distance) { return distance != distance ? INFINITY : distance; };
  GraphCandidate current{0, graph.entry()};
  batch.assign(1, current.node);
  score();
  float current_raw = batch_distances[0];  // as scored (NaN kept), for level 0
  current.distance = walking(current_raw);
  for (int level = graph.top_level(); level > 0; --level) {
    for (bool moved = true; moved;) {
      moved = false;
      batch.clear();
      ARROW_RETURN_NOT_OK(hnsw_detail::AppendLinks(graph, level, current.node, batch));
      score();
      for (size_t i = 0; i < batch.size(); ++i) {
        if (walking(batch_distances[i]) < current.distance) {
          current = {walking(batch_distances[i]), batch[i]};
          current_raw = batch_distances[i];
          moved = true;
        }
      }
    }
  }

  // Level 0: a best-first walk keeping the `ef` nearest accepted nodes.
  visited.Reset(nodes);
  std::vector<GraphCandidate> candidates;      // NearerOnTop
  std::vector<GraphCandidate>& best = *found;  // FartherOnTop, accepted nodes only
  auto keep = [&](const GraphCandidate& candidate) {
    if (candidate.distance != candidate.distance) return;  // NaN
    if (!accept(candidate.node, candidate.distance)) return;
    best.push_back(candidate);
    std::push_heap(best.begin(), best.end(), FartherOnTop());
    if (best.size() > capacity) {
      std::pop_heap(best.begin(), best.end(), FartherOnTop());
      best.pop_back();
    }
  };
  visited.Visit(current.node);
  candidates.push_back(current);
  keep({current_raw, current.node});
  while (!candidates.empty()) {
    std::pop_heap(candidates.begin(), candidates.end(), NearerOnTop());
    const GraphCandidate nearest = candidates.back();
    candidates.pop_back();
    if (best.size() >= capacity && nearest.distance > best.front().distance) break;
    batch.clear();
    ARROW_RETURN_NOT_OK(hnsw_detail::AppendLinks(graph, 0, nearest.node, batch));
    batch.erase(std::remove_if(batch.begin(), batch.end(),
                               [&](int32_t node) { return !visited.Visit(node); }),
                batch.end());
    if (batch.empty()) continue;
    score();
    for (size_t i = 0; i < batch.size(); ++i) {
      const GraphCandidate neighbour{batch_distances[i], batch[i]};
      if (neighbour.distance != neighbour.distance) continue;
      if (best.size() < capacity || neighbour.distance < best.front().distance) {
        candidates.push_back(neighbour);
        std::push_heap(candidates.begin(), candidates.end(), NearerOnTop());
        keep(neighbour);
      }
    }
  }

  // Fewer than ef accepted nodes found: score the nodes the walk did not reach.
  if (best.size() < capacity) {
    constexpr int64_t kScanBatch = 256;
    for (int64_t first = 0; first < nodes; first += kScanBatch) {
      batch.clear();
      for (int64_t node = first; node < std::min(nodes, first + kScanBatch); ++node) {
        if (!visited.visited(static_cast<int32_t>(node)))
          batch.push_back(static_cast<int32_t>(node));
      }
      if (batch.empty()) continue;
      score();
      for (size_t i = 0; i < batch.size(); ++i) keep({batch_distances[i], batch[i]});
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::index::vector
