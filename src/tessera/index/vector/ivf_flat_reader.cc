#include "tessera/index/vector/ivf_flat_reader.h"

#include <algorithm>
#include <cmath>

#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

// The order of results: by distance, then by row address. Distances are never NaN here.
bool Before(const ScoredRow& a, const ScoredRow& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.row_address < b.row_address);
}

}  // namespace

arrow::Result<IvfModel> ReadIvfModel(const SegmentDirectory& dir,
                                     const std::string& expected_fingerprint, std::string* bytes) {
  const std::string path = dir.path + "/" + kIvfModelFile;
  const std::string where = dir.storage->AbsolutePath(path);
  auto buffer = dir.storage->ReadFile(path);
  if (!buffer.ok()) return WithContext(buffer.status(), "reading IVF model " + where);
  const std::string_view view((*buffer)->data_as<char>(), static_cast<size_t>((*buffer)->size()));
  ARROW_ASSIGN_OR_RAISE(IvfModel model, IvfModel::Deserialize(view, "IVF model " + where));
  if (!expected_fingerprint.empty() && IvfModel::FingerprintOf(view) != expected_fingerprint) {
    return Corrupt("IVF model ", where, " has fingerprint ", IvfModel::FingerprintOf(view),
                   " but its segment ", dir.uuid, " records ", expected_fingerprint);
  }
  if (bytes != nullptr) bytes->assign(view);
  return model;
}

arrow::Result<std::unique_ptr<IvfFlatReader>> IvfFlatReader::Open(
    const format::SegmentMeta& segment, const SegmentDirectory& dir) {
  if (segment.model_fingerprint().empty()) {
    return Corrupt("IVF_FLAT segment ", segment.uuid(), " of index ", segment.index_name(),
                   " records no model fingerprint");
  }
  ARROW_ASSIGN_OR_RAISE(IvfModel model, ReadIvfModel(dir, segment.model_fingerprint()));
  ARROW_ASSIGN_OR_RAISE(auto partitions,
                        IvfPartitions::Open(*dir.storage, dir.path + "/" + kIvfPartitionsFile,
                                            model.dim(), model.num_partitions()));
  return std::unique_ptr<IvfFlatReader>(
      new IvfFlatReader(segment, std::move(model), std::move(partitions)));
}

arrow::Result<std::vector<ScoredRow>> IvfFlatReader::Search(const VectorQuery& query) const {
  if (query.vector == nullptr) return InvalidArgument("a vector search needs a query vector");
  if (query.dim != dim()) {
    return InvalidArgument("the query vector has dimension ", query.dim, "; index ",
                           meta_.index_name(), " holds vectors of dimension ", dim());
  }
  if (query.k < 0) return InvalidArgument("k must not be negative, got ", query.k);
  if (query.nprobes < 1) return InvalidArgument("nprobes must be at least 1, got ", query.nprobes);
  for (int d = 0; d < query.dim; ++d) {
    if (!std::isfinite(query.vector[d])) {
      return InvalidArgument("the query vector holds ", query.vector[d], " at position ", d,
                             "; a query must be finite");
    }
  }
  if ((query.lower_distance && std::isnan(*query.lower_distance)) ||
      (query.upper_distance && std::isnan(*query.upper_distance))) {
    return InvalidArgument("a distance range bound must be a number, not NaN");
  }
  std::vector<ScoredRow> best;  // a max-heap under Before: the worst kept row on top
  if (query.k == 0) return best;
  const size_t k = static_cast<size_t>(query.k);
  const Metric metric = model_.metric();
  const int dimension = dim();
  // An empty std::function accepts every row, like a null pointer.
  const std::function<bool(uint64_t)>* accept =
      query.accept != nullptr && *query.accept ? query.accept : nullptr;
  for (int partition : model_.Probe(query.vector, query.nprobes)) {
    const int64_t size = partitions_->size(partition);
    const uint64_t* rows = partitions_->row_addresses(partition);
    const float* vectors = partitions_->vectors(partition);
    for (int64_t i = 0; i < size; ++i) {
      const ScoredRow candidate{rows[i],
                                Distance(metric, query.vector, vectors + i * dimension, dimension)};
      if (std::isnan(candidate.distance)) continue;
      if (query.lower_distance && !(candidate.distance >= *query.lower_distance)) continue;
      if (query.upper_distance && !(candidate.distance < *query.upper_distance)) continue;
      if (best.size() == k && !Before(candidate, best.front())) continue;
      // accept() last: it may cost more (a bitmap lookup, a filter) than the checks above.
      if (accept != nullptr && !(*accept)(candidate.row_address)) continue;
      if (best.size() == k) {
        std::pop_heap(best.begin(), best.end(), Before);
        best.back() = candidate;
      } else {
        best.push_back(candidate);
      }
      std::push_heap(best.begin(), best.end(), Before);
    }
  }
  std::sort_heap(best.begin(), best.end(), Before);
  return best;
}

}  // namespace tessera::index::vector
