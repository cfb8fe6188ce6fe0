// What the IVF_HNSW_* families add to an IVF segment: the graph parameters in the model and a
// graph per partition in `graphs.arrow`.
//
// Model (model.bin) of an IVF_HNSW_FLAT / _SQ / _PQ index, little-endian:
//   8 bytes   magic "TSIVFHNS"
//   uint32    format version (1)
//   uint32    m, uint32 ef_construction (hnsw_graph.h)
//   uint32    n, then n bytes: the model of the codes (IVF_FLAT's IvfModel, or the quantized
//             model of IVF_SQ / IVF_PQ, ivf_quantized_model.h)
//   uint32    CRC-32C of all the bytes before it
// One fingerprint covers the graph parameters and the codes' model: segments built with other
// graph parameters are of another model and never merge.
//
// Graphs (graphs.arrow, with block checksums beside it): the partitions-file form
// (ivf_partitions.h, layout GraphLinks(2m)), one batch per partition holding the partition's
// graph in HnswRows form; node v is row v of the same partition of partitions.arrow. Graphs
// are built from the partitions file once it is written (a build or a merge alike): from the
// raw vectors for IVF_HNSW_FLAT, from the decoded codes for the quantized families (the graph
// links what the search will score). Links are chosen by squared l2 between rows: on the rows
// for l2, on unit rows for cosine (where l2 orders as cosine does), and for dot on the rows with
// one more coordinate, sqrt(M² − ‖x‖²), which makes l2 to (q, 0) order rows as −q·x does.
#pragma once

#include <arrow/result.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "tessera/index/vector/distance.h"
#include "tessera/index/vector/hnsw_graph.h"
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/quantizer.h"
#include "tessera/index/vector_segment.h"
#include "tessera/io/storage.h"
#include "tessera/status.h"

namespace tessera::index::vector {

inline constexpr const char* kIvfGraphsFile = "graphs.arrow";

struct HnswParams {
  int m = kDefaultHnswM;
  int ef_construction = kDefaultEfConstruction;
};

bool HasHnswModelMagic(std::string_view bytes);
// The model bytes of an IVF_HNSW_* index around `inner` (the codes' model).
std::string WrapHnswModel(const HnswParams& params, std::string_view inner);
// The graph parameters and the codes' model (a view into `bytes`); Corrupt, naming `what`, for
// bytes that are not such a model.
arrow::Result<std::pair<HnswParams, std::string_view>> UnwrapHnswModel(std::string_view bytes,
                                                                       std::string_view what);

// The graph parameters and the codes' model bytes of `dir`/model.bin, an IVF_HNSW model: Corrupt
// when damaged (decoded first, so damage is named as such) or when its fingerprint is not
// `expected_fingerprint` (skipped when empty).
arrow::Result<std::pair<HnswParams, std::string>> ReadHnswModelFile(
    const SegmentDirectory& dir, const std::string& expected_fingerprint);

// Builds the graph of every partition of the written `partitions` and writes them to
// `graphs_path`, window by window (memory: a few partitions' graphs). `quantizer` decodes codes
// (null for raw vectors); `ivf` is the codes' coarse model. A partition's levels are drawn from
// a seed derived from its number. Checks cancellation between partitions and batches.
arrow::Status WriteIvfGraphs(io::Storage& storage, const std::string& graphs_path,
                             const IvfPartitions& partitions, const IvfModel& ivf,
                             const Quantizer* quantizer, const HnswParams& params);

// The graph of `partition` of an open graphs file (opened with layout GraphLinks(2 × params.m)),
// over the `nodes` rows of the same partition of partitions.arrow, after verifying its bytes and
// that it has a row per node (Corrupt naming the file otherwise).
arrow::Result<HnswGraphView> GraphOf(const IvfPartitions& graphs, const HnswParams& params,
                                     int partition, int64_t nodes);

// An open graphs file and the parameters its graphs were built with.
struct IvfGraphs {
  HnswParams params;
  std::unique_ptr<IvfPartitions> file;
  std::string path;  // for messages
};

// Opens `dir`/graphs.arrow for the open `partitions` of the same segment. Each partition's graph
// is checked when first used (GraphOf): Corrupt unless it has a row for each of the partition's
// rows (and none for an empty partition).
arrow::Result<std::unique_ptr<IvfGraphs>> OpenIvfGraphs(const SegmentDirectory& dir,
                                                        const HnswParams& params,
                                                        const IvfPartitions& partitions);

// One query's searches of the graphs of the partitions it probes. A partition of at most ef
// rows is not worth a graph search (UsesGraph): the reader scans it.
class PartitionGraphSearch {
 public:
  PartitionGraphSearch(const IvfGraphs& graphs, const VectorQuery& query)
      : graphs_(graphs), ef_(std::max(query.ef > 0 ? query.ef : kDefaultHnswEf, query.k)) {}

  bool UsesGraph(int64_t partition_size) const { return partition_size > ef_; }

  // Fetches ahead, on object storage, the graphs of the `probed` partitions of `partitions`
  // that the search will walk (IvfPartitions::Prefetch); nothing on local storage.
  arrow::Status Prefetch(const std::vector<int>& probed, const IvfPartitions& partitions) const {
    if (!graphs_.file->remote()) return arrow::Status::OK();
    std::vector<int> walked;
    for (int partition : probed) {
      ARROW_RETURN_NOT_OK(partitions.Verify(partition));
      if (UsesGraph(partitions.size(partition))) walked.push_back(partition);
    }
    return graphs_.file->Prefetch(walked);
  }

  // Searches the graph of `partition` (rows of `partitions`) and offers the rows it finds to
  // `best`. distances(nodes, count, out): the query's distances to `count` rows of the
  // partition. Rows outside the query's range or rejected by its accept callback are walked
  // through but never kept (SearchHnswGraph).
  template <typename Distances>
  arrow::Status Search(int partition, const IvfPartitions& partitions, Distances&& distances,
                       TopRows& best) {
    const int64_t size = partitions.size(partition);
    const uint64_t* rows = partitions.row_addresses(partition);
    auto graph = GraphOf(*graphs_.file, graphs_.params, partition, size);
    if (!graph.ok()) return graph.status();
    auto accept = [&](int32_t node, float distance) {
      return best.Qualifies(ScoredRow{rows[node], distance});
    };
    // One set of marks per thread, reused by its searches: sized to the largest partition once,
    // not cleared and reallocated per query.
    thread_local VisitedNodes visited;
    arrow::Status status = SearchHnswGraph(*graph, ef_, distances, accept, visited, &found_);
    if (!status.ok()) {
      return WithContext(status, "IVF graphs file " + graphs_.path + " partition " +
                                     std::to_string(partition) +
                                     " (rebuild the index: tessera index create --replace)");
    }
    addresses_.clear();
    distances_.clear();
    for (const GraphCandidate& candidate : found_) {
      addresses_.push_back(rows[candidate.node]);
      distances_.push_back(candidate.distance);
    }
    best.Offer(addresses_.data(), distances_.data(), static_cast<int64_t>(found_.size()));
    return arrow::Status::OK();
  }

 private:
  const IvfGraphs& graphs_;
  int ef_;
  std::vector<GraphCandidate> found_;
  std::vector<uint64_t> addresses_;
  std::vector<float> distances_;
};

}  // namespace tessera::index::vector
