#include "tessera/index/vector/ivf_flat_reader.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "tessera/index/vector/ivf_graphs.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

std::string ModelPath(const SegmentDirectory& dir) { return dir.path + "/" + kIvfModelFile; }

arrow::Result<std::string> ReadModelBytes(const SegmentDirectory& dir) {
  auto buffer = dir.storage->ReadFile(ModelPath(dir));
  if (!buffer.ok()) {
    return WithContext(buffer.status(),
                       "reading IVF model " + dir.storage->AbsolutePath(ModelPath(dir)));
  }
  return std::string((*buffer)->data_as<char>(), static_cast<size_t>((*buffer)->size()));
}

// Asks for the cache lines of a row of `dim` floats.
void PrefetchRow(const float* row, int dim) {
  constexpr int kFloatsPerLine = 16;
  for (int d = 0; d < dim; d += kFloatsPerLine) __builtin_prefetch(row + d);
}

}  // namespace

arrow::Status CheckModelFingerprint(const SegmentDirectory& dir, std::string_view bytes,
                                    const std::string& expected) {
  if (expected.empty() || IvfModel::FingerprintOf(bytes) == expected) return arrow::Status::OK();
  return Corrupt("IVF model ", dir.storage->AbsolutePath(ModelPath(dir)), " has fingerprint ",
                 IvfModel::FingerprintOf(bytes), " but its segment ", dir.uuid, " records ",
                 expected);
}

arrow::Result<std::string> ReadModelFile(const SegmentDirectory& dir,
                                         const std::string& expected_fingerprint) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadModelBytes(dir));
  ARROW_RETURN_NOT_OK(CheckModelFingerprint(dir, bytes, expected_fingerprint));
  return bytes;
}

arrow::Result<IvfModel> ReadIvfModel(const SegmentDirectory& dir,
                                     const std::string& expected_fingerprint, std::string* bytes) {
  // Decoding first: a damaged file is reported as damaged, not as a fingerprint mismatch.
  ARROW_ASSIGN_OR_RAISE(std::string content, ReadModelBytes(dir));
  ARROW_ASSIGN_OR_RAISE(
      IvfModel model,
      IvfModel::Deserialize(content, "IVF model " + dir.storage->AbsolutePath(ModelPath(dir))));
  ARROW_RETURN_NOT_OK(CheckModelFingerprint(dir, content, expected_fingerprint));
  if (bytes != nullptr) *bytes = std::move(content);
  return model;
}

arrow::Result<std::unique_ptr<IvfFlatReader>> IvfFlatReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir, bool graph) {
  if (segment.model_fingerprint().empty()) {
    return Corrupt(graph ? "IVF_HNSW_FLAT" : "IVF_FLAT", " segment ", segment.uuid(), " of index ",
                   segment.index_name(), " records no model fingerprint");
  }
  IvfModel model;
  std::unique_ptr<IvfGraphs> graphs;
  std::optional<HnswParams> graph_params;
  if (graph) {
    ARROW_ASSIGN_OR_RAISE(auto wrapped, ReadHnswModelFile(dir, segment.model_fingerprint()));
    ARROW_ASSIGN_OR_RAISE(
        model, IvfModel::Deserialize(wrapped.second, "the IVF model of segment " + segment.uuid()));
    graph_params = wrapped.first;
  } else {
    ARROW_ASSIGN_OR_RAISE(model, ReadIvfModel(dir, segment.model_fingerprint()));
  }
  ARROW_ASSIGN_OR_RAISE(
      auto partitions,
      IvfPartitions::Open(*dir.storage, dir.path + "/" + kIvfPartitionsFile,
                          PartitionLayout::Vectors(model.dim()), model.num_partitions()));
  if (graph_params) {
    ARROW_ASSIGN_OR_RAISE(graphs, OpenIvfGraphs(dir, *graph_params, *partitions));
  }
  return std::unique_ptr<IvfFlatReader>(
      new IvfFlatReader(segment, std::move(model), std::move(partitions), std::move(graphs)));
}

arrow::Result<std::vector<ScoredRow>> IvfFlatReader::Search(const VectorQuery& query) const {
  ARROW_RETURN_NOT_OK(CheckVectorQuery(query, dim(), meta_.index_name()));
  TopRows best(query);
  if (query.k == 0) return std::move(best).Finish();
  std::vector<float> distances;
  std::optional<PartitionGraphSearch> graph;
  if (graphs_ != nullptr) graph.emplace(*graphs_, query);
  const QueryDistance distance(model_.metric(), query.vector, dim());
  const std::vector<int> probed = model_.Probe(query.vector, query.nprobes);
  ARROW_RETURN_NOT_OK(partitions_->Prefetch(probed));
  if (graph) ARROW_RETURN_NOT_OK(graph->Prefetch(probed, *partitions_));
  for (int partition : probed) {
    ARROW_RETURN_NOT_OK(partitions_->Verify(partition));
    const int64_t size = partitions_->size(partition);
    if (graph && graph->UsesGraph(size)) {
      const float* vectors = partitions_->vectors(partition);
      ARROW_RETURN_NOT_OK(graph->Search(
          partition, *partitions_,
          [&](const int32_t* nodes, int count, float* out) {
            // A walk reads rows in no order: fetch the next row while this one is scored.
            auto row = [&](int i) { return vectors + static_cast<size_t>(nodes[i]) * dim(); };
            if (count > 0) PrefetchRow(row(0), dim());
            for (int i = 0; i < count; ++i) {
              if (i + 1 < count) PrefetchRow(row(i + 1), dim());
              out[i] = distance(row(i));
            }
          },
          best));
      continue;
    }
    distances.resize(static_cast<size_t>(size));
    DistancesTo(model_.metric(), query.vector, partitions_->vectors(partition), size, dim(),
                distances.data());
    best.Offer(partitions_->row_addresses(partition), distances.data(), size);
  }
  return std::move(best).Finish();
}

arrow::Result<std::vector<std::vector<ScoredRow>>> IvfFlatReader::SearchBatch(
    const VectorQuery* queries, int64_t count) const {
  // Graph searches share nothing between queries: one search per query, in parallel.
  if (graphs_ != nullptr) return VectorSegmentReader::SearchBatch(queries, count);
  return SearchPartitionTiles(
      queries, count, model_, *partitions_, int64_t{4} * dim(), /*row_block=*/1, meta_.index_name(),
      [&](int64_t, int64_t) -> TileScore {
        return [&](const int64_t* group, int count, int partition, int64_t first, int64_t rows,
                   float* const* out) {
          for (int i = 0; i < count; ++i) {
            DistancesTo(model_.metric(), queries[group[i]].vector,
                        partitions_->vectors(partition) + first * dim(), rows, dim(), out[i]);
          }
        };
      });
}

}  // namespace tessera::index::vector
