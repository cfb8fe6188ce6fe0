// The reader of one IVF_SQ, IVF_PQ or IVF_RQ segment: nearest-neighbour search over quantized
// codes.
//
// Search probes the query.nprobes partitions nearest to the query (cosine: the unit query),
// scores their codes with the model's quantizer (approximate distances, quantizer.h) and keeps
// the k best by (approximate distance, row address), with the rules of TopRows (ivf_search.h).
// The planner re-ranks them with exact distances when asked (refine_factor). Immutable after
// Open: Search may run on many threads.
//
// IVF_HNSW_SQ / IVF_HNSW_PQ segments (Open with graph) search each probed partition of more than
// the query's ef rows through its HNSW graph (ivf_graphs.h), scoring the codes the walk reaches.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string_view>
#include <vector>

#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector/ivf_quantized_model.h"
#include "tessera/index/vector_segment.h"

namespace tessera::index::vector {

struct IvfGraphs;

class IvfQuantizedReader final : public VectorSegmentReader {
 public:
  static arrow::Result<std::unique_ptr<IvfQuantizedReader>> Open(const format::SegmentMeta& segment,
                                                                 const SegmentDirectory& dir,
                                                                 QuantizerKind kind,
                                                                 bool graph = false);

  const format::SegmentMeta& meta() const override { return meta_; }
  Metric metric() const override { return model_.ivf.metric(); }
  int dim() const override { return model_.ivf.dim(); }
  int num_partitions() const override { return model_.ivf.num_partitions(); }
  bool approximate() const override { return true; }
  arrow::Result<std::vector<ScoredRow>> Search(const VectorQuery& query) const override;
  // Probes all the queries at once (one by one without OpenBLAS), then reads each probed
  // partition's codes once per block of queries, in tiles that stay in cache while the block's
  // queries probing it score them (SearchPartitionTiles).
  arrow::Result<std::vector<std::vector<ScoredRow>>> SearchBatch(const VectorQuery* queries,
                                                                 int64_t count) const override;

 private:
  IvfQuantizedReader(format::SegmentMeta meta, IvfQuantizedModel model,
                     std::unique_ptr<IvfPartitions> partitions, std::unique_ptr<IvfGraphs> graphs)
      : meta_(std::move(meta)),
        model_(std::move(model)),
        partitions_(std::move(partitions)),
        graphs_(std::move(graphs)) {}

  format::SegmentMeta meta_;
  // `query` as searched: unit length (a copy in `unit`) for cosine, else itself.
  const float* SearchVector(const float* query, std::vector<float>& unit) const;

  IvfQuantizedModel model_;
  std::unique_ptr<IvfPartitions> partitions_;
  std::unique_ptr<IvfGraphs> graphs_;  // IVF_HNSW_SQ / IVF_HNSW_PQ only
};

}  // namespace tessera::index::vector
