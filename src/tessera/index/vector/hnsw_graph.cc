#include "tessera/index/vector/hnsw_graph.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "tessera/index/vector/random.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

// Levels above this are never drawn (a level needs m^level nodes to be likely at all).
constexpr int kMaxHnswLevel = 16;
// Insertion batches: at most 1/32 of the nodes inserted so far, and at most this many.
constexpr int64_t kBatchFraction = 32;
constexpr int64_t kMaxBatch = 1024;

// Builds one graph: nodes inserted in a seeded random order, in batches, each linked by a search
// of the graph as it stood before its batch (hnsw_graph.h).
class GraphBuilder {
 public:
  GraphBuilder(const float* vectors, int64_t count, int dim, const HnswBuildOptions& options)
      : vectors_(vectors),
        count_(count),
        dim_(dim),
        m_(options.m),
        ef_(std::max(options.ef_construction, options.m)),
        links_(static_cast<size_t>(count)) {
    Random random(options.seed);
    const double scale = 1.0 / std::log(static_cast<double>(std::max(m_, 2)));
    for (auto& node : links_) {
      // 1 - Uniform() is in (0, 1]: the logarithm is finite.
      const double drawn = -std::log(1.0 - random.Uniform()) * scale;
      node.resize(static_cast<size_t>(std::min<double>(drawn, kMaxHnswLevel)) + 1);
    }
    // Insertion order: a permutation drawn from the same seed (Fisher–Yates).
    order_.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) order_[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    for (int64_t i = count - 1; i > 0; --i) {
      std::swap(order_[static_cast<size_t>(i)], order_[random.Below(static_cast<uint64_t>(i) + 1)]);
    }
  }

  arrow::Result<HnswRows> Build() {
    if (count_ == 0) return Rows();
    entry_ = order_[0];
    // Nodes are inserted in a seeded random order, in batches: every node of a batch plans its
    // links by searching the graph as it stood before the batch (in parallel: the graph is only
    // read), then the batch is linked in order (serially: linking prunes other nodes' lists). A
    // batch is a small part of the graph so far (1/32, at most 1,024 nodes), so a node misses
    // few possible links; in random order its nearest rows are rarely in its own batch (rows
    // stored in an order where neighbours sit together, as embeddings of sorted text do, lost 2
    // points of recall inserted in row order). A batch also ends at a node drawn above the
    // graph's top level, so that the next node rising as high searches (and links to) it. The
    // batches depend only on the count inserted and the levels, so the graph does not depend on
    // the thread count.
    std::vector<Plan> plans;
    for (int64_t first = 1; first < count_;) {
      const int64_t size = std::clamp<int64_t>(first / kBatchFraction, 1, kMaxBatch);
      int64_t end = std::min(count_, first + size);
      const int top = LevelOf(entry_);
      for (int64_t i = first; i < end; ++i) {
        if (LevelOf(order_[static_cast<size_t>(i)]) > top) end = i + 1;
      }
      ARROW_RETURN_NOT_OK(util::CheckCancelled());
      plans.assign(static_cast<size_t>(end - first), Plan());
      // A failure (memory) leaves plans empty: it must stop the build, not leave nodes unlinked.
      ARROW_RETURN_NOT_OK(
          util::ParallelFor(end - first, [&](int64_t begin, int64_t stop) -> arrow::Status {
            std::unique_ptr<VisitedNodes> visited = TakeVisited();
            for (int64_t i = begin; i < stop; ++i) {
              plans[static_cast<size_t>(i)] =
                  PlanLinks(order_[static_cast<size_t>(first + i)], *visited);
            }
            ReturnVisited(std::move(visited));
            return arrow::Status::OK();
          }));
      for (int64_t i = 0; i < end - first; ++i) {
        Link(order_[static_cast<size_t>(first + i)], std::move(plans[static_cast<size_t>(i)]));
      }
      first = end;
    }
    return Rows();
  }

 private:
  int MaxLinks(int level) const { return level == 0 ? 2 * m_ : m_; }
  int LevelOf(int32_t node) const { return static_cast<int>(links_[node].size()) - 1; }
  const float* Vector(int32_t node) const { return vectors_ + static_cast<size_t>(node) * dim_; }
  float Distance(int32_t a, int32_t b) const {
    const float distance = simd::ActiveKernels().l2_squared(Vector(a), Vector(b), dim_);
    // A NaN vector is infinitely far from everything: the orders below stay strict.
    return distance != distance ? INFINITY : distance;
  }

