#include "tessera/index/vector/ivf_graphs.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/io/checksum.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"
#include "tessera/util/thread_pool.h"

namespace tessera::index::vector {

namespace {

constexpr char kHnswMagic[8] = {'T', 'S', 'I', 'V', 'F', 'H', 'N', 'S'};
constexpr uint32_t kHnswFormatVersion = 1;
// Each partition's graph draws its levels from this stream and its partition number.
constexpr uint64_t kGraphStream = 0x68'6e'73'77'67'72'61'70ULL;

void AppendGraphU32(std::string& out, uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

uint32_t ReadGraphU32(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  std::memcpy(&value, bytes.data() + at, sizeof(value));
  return value;
}

// The rows as dim + 1 floats (x, sqrt(M² − ‖x‖²)), M the largest norm of the partition: their
// squared l2 distance to a query (q, 0) is ‖q‖² + M² − 2 q·x, so for any one query it orders
// rows as the dot metric (−q·x) does, and l2 between rows is a true metric for the heuristic to
// choose links by. (−a·b between rows is not: a row is not its own nearest, and links would
// crowd onto the longest rows.)
const float* AugmentForInnerProduct(const float* rows, int64_t count, int dim,
                                    std::vector<float>& out) {
  const simd::Kernels& kernels = simd::ActiveKernels();
  float largest = 0;
  for (int64_t i = 0; i < count; ++i) {
    const float norm = kernels.inner_product(rows + i * dim, rows + i * dim, dim);
    if (norm > largest) largest = norm;  // NaN rows never raise it
  }
  out.resize(static_cast<size_t>(count) * (dim + 1));
  for (int64_t i = 0; i < count; ++i) {
    const float* row = rows + i * dim;
    float* target = out.data() + i * (dim + 1);
    std::copy(row, row + dim, target);
    target[dim] = std::sqrt(std::max(0.0f, largest - kernels.inner_product(row, row, dim)));
  }
  return out.data();
}

}  // namespace

bool HasHnswModelMagic(std::string_view bytes) {
  return bytes.size() >= sizeof(kHnswMagic) &&
         std::memcmp(bytes.data(), kHnswMagic, sizeof(kHnswMagic)) == 0;
}

std::string WrapHnswModel(const HnswParams& params, std::string_view inner) {
  std::string bytes(kHnswMagic, sizeof(kHnswMagic));
  AppendGraphU32(bytes, kHnswFormatVersion);
  AppendGraphU32(bytes, static_cast<uint32_t>(params.m));
  AppendGraphU32(bytes, static_cast<uint32_t>(params.ef_construction));
  AppendGraphU32(bytes, static_cast<uint32_t>(inner.size()));
  bytes.append(inner);
  AppendGraphU32(bytes, io::Crc32c(bytes.data(), bytes.size()));
  return bytes;
}

arrow::Result<std::pair<HnswParams, std::string_view>> UnwrapHnswModel(std::string_view bytes,
                                                                       std::string_view what) {
  constexpr size_t kHeader = sizeof(kHnswMagic) + 4 * sizeof(uint32_t);
  if (bytes.size() < kHeader + sizeof(uint32_t) || !HasHnswModelMagic(bytes)) {
    return Corrupt(what, " is not an IVF_HNSW model (", bytes.size(), " bytes, bad header)");
  }
  const size_t body = bytes.size() - sizeof(uint32_t);
  if (io::Crc32c(bytes.data(), body) != ReadGraphU32(bytes, body)) {
    return Corrupt(what, " fails its checksum: the IVF_HNSW model is damaged");
  }
  const uint32_t version = ReadGraphU32(bytes, sizeof(kHnswMagic));
  if (version != kHnswFormatVersion) {
    return Corrupt(what, " has IVF_HNSW model format version ", version, "; this build reads ",
                   kHnswFormatVersion);
  }
  HnswParams params;
  const uint32_t m = ReadGraphU32(bytes, sizeof(kHnswMagic) + 4);
  const uint32_t ef_construction = ReadGraphU32(bytes, sizeof(kHnswMagic) + 8);
  const uint32_t inner_size = ReadGraphU32(bytes, sizeof(kHnswMagic) + 12);
  if (m < kMinHnswM || m > kMaxHnswM || ef_construction < 1 ||
      ef_construction > kMaxEfConstruction || inner_size != body - kHeader) {
    return Corrupt(what, " holds m ", m, ", ef_construction ", ef_construction, " and a model of ",
                   inner_size, " bytes in ", bytes.size(), " bytes");
  }
  params.m = static_cast<int>(m);
  params.ef_construction = static_cast<int>(ef_construction);
  return std::make_pair(params, bytes.substr(kHeader, inner_size));
}

arrow::Status WriteIvfGraphs(io::Storage& storage, const std::string& graphs_path,
                             const IvfPartitions& partitions, const IvfModel& ivf,
                             const Quantizer* quantizer, const HnswParams& params) {
  const int dim = ivf.dim();
  const int num_partitions = partitions.num_partitions();
  // Codes decode into unit-length space for cosine already; raw vectors are normalized here.
  const bool normalize = quantizer == nullptr && ivf.metric() == Metric::kCosine;
  const bool augment = ivf.metric() == Metric::kDot;
  // The graph of one partition.
  auto build = [&](int partition) -> arrow::Result<HnswRows> {
    ARROW_RETURN_NOT_OK(util::CheckCancelled());
    ARROW_RETURN_NOT_OK(partitions.Verify(partition));
    const int64_t size = partitions.size(partition);
    std::vector<float> vectors;
    const float* source = partitions.vectors(partition);
    if (quantizer != nullptr) {
      vectors.resize(static_cast<size_t>(size) * dim);
      ARROW_RETURN_NOT_OK(
          quantizer->Decode(ivf, partition, partitions.codes(partition), size, vectors.data()));
      source = vectors.data();
    } else if (normalize) {
      vectors.assign(source, source + static_cast<size_t>(size) * dim);
      for (int64_t i = 0; i < size; ++i) Normalize(vectors.data() + i * dim, dim);
      source = vectors.data();
    }
    std::vector<float> augmented;
    if (augment) source = AugmentForInnerProduct(source, size, dim, augmented);
    HnswBuildOptions options;
    options.m = params.m;
    options.ef_construction = params.ef_construction;
    options.seed = kGraphStream ^ static_cast<uint64_t>(partition);
    return BuildHnswGraph(source, size, augment ? dim + 1 : dim, options);
  };
  ARROW_ASSIGN_OR_RAISE(
      auto writer,
      IvfPartitionWriter::Open(storage, graphs_path, PartitionLayout::GraphLinks(2 * params.m),
                               num_partitions));
  // Windows of partitions, written in order before the next is built: memory holds a window's
  // graphs, not the segment's. With at least as many partitions as threads, a window's
  // partitions build in parallel (each on one thread); else one after another, each by all
  // threads (its insertion batches). The graphs are the same either way.
  const int threads = util::NumThreads();
  const bool across = num_partitions >= threads && num_partitions > 1;
  const int window = across ? 4 * threads : 1;
  std::vector<HnswRows> graphs;
  for (int first = 0; first < num_partitions; first += window) {
    const int count = std::min(window, num_partitions - first);
    graphs.assign(static_cast<size_t>(count), HnswRows());
    auto build_range = [&](int64_t begin, int64_t end) -> arrow::Status {
      for (int64_t i = begin; i < end; ++i) {
        ARROW_ASSIGN_OR_RAISE(graphs[static_cast<size_t>(i)], build(first + static_cast<int>(i)));
      }
      return arrow::Status::OK();
    };
    if (across) {
      ARROW_RETURN_NOT_OK(util::ParallelFor(count, build_range));
    } else {
      ARROW_RETURN_NOT_OK(build_range(0, count));
    }
    for (const HnswRows& graph : graphs) {
      ARROW_RETURN_NOT_OK(writer->Write(graph.keys.data(), graph.neighbors.data(),
                                        static_cast<int64_t>(graph.keys.size())));
    }
  }
  return writer->Finish();
}

arrow::Result<HnswGraphView> GraphOf(const IvfPartitions& graphs, const HnswParams& params,
                                     int partition, int64_t nodes) {
  ARROW_RETURN_NOT_OK(graphs.Verify(partition));
  // Checked here rather than at open, which would load every partition's graph (on object
  // storage: fetch the whole file).
  const int64_t rows = graphs.size(partition);
  if (rows < nodes || (nodes == 0) != (rows == 0)) {
    return graphs.CorruptError(
        Concat("has ", rows, " rows for partition ", partition, " of ", nodes, " rows"));
  }
  return HnswGraphView(graphs.row_addresses(partition), graphs.links(partition), rows, 2 * params.m,
                       nodes);
}

arrow::Result<std::pair<HnswParams, std::string>> ReadHnswModelFile(
    const SegmentDirectory& dir, const std::string& expected_fingerprint) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadModelFile(dir, /*expected_fingerprint=*/""));
  const std::string what =
      "IVF_HNSW model " + dir.storage->AbsolutePath(dir.path + "/" + kIvfModelFile);
  ARROW_ASSIGN_OR_RAISE(auto unwrapped, UnwrapHnswModel(bytes, what));
  ARROW_RETURN_NOT_OK(CheckModelFingerprint(dir, bytes, expected_fingerprint));
  return std::make_pair(unwrapped.first, std::string(unwrapped.second));
}

arrow::Result<std::unique_ptr<IvfGraphs>> OpenIvfGraphs(const SegmentDirectory& dir,
                                                        const HnswParams& params,
                                                        const IvfPartitions& partitions) {
  auto graphs = std::make_unique<IvfGraphs>();
  graphs->params = params;
  const std::string path = dir.path + "/" + kIvfGraphsFile;
  graphs->path = dir.storage->AbsolutePath(path);
  ARROW_ASSIGN_OR_RAISE(
      graphs->file,
      IvfPartitions::Open(*dir.storage, path, PartitionLayout::GraphLinks(2 * params.m),
                          partitions.num_partitions(), "IVF graphs file"));
  return graphs;
}

}  // namespace tessera::index::vector
