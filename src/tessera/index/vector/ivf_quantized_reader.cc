#include "tessera/index/vector/ivf_quantized_reader.h"

#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/status.h"

namespace tessera::index::vector {

arrow::Result<std::unique_ptr<IvfQuantizedReader>> IvfQuantizedReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir, QuantizerKind kind) {
  if (segment.model_fingerprint().empty()) {
    return Corrupt(segment.family(), " segment ", segment.uuid(), " of index ",
                   segment.index_name(), " records no model fingerprint");
  }
  ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadModelFile(dir, segment.model_fingerprint()));
  ARROW_ASSIGN_OR_RAISE(
      IvfQuantizedModel model,
      IvfQuantizedModel::Deserialize(
          bytes, kind, "model " + dir.storage->AbsolutePath(dir.path + "/" + kIvfModelFile)));
  model.quantizer->PrepareSearch(model.ivf);
  ARROW_ASSIGN_OR_RAISE(auto partitions,
                        IvfPartitions::Open(*dir.storage, dir.path + "/" + kIvfPartitionsFile,
                                            PartitionLayout::Codes(model.quantizer->code_size()),
                                            model.ivf.num_partitions()));
  return std::unique_ptr<IvfQuantizedReader>(
      new IvfQuantizedReader(segment, std::move(model), std::move(partitions)));
}

arrow::Result<std::vector<ScoredRow>> IvfQuantizedReader::Search(const VectorQuery& query) const {
  ARROW_RETURN_NOT_OK(CheckVectorQuery(query, dim(), meta_.index_name()));
  TopRows best(query);
  if (query.k == 0) return std::move(best).Finish();
  std::vector<float> unit;
  const float* vector = query.vector;
  if (metric() == Metric::kCosine) {
    unit.assign(query.vector, query.vector + dim());
    Normalize(unit.data(), dim());
    vector = unit.data();
  }
  auto scorer = model_.quantizer->Prepare(model_.ivf, vector);
  std::vector<float> distances;
  for (int partition : model_.ivf.Probe(vector, query.nprobes)) {
    ARROW_RETURN_NOT_OK(partitions_->Verify(partition));
    const int64_t size = partitions_->size(partition);
    distances.resize(static_cast<size_t>(size));
    scorer->Score(partition, partitions_->codes(partition), size, distances.data());
    best.Offer(partitions_->row_addresses(partition), distances.data(), size);
  }
  return std::move(best).Finish();
}

}  // namespace tessera::index::vector