  // A node's links on each level it shares with the graph (level 0 first), found by searching
  // the graph; reads the graph only.
  using Plan = std::vector<std::vector<int32_t>>;
  Plan PlanLinks(int32_t node, VisitedNodes& visited) const {
    const int level = LevelOf(node);
    GraphCandidate current{Distance(node, entry_), entry_};
    const int top = LevelOf(entry_);
    for (int l = top; l > level; --l) current = Greedy(node, current, l);
    Plan plan(static_cast<size_t>(std::min(level, top) + 1));
    for (int l = std::min(level, top); l >= 0; --l) {
      std::vector<GraphCandidate> found = SearchLevel(node, current, l, visited);
      std::sort(found.begin(), found.end(), hnsw_detail::FartherOnTop());
      current = found.front();
      plan[static_cast<size_t>(l)] = SelectNeighbours(found, m_);
    }
    return plan;
  }

  // Gives `node` its planned links and links each of them back to it.
  void Link(int32_t node, Plan plan) {
    for (size_t l = 0; l < plan.size(); ++l) {
      links_[node][l] = std::move(plan[l]);
      for (int32_t neighbour : links_[node][l]) Connect(neighbour, node, static_cast<int>(l));
    }
    if (LevelOf(node) > LevelOf(entry_)) entry_ = node;
  }

  GraphCandidate Greedy(int32_t query, GraphCandidate current, int level) const {
    for (bool moved = true; moved;) {
      moved = false;
      for (int32_t neighbour : links_[current.node][static_cast<size_t>(level)]) {
        const float distance = Distance(query, neighbour);
        if (distance < current.distance) {
          current = {distance, neighbour};
          moved = true;
        }
      }
    }
    return current;
  }

  // The ef nearest nodes to `query` on `level` reachable from `entry`.
  std::vector<GraphCandidate> SearchLevel(int32_t query, GraphCandidate entry, int level,
                                          VisitedNodes& visited) const {
    visited.Reset(count_);
    std::vector<GraphCandidate> candidates{entry};
    std::vector<GraphCandidate> best{entry};
    visited.Visit(entry.node);
    const size_t capacity = static_cast<size_t>(ef_);
    while (!candidates.empty()) {
      std::pop_heap(candidates.begin(), candidates.end(), hnsw_detail::NearerOnTop());
      const GraphCandidate nearest = candidates.back();
      candidates.pop_back();
      if (best.size() >= capacity && nearest.distance > best.front().distance) break;
      for (int32_t neighbour : links_[nearest.node][static_cast<size_t>(level)]) {
        if (!visited.Visit(neighbour)) continue;
        const GraphCandidate candidate{Distance(query, neighbour), neighbour};
        if (best.size() < capacity || candidate.distance < best.front().distance) {
          candidates.push_back(candidate);
          std::push_heap(candidates.begin(), candidates.end(), hnsw_detail::NearerOnTop());
          best.push_back(candidate);
          std::push_heap(best.begin(), best.end(), hnsw_detail::FartherOnTop());
          if (best.size() > capacity) {
            std::pop_heap(best.begin(), best.end(), hnsw_detail::FartherOnTop());
            best.pop_back();
          }
        }
      }
    }
    return best;
  }

  // HNSW's heuristic: from `sorted` (nearest first, distances to the node being linked), keep a
  // candidate only when it is nearer to the node than to every candidate kept before it.
  std::vector<int32_t> SelectNeighbours(const std::vector<GraphCandidate>& sorted,
                                        int limit) const {
    std::vector<int32_t> kept;
    for (const GraphCandidate& candidate : sorted) {
      if (static_cast<int>(kept.size()) >= limit) break;
      bool diverse = true;
      for (int32_t other : kept) {
        if (Distance(candidate.node, other) < candidate.distance) {
          diverse = false;
          break;
        }
      }
      if (diverse) kept.push_back(candidate.node);
    }
    return kept;
  }

  // Links `from` to `to` on `level`, pruning from's links by the heuristic when they overflow.
  void Connect(int32_t from, int32_t to, int level) {
    auto& links = links_[from][static_cast<size_t>(level)];
    if (static_cast<int>(links.size()) < MaxLinks(level)) {
      links.push_back(to);
      return;
    }
    std::vector<GraphCandidate> candidates;
    candidates.reserve(links.size() + 1);
    for (int32_t neighbour : links) candidates.push_back({Distance(from, neighbour), neighbour});
    candidates.push_back({Distance(from, to), to});
    std::sort(candidates.begin(), candidates.end(), hnsw_detail::FartherOnTop());
    links = SelectNeighbours(candidates, MaxLinks(level));
  }

