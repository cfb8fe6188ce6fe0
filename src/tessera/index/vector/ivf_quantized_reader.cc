#include "tessera/index/vector/ivf_quantized_reader.h"

#include <algorithm>
#include <optional>

#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/ivf_graphs.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/status.h"

namespace tessera::index::vector {

arrow::Result<std::unique_ptr<IvfQuantizedReader>> IvfQuantizedReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir, QuantizerKind kind,
    bool graph) {
  if (segment.model_fingerprint().empty()) {
    return Corrupt(segment.family(), " segment ", segment.uuid(), " of index ",
                   segment.index_name(), " records no model fingerprint");
  }
  std::string bytes;
  std::unique_ptr<IvfGraphs> graphs;
  std::optional<HnswParams> graph_params;
  if (graph) {
    ARROW_ASSIGN_OR_RAISE(auto wrapped, ReadHnswModelFile(dir, segment.model_fingerprint()));
    graph_params = wrapped.first;
    bytes = std::move(wrapped.second);
  } else {
    ARROW_ASSIGN_OR_RAISE(bytes, ReadModelFile(dir, segment.model_fingerprint()));
  }
  ARROW_ASSIGN_OR_RAISE(
      IvfQuantizedModel model,
      IvfQuantizedModel::Deserialize(
          bytes, kind, "model " + dir.storage->AbsolutePath(dir.path + "/" + kIvfModelFile)));
  if (graph_params && model.quantizer->row_block() > 1) {
    return Corrupt("the model of ", segment.family(), " segment ", segment.uuid(),
                   " holds codes stored in blocks (4-bit PQ), which a graph cannot walk");
  }
  model.quantizer->PrepareSearch(model.ivf);
  ARROW_ASSIGN_OR_RAISE(auto partitions,
                        IvfPartitions::Open(*dir.storage, dir.path + "/" + kIvfPartitionsFile,
                                            PartitionLayout::Codes(model.quantizer->code_size()),
                                            model.ivf.num_partitions()));
  if (graph_params) {
    ARROW_ASSIGN_OR_RAISE(graphs, OpenIvfGraphs(dir, *graph_params, *partitions));
  }
  return std::unique_ptr<IvfQuantizedReader>(
      new IvfQuantizedReader(segment, std::move(model), std::move(partitions), std::move(graphs)));
}

arrow::Result<std::vector<ScoredRow>> IvfQuantizedReader::Search(const VectorQuery& query) const {
  ARROW_RETURN_NOT_OK(CheckVectorQuery(query, dim(), meta_.index_name()));
  TopRows best(query);
  if (query.k == 0) return std::move(best).Finish();
  std::vector<float> unit;
  const float* vector = SearchVector(query.vector, unit);
  auto scorer = model_.quantizer->Prepare(model_.ivf, vector);
  std::vector<float> distances;
  std::optional<PartitionGraphSearch> graph;
  if (graphs_ != nullptr) graph.emplace(*graphs_, query);
  const int code_size = model_.quantizer->code_size();
  std::vector<uint8_t> gathered;  // the codes of the rows a graph walk scores
  const std::vector<int> probed = model_.ivf.Probe(vector, query.nprobes);
  ARROW_RETURN_NOT_OK(partitions_->Prefetch(probed));
  if (graph) ARROW_RETURN_NOT_OK(graph->Prefetch(probed, *partitions_));
  for (int partition : probed) {
    ARROW_RETURN_NOT_OK(partitions_->Verify(partition));
    const int64_t size = partitions_->size(partition);
    if (graph && graph->UsesGraph(size)) {
      const uint8_t* codes = partitions_->codes(partition);
      ARROW_RETURN_NOT_OK(graph->Search(
          partition, *partitions_,
          [&](const int32_t* nodes, int count, float* out) {
            gathered.resize(static_cast<size_t>(count) * code_size);
            // The walk's rows are scattered: ask for all their lines before copying any.
            for (int i = 0; i < count; ++i) {
              const uint8_t* code = codes + static_cast<size_t>(nodes[i]) * code_size;
              for (int at = 0; at < code_size; at += 64) __builtin_prefetch(code + at);
            }
            for (int i = 0; i < count; ++i) {
              std::copy_n(codes + static_cast<size_t>(nodes[i]) * code_size, code_size,
                          gathered.data() + static_cast<size_t>(i) * code_size);
            }
            scorer->Score(partition, gathered.data(), count, out);
          },
          best));
      continue;
    }
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
  // Graph searches share nothing between queries: one search per query, in parallel.
  if (graphs_ != nullptr) return VectorSegmentReader::SearchBatch(queries, count);
  // Checked before normalizing, as Search checks them: an infinite element is named as such.
  for (int64_t q = 0; q < count; ++q) {
    ARROW_RETURN_NOT_OK(CheckVectorQuery(queries[q], dim(), meta_.index_name()));
  }
  // The queries as Search probes and scores them (unit length for cosine).
  std::vector<std::vector<float>> units(static_cast<size_t>(std::max<int64_t>(count, 0)));
  std::vector<VectorQuery> searched(queries, queries + std::max<int64_t>(count, 0));
  for (int64_t q = 0; q < count; ++q) {
    searched[q].vector = SearchVector(queries[q].vector, units[q]);
  }
  const int code_size = model_.quantizer->code_size();
  return SearchPartitionTiles(
      searched.data(), count, model_.ivf, *partitions_, code_size, model_.quantizer->row_block(),
      meta_.index_name(), [&](int64_t begin, int64_t end) -> TileScore {
        // The block's scorers, each prepared at its query's first partition.
        auto scorers = std::make_shared<std::vector<std::unique_ptr<QueryScorer>>>(
            static_cast<size_t>(end - begin));
        return [&, begin, scorers](const int64_t* group, int count, int partition, int64_t first,
                                   int64_t rows, float* const* out) {
          QueryScorer* members[kTileQueries];
          for (int i = 0; i < count; ++i) {
            auto& scorer = (*scorers)[static_cast<size_t>(group[i] - begin)];
            if (scorer == nullptr) {
              scorer = model_.quantizer->Prepare(model_.ivf, searched[group[i]].vector);
            }
            members[i] = scorer.get();
          }
          model_.quantizer->ScoreQueries(members, count, partition,
                                         partitions_->codes(partition) + first * code_size, rows,
                                         out);
        };
      });
}

}  // namespace tessera::index::vector
