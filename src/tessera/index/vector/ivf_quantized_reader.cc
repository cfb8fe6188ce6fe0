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
  const float* vector = SearchVector(query.vector, unit);
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

const float* IvfQuantizedReader::SearchVector(const float* query, std::vector<float>& unit) const {
  if (metric() != Metric::kCosine) return query;
  unit.assign(query, query + dim());
  Normalize(unit.data(), dim());
  return unit.data();
}

arrow::Result<std::vector<std::vector<ScoredRow>>> IvfQuantizedReader::SearchBatch(
    const VectorQuery* queries, int64_t count) const {
  for (int64_t q = 0; q < count; ++q) {
    ARROW_RETURN_NOT_OK(CheckVectorQuery(queries[q], dim(), meta_.index_name()));
  }
  // The queries as Search probes and scores them (unit length for cosine).
  std::vector<std::vector<float>> units(static_cast<size_t>(count));
  std::vector<VectorQuery> searched(queries, queries + count);
  for (int64_t q = 0; q < count; ++q) {
    searched[q].vector = SearchVector(queries[q].vector, units[q]);
  }
  ARROW_ASSIGN_OR_RAISE(auto probes, ProbeQueries(model_.ivf, searched.data(), count));
  const int code_size = model_.quantizer->code_size();
  // Rows per tile: 64 KiB of codes.
  const int64_t tile_rows = std::max<int64_t>(1, (int64_t{64} << 10) / code_size);
  return SearchByPartition(
      searched.data(), count, probes, num_partitions(), [&]() -> PartitionVisit {
        // Each query's scorer, prepared once by the block the query belongs to.
        return [&, scorers = std::vector<std::shared_ptr<QueryScorer>>(static_cast<size_t>(count)),
                distances = std::vector<float>()](
                   int partition, const std::vector<int64_t>& probing,
                   std::vector<std::unique_ptr<TopRows>>& tops) mutable -> arrow::Status {
          ARROW_RETURN_NOT_OK(partitions_->Verify(partition));
          const int64_t size = partitions_->size(partition);
          const uint8_t* codes = partitions_->codes(partition);
          const uint64_t* addresses = partitions_->row_addresses(partition);
          distances.resize(static_cast<size_t>(std::min(size, tile_rows)));
          for (int64_t first = 0; first < size; first += tile_rows) {
            const int64_t rows = std::min(tile_rows, size - first);
            for (int64_t q : probing) {
              auto& scorer = scorers[static_cast<size_t>(q)];
              if (scorer == nullptr) {
                scorer = model_.quantizer->Prepare(model_.ivf, searched[q].vector);
              }
              scorer->Score(partition, codes + first * code_size, rows, distances.data());
              tops[q]->Offer(addresses + first, distances.data(), rows);
            }
          }
          return arrow::Status::OK();
        };
      });
}

}  // namespace tessera::index::vector