  HnswRows Rows() const {
    HnswRows rows;
    if (count_ == 0) return rows;
    const int width = 2 * m_;
    int top = 0;
    for (const auto& node : links_) top = std::max(top, static_cast<int>(node.size()) - 1);
    for (int level = 0; level <= top; ++level) {
      for (int64_t node = 0; node < count_; ++node) {
        if (LevelOf(static_cast<int32_t>(node)) < level) continue;
        rows.keys.push_back(uint64_t{static_cast<uint32_t>(level)} << 32 |
                            static_cast<uint32_t>(node));
        const auto& links = links_[node][static_cast<size_t>(level)];
        const size_t first = rows.neighbors.size();
        rows.neighbors.resize(first + static_cast<size_t>(width), -1);
        std::copy(links.begin(), links.end(), rows.neighbors.begin() + first);
      }
    }
    return rows;
  }

  const float* vectors_;
  int64_t count_;
  int dim_;
  int m_;
  int ef_;
  // links_[node][level]: the node's links on each of its levels.
  std::vector<std::vector<std::vector<int32_t>>> links_;
  // Visited marks for the parallel searches, reused between batches and freed with the builder.
  std::unique_ptr<VisitedNodes> TakeVisited() {
    std::lock_guard<std::mutex> lock(visited_mutex_);
    if (spare_visited_.empty()) return std::make_unique<VisitedNodes>();
    auto visited = std::move(spare_visited_.back());
    spare_visited_.pop_back();
    return visited;
  }
  void ReturnVisited(std::unique_ptr<VisitedNodes> visited) {
    std::lock_guard<std::mutex> lock(visited_mutex_);
    spare_visited_.push_back(std::move(visited));
  }

  int32_t entry_ = -1;
  std::vector<int32_t> order_;  // the insertion order
  std::mutex visited_mutex_;
  std::vector<std::unique_ptr<VisitedNodes>> spare_visited_;
};

}  // namespace

arrow::Result<HnswRows> BuildHnswGraph(const float* vectors, int64_t count, int dim,
                                       const HnswBuildOptions& options) {
  return GraphBuilder(vectors, count, dim, options).Build();
}

void VisitedNodes::Reset(int64_t count) {
  if (marks_.size() < static_cast<size_t>(count)) marks_.resize(static_cast<size_t>(count), 0);
  if (++generation_ == 0) {  // wrapped: old marks could match again
    std::fill(marks_.begin(), marks_.end(), 0);
    generation_ = 1;
  }
}

arrow::Status HnswGraphView::CheckShape() const {
  if (rows_ < nodes_ || width_ < 1) {
    return Corrupt("has ", rows_, " graph rows of ", width_, " links for ", nodes_, " rows");
  }
  if (nodes_ > 0 && (keys_[0] != 0 || keys_[nodes_ - 1] != static_cast<uint64_t>(nodes_ - 1))) {
    return Corrupt("does not start with the level-0 links of its ", nodes_, " rows");
  }
  if (rows_ > 0 && static_cast<int64_t>(keys_[rows_ - 1] & 0xffffffffu) >= nodes_) {
    return Corrupt("names entry point ", keys_[rows_ - 1] & 0xffffffffu, " of ", nodes_, " rows");
  }
  return arrow::Status::OK();
}

const int32_t* HnswGraphView::Links(int level, int32_t node) const {
  if (node < 0 || node >= nodes_) return nullptr;
  // Level-0 rows are the first `nodes` rows (CheckShape checks the first and last keys; reading
  // each key would cost the walk a cache miss per row it expands, and a wrong key in between
  // cannot lead outside the rows).
  if (level == 0) return neighbors_ + static_cast<size_t>(node) * width_;
  const uint64_t key = uint64_t{static_cast<uint32_t>(level)} << 32 | static_cast<uint32_t>(node);
  const uint64_t* begin = keys_ + nodes_;
  const uint64_t* end = keys_ + rows_;
  const uint64_t* found = std::lower_bound(begin, end, key);
  if (found == end || *found != key) return nullptr;
  return neighbors_ + static_cast<size_t>(found - keys_) * width_;
}

arrow::Status BadLink(const HnswGraphView& graph, int level, int32_t from, int64_t to) {
  if (from == to) return Corrupt("has no level-", level, " links for row ", from);
  return Corrupt("links row ", from, " on level ", level, " to row ", to, " of ", graph.nodes());
}

}  // namespace tessera::index::vector
