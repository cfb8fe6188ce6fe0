// The reader of one IVF_FLAT segment: nearest-neighbour search over its partitions.
//
// Search probes the query.nprobes partitions whose centroids are nearest to the query (the
// rule rows were assigned by), computes vector::Distance(metric, query, row vector) for their
// rows, and keeps the k best by (distance, row address). Rows outside [lower, upper), rows
// rejected by query.accept and rows whose distance is NaN are skipped inside the scan, so they
// never take a place in the top k. InvalidArgument for a query of the wrong dimension, with a
// non-finite element, k < 0, nprobes < 1 or a NaN range bound; nprobes beyond the partition
// count probes every partition. Immutable after Open: Search may run on many threads.
//
// SearchBatch answers many queries as Search answers each, bit for bit.
//
// IVF_HNSW_FLAT segments (Open with graph) search each probed partition of more than the query's
// ef rows through its HNSW graph (ivf_graphs.h) instead of scanning it: the same exact distances,
// of the rows the graph walk reaches.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string>

#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector_segment.h"

namespace tessera::index::vector {

struct IvfGraphs;

inline constexpr const char* kIvfModelFile = "model.bin";

// Corrupt, naming `dir`/model.bin, unless `bytes` have fingerprint `expected` (OK when empty).
arrow::Status CheckModelFingerprint(const SegmentDirectory& dir, std::string_view bytes,
                                    const std::string& expected);

// The bytes of `dir`/model.bin; Corrupt when their fingerprint is not `expected_fingerprint`
// (skipped when empty).
arrow::Result<std::string> ReadModelFile(const SegmentDirectory& dir,
                                         const std::string& expected_fingerprint);

// Reads and checks `dir`/model.bin: Corrupt when damaged or when its fingerprint is not
// `expected_fingerprint` (skipped when empty). The model's bytes in *bytes when not null.
arrow::Result<IvfModel> ReadIvfModel(const SegmentDirectory& dir,
                                     const std::string& expected_fingerprint,
                                     std::string* bytes = nullptr);

class IvfFlatReader final : public VectorSegmentReader {
 public:
  // `graph`: an IVF_HNSW_FLAT segment (its model wraps the IVF model, ivf_graphs.h): each
  // probed partition with more rows than the query's ef is searched through its graph.
  static arrow::Result<std::unique_ptr<IvfFlatReader>> Open(const format::SegmentMeta& segment,
                                                            const SegmentDirectory& dir,
                                                            bool graph = false);

  const format::SegmentMeta& meta() const override { return meta_; }
  Metric metric() const override { return model_.metric(); }
  int dim() const override { return model_.dim(); }
  int num_partitions() const override { return model_.num_partitions(); }
  arrow::Result<std::vector<ScoredRow>> Search(const VectorQuery& query) const override;
  // Probes all the queries at once (one by one without OpenBLAS), then reads each probed partition
  // once per block of queries, in tiles that stay in cache while the block's queries probing it
  // score them (SearchPartitionTiles).
  arrow::Result<std::vector<std::vector<ScoredRow>>> SearchBatch(const VectorQuery* queries,
                                                                 int64_t count) const override;

  const IvfModel& model() const { return model_; }
  const IvfPartitions& partitions() const { return *partitions_; }

 private:
  IvfFlatReader(format::SegmentMeta meta, IvfModel model, std::unique_ptr<IvfPartitions> parts,
                std::unique_ptr<IvfGraphs> graphs)
      : meta_(std::move(meta)),
        model_(std::move(model)),
        partitions_(std::move(parts)),
        graphs_(std::move(graphs)) {}

  format::SegmentMeta meta_;
  IvfModel model_;
  std::unique_ptr<IvfPartitions> partitions_;
  std::unique_ptr<IvfGraphs> graphs_;  // IVF_HNSW_FLAT only
};

}  // namespace tessera::index::vector
