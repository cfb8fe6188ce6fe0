#include "tessera/index/vector/ivf_family.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/format/paths.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/ivf_graphs.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector/ivf_quantized_model.h"
#include "tessera/index/vector/ivf_quantized_reader.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/product_quantizer.h"
#include "tessera/index/vector/rabit_quantizer.h"
#include "tessera/index/vector/raw_vectors.h"
#include "tessera/index/vector/scalar_quantizer.h"
#include "tessera/index/vector/vector_column.h"
#include "tessera/index/vector/vector_sample.h"
#include "tessera/io/block_checksums.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::index::vector {

namespace {

constexpr std::string_view kMetricKey = "metric";
constexpr std::string_view kNumPartitionsKey = "num_partitions";
constexpr std::string_view kSampleRateKey = "sample_rate";
constexpr std::string_view kMaxItersKey = "max_iters";
constexpr std::string_view kSeedKey = "seed";
constexpr std::string_view kNumSubVectorsKey = "num_sub_vectors";
constexpr std::string_view kNumBitsKey = "num_bits";
constexpr std::string_view kResidualKey = "residual";
constexpr std::string_view kHnswMKey = "m";
constexpr std::string_view kEfConstructionKey = "ef_construction";

// Sampling, k-means seeding and PQ codebooks draw from separate streams of the one `seed`.
constexpr uint64_t kSampleStream = 0x73616d706c650001ULL;
constexpr uint64_t kKMeansStream = 0x6b6d65616e730002ULL;
constexpr uint64_t kCodebookStream = 0x7071636f64650003ULL;
constexpr uint64_t kRotationStream = 0x726f746174650004ULL;

// PQ codebooks train with fewer Lloyd iterations than the coarse quantizer: 256 centroids in
// a few dimensions converge fast, and there are num_sub_vectors of them.
constexpr int kCodebookIterations = 25;

enum class IvfKind { kFlat, kScalar8, kProduct8, kRabit };

std::string_view FamilyName(IvfKind kind, bool graph) {
  if (graph) {
    switch (kind) {
      case IvfKind::kScalar8:
        return kIvfHnswSqFamily;
      case IvfKind::kProduct8:
        return kIvfHnswPqFamily;
      default:
        return kIvfHnswFlatFamily;
    }
  }
  switch (kind) {
    case IvfKind::kFlat:
      return kIvfFlatFamily;
    case IvfKind::kScalar8:
      return kIvfSqFamily;
    case IvfKind::kProduct8:
      return kIvfPqFamily;
    case IvfKind::kRabit:
      return kIvfRqFamily;
  }
  return kIvfFlatFamily;
}

QuantizerKind QuantizerOf(IvfKind kind) {
  switch (kind) {
    case IvfKind::kScalar8:
      return QuantizerKind::kScalar8;
    case IvfKind::kRabit:
      return QuantizerKind::kRabit;
    default:
      return QuantizerKind::kProduct8;
  }
}

std::string Join(const std::string& directory, const char* file) { return directory + "/" + file; }

// The family whose model.bin `bytes` are, by magic and quantizer kind; empty when none is.
std::string_view ModelFamilyOf(std::string_view bytes) {
  if (HasHnswModelMagic(bytes)) {
    auto unwrapped = UnwrapHnswModel(bytes, "model");
    if (!unwrapped.ok()) return {};
    const std::string_view inner = ModelFamilyOf(unwrapped->second);
    if (inner == kIvfFlatFamily) return kIvfHnswFlatFamily;
    if (inner == kIvfSqFamily) return kIvfHnswSqFamily;
    if (inner == kIvfPqFamily) return kIvfHnswPqFamily;
    return {};
  }
  if (IvfModel::HasMagic(bytes)) return kIvfFlatFamily;
  const auto kind = QuantizedModelKindOf(bytes);
  if (!kind) return {};
  switch (*kind) {
    case QuantizerKind::kScalar8:
      return kIvfSqFamily;
    case QuantizerKind::kProduct8:
      return kIvfPqFamily;
    case QuantizerKind::kRabit:
      return kIvfRqFamily;
  }
  return {};
}

// The default num_sub_vectors: with 8 bits, sub-vectors of 8 dimensions (else 4, 2, 1); with 4,
// sub-vectors of 4 dimensions (the bytes per row of 8-bit codes of 8), else of 8, 2, 16, 32 or
// 64, of a count FourBitSubVectorsValid accepts; 0 when none is.
int DefaultSubVectors(int dim, int bits) {
  if (bits == 4) {
    for (int width : {4, 8, 2, 16, 32, 64}) {
      if (dim % width == 0 && FourBitSubVectorsValid(dim / width)) return dim / width;
    }
    return 0;
  }
  for (int width : {8, 4, 2}) {
    if (dim % width == 0) return dim / width;
  }
  return dim;
}

// A model decoded for building and merging: the coarse quantizer, the quantizer of the codes
// (null for IVF_FLAT) and the payload each row has in a partitions file.
struct DecodedModel {
  IvfModel ivf;
  std::shared_ptr<const Quantizer> quantizer;
  PartitionLayout layout;
  std::optional<HnswParams> graph;  // IVF_HNSW_* only

  size_t row_bytes() const { return layout.row_bytes(); }
};

// The segment's rows, grouped by partition, then written out in partition order.
struct PartitionedRows {
  std::vector<std::vector<uint64_t>> row_addresses;
  std::vector<std::vector<uint8_t>> payloads;  // row_bytes() per row
  uint64_t count = 0;
};

class IvfFamily final : public IndexFamily {
 public:
  IvfFamily(IvfKind kind, bool graph) : kind_(kind), graph_(graph) {}

  std::string_view name() const override { return FamilyName(kind_, graph_); }
  bool has_model() const override { return true; }
  // Nearest-neighbour search reads it, never a filter.
  bool answers_predicates() const override { return false; }
  bool searches_vectors() const override { return true; }

  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override {
    ARROW_ASSIGN_OR_RAISE(int dim, VectorColumnDimension(column, name()));
    ARROW_ASSIGN_OR_RAISE(IvfOptions options, ParseIvfOptions(name(), params, dim));
    Params normalized{
        {std::string(kMetricKey), std::string(MetricName(options.metric))},
        {std::string(kNumPartitionsKey), std::to_string(options.num_partitions)},
        {std::string(kSampleRateKey), std::to_string(options.sample_rate)},
        {std::string(kMaxItersKey), std::to_string(options.max_iterations)},
        {std::string(kSeedKey), std::to_string(options.seed)},
    };
    if (kind_ == IvfKind::kProduct8) {
      normalized[std::string(kNumSubVectorsKey)] = std::to_string(options.num_sub_vectors);
      normalized[std::string(kNumBitsKey)] = std::to_string(options.num_bits);
      // Only when not the default: definitions saved before the parameter existed still equal
      // their normalized parameters.
      if (!options.residual) normalized[std::string(kResidualKey)] = "false";
    }
    if (kind_ == IvfKind::kRabit) {
      normalized[std::string(kNumBitsKey)] = std::to_string(options.num_bits);
    }
    if (graph_) {
      normalized[std::string(kHnswMKey)] = std::to_string(options.m);
      normalized[std::string(kEfConstructionKey)] = std::to_string(options.ef_construction);
    }
    return normalized;
  }

  arrow::Result<Model> Train(const BuildInput& input) const override {
    ARROW_ASSIGN_OR_RAISE(int dim, InputDimension(input));
    ARROW_ASSIGN_OR_RAISE(IvfOptions options, ParseIvfOptions(name(), input.params, dim));
    const int64_t sample_rows = int64_t{options.num_partitions} * options.sample_rate;
    ARROW_ASSIGN_OR_RAISE(VectorSample sample,
                          SampleVectors(input, dim, sample_rows, options.seed ^ kSampleStream));
    if (sample.rows == 0) {
      return InvalidArgument("cannot train ", name(), " index '", input.index_name, "': column '",
                             ColumnName(input), "' has no non-null vector in the ",
                             input.fragments.size(), " fragment(s) to index");
    }
    if (options.metric == Metric::kCosine) {
      for (int64_t i = 0; i < sample.rows; ++i) Normalize(sample.vectors.data() + i * dim, dim);
    }
    // Progress in Lloyd iterations: the coarse k-means, then one k-means per PQ sub-vector.
    const int codebook_iterations =
        kind_ == IvfKind::kProduct8
            ? options.num_sub_vectors * std::min(options.max_iterations, kCodebookIterations)
            : 0;
    util::BeginPhase(
        "training",
        static_cast<uint64_t>(options.max_iterations) + static_cast<uint64_t>(codebook_iterations),
        "iterations");
    KMeansOptions kmeans;
    kmeans.num_clusters = static_cast<int>(std::min<int64_t>(options.num_partitions, sample.rows));
    kmeans.max_iterations = options.max_iterations;
    kmeans.seed = options.seed ^ kKMeansStream;
    kmeans.metric = options.metric;
    ARROW_ASSIGN_OR_RAISE(KMeansResult clusters,
                          TrainKMeans(sample.vectors.data(), sample.rows, dim, kmeans));
    ARROW_ASSIGN_OR_RAISE(IvfModel ivf,
                          IvfModel::Make(options.metric, dim, std::move(clusters.centroids)));
    if (kind_ == IvfKind::kFlat) return ToModel(WithGraph(ivf.Serialize(), options));

    IvfQuantizedModel model;
    model.kind = QuantizerOf(kind_);
    if (kind_ == IvfKind::kScalar8) {
      model.quantizer = std::make_shared<ScalarQuantizer>(
          ScalarQuantizer::Train(sample.vectors.data(), sample.rows, dim));
    } else if (kind_ == IvfKind::kRabit) {
      // RaBitQ learns nothing from the data: its rotation is drawn from the seed.
      ARROW_ASSIGN_OR_RAISE(
          auto rq, RabitQuantizer::Make(dim, options.num_bits, options.seed ^ kRotationStream));
      model.quantizer = std::make_shared<RabitQuantizer>(std::move(rq));
    } else {
      std::vector<int32_t> partitions(static_cast<size_t>(sample.rows));
      ARROW_RETURN_NOT_OK(ivf.AssignBatch(sample.vectors.data(), sample.rows, partitions.data()));
      ProductQuantizerOptions pq;
      pq.num_sub_vectors = options.num_sub_vectors;
      pq.num_bits = options.num_bits;
      pq.residual = options.residual;
      pq.max_iterations = std::min(options.max_iterations, kCodebookIterations);
      pq.seed = options.seed ^ kCodebookStream;
      ARROW_ASSIGN_OR_RAISE(
          auto trained,
          ProductQuantizer::Train(ivf, sample.vectors.data(), partitions.data(), sample.rows, pq));
      model.quantizer = std::make_shared<ProductQuantizer>(std::move(trained));
    }
    model.ivf = std::move(ivf);
    return ToModel(WithGraph(model.Serialize(), options));
  }

  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override {
    ARROW_ASSIGN_OR_RAISE(int dim, InputDimension(input));
    ARROW_ASSIGN_OR_RAISE(IvfOptions options, ParseIvfOptions(name(), input.params, dim));
    Model trained;
    if (model == nullptr) {
      ARROW_ASSIGN_OR_RAISE(trained, Train(input));
      model = &trained;
      uint64_t total_rows = 0;
      for (const auto& fragment : input.fragments) total_rows += fragment.physical_rows();
      util::BeginPhase("building", total_rows, "rows");
    }
    ARROW_ASSIGN_OR_RAISE(DecodedModel decoded, CheckModel(input, *model, dim, options));
    const IvfModel& ivf = decoded.ivf;
    const size_t row_bytes = decoded.row_bytes();
    const bool normalize = decoded.quantizer != nullptr && ivf.metric() == Metric::kCosine;

    PartitionedRows rows;
    rows.row_addresses.resize(static_cast<size_t>(ivf.num_partitions()));
    rows.payloads.resize(static_cast<size_t>(ivf.num_partitions()));
    uint64_t physical_rows = 0;
    std::vector<float> vectors;       // the batch's non-null vectors, contiguous
    std::vector<uint64_t> addresses;  // their row addresses
    std::vector<int32_t> partitions;
    std::vector<uint8_t> codes;
    for (const auto& fragment : input.fragments) {
      ARROW_ASSIGN_OR_RAISE(auto reader,
                            dataset::FragmentReader::Open(*input.storage, fragment, input.schema,
                                                          {input.column_index}));
      physical_rows += fragment.physical_rows();
      for (int b = 0; b < reader->num_batches(); ++b) {
        ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(b));
        dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
        ARROW_RETURN_NOT_OK(util::AdvanceProgress(static_cast<uint64_t>(batch->num_rows())));
        ARROW_ASSIGN_OR_RAISE(VectorRows column, VectorRows::Make(batch->column(0)));
        if (column.dim() != dim) {
          return Corrupt("fragment ", fragment.id(), " holds vectors of dimension ", column.dim(),
                         " in column '", ColumnName(input), "' of dimension ", dim);
        }
        const uint64_t first = static_cast<uint64_t>(b) * reader->rows_per_batch();
        if (first + static_cast<uint64_t>(column.size()) > (uint64_t{1} << 32)) {
          return Corrupt("fragment ", fragment.id(), " has more rows than a row address holds");
        }
        vectors.clear();
        addresses.clear();
        for (int64_t i = 0; i < column.size(); ++i) {
          if (column.IsNull(i)) continue;
          vectors.insert(vectors.end(), column.Row(i), column.Row(i) + dim);
          if (normalize) Normalize(vectors.data() + vectors.size() - dim, dim);
          addresses.push_back(dataset::MakeRowAddress(
              fragment.id(), static_cast<uint32_t>(first + static_cast<uint64_t>(i))));
        }
        const int64_t count = static_cast<int64_t>(addresses.size());
        if (count == 0) continue;
        partitions.resize(addresses.size());
        ARROW_RETURN_NOT_OK(ivf.AssignBatch(vectors.data(), count, partitions.data()));
        if (decoded.quantizer != nullptr) {
          codes.resize(addresses.size() * row_bytes);
          ARROW_RETURN_NOT_OK(decoded.quantizer->Encode(ivf, vectors.data(), partitions.data(),
                                                        count, codes.data()));
        }
        for (int64_t i = 0; i < count; ++i) {
          const size_t partition = static_cast<size_t>(partitions[i]);
          rows.row_addresses[partition].push_back(addresses[i]);
          // Raw vectors are gathered from the data files partition by partition, at the end.
          if (decoded.quantizer == nullptr) continue;
          rows.payloads[partition].insert(rows.payloads[partition].end(),
                                          codes.data() + i * row_bytes,
                                          codes.data() + (i + 1) * row_bytes);
        }
        rows.count += static_cast<uint64_t>(count);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          IvfPartitionWriter::Open(*out.storage, Join(out.path, kIvfPartitionsFile),
                                                   decoded.layout, ivf.num_partitions()));
    // IVF_FLAT: one partition's vectors in memory at a time, read from the memory-mapped data
    // files, so a build never holds a copy of the column.
    std::optional<RawVectors> raw;
    if (decoded.quantizer == nullptr) {
      ARROW_ASSIGN_OR_RAISE(
          raw, RawVectors::Open(*input.storage, input.schema, input.column_index, input.fragments,
                                /*verify_all=*/true));
    }
    std::vector<float> gathered;
    std::vector<uint8_t> stored;  // a partition's codes as its scorer reads them
    for (int p = 0; p < ivf.num_partitions(); ++p) {
      const auto& partition_rows = rows.row_addresses[p];
      const void* payload = rows.payloads[p].data();
      if (raw) {
        gathered.resize(partition_rows.size() * static_cast<size_t>(dim));
        for (size_t i = 0; i < partition_rows.size(); ++i) {
          float* destination = gathered.data() + i * static_cast<size_t>(dim);
          ARROW_ASSIGN_OR_RAISE(const float* vector, raw->Find(partition_rows[i], destination));
          if (vector == nullptr) {
            return Corrupt("row ", dataset::FragmentOf(partition_rows[i]), ":",
                           dataset::OffsetOf(partition_rows[i]), " of column '", ColumnName(input),
                           "' changed while index '", input.index_name, "' was built");
          }
          if (vector != destination) std::copy(vector, vector + dim, destination);
        }
        payload = gathered.data();
      } else if (decoded.quantizer->row_block() > 1) {
        stored.resize(rows.payloads[p].size());
        decoded.quantizer->StoreCodes(rows.payloads[p].data(),
                                      static_cast<int64_t>(partition_rows.size()), stored.data());
        payload = stored.data();
      }
      ARROW_RETURN_NOT_OK(writer->Write(partition_rows.data(), payload,
                                        static_cast<int64_t>(partition_rows.size())));
    }
    ARROW_RETURN_NOT_OK(writer->Finish());
    ARROW_RETURN_NOT_OK(WriteGraphs(decoded, out));
    ARROW_RETURN_NOT_OK(out.storage->WriteFile(Join(out.path, kIvfModelFile), model->bytes));

    format::SegmentMeta meta;
    meta.set_model_fingerprint(model->fingerprint);
    meta.set_num_rows(physical_rows);
    SetDetails(decoded, rows.count, writer->largest_partition(), &meta);
    ARROW_RETURN_NOT_OK(FillCommonMeta(input, name(), out, &meta));
    return meta;
  }

  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override {
    if (inputs.empty()) return InvalidArgument(name(), " merge needs at least one segment");
    if (dirs.size() != inputs.size()) {
      return InvalidArgument(name(), " merge got ", inputs.size(), " segments but ", dirs.size(),
                             " directories");
    }
    const format::SegmentMeta& first = inputs.front();
    Roaring fragments;
    uint64_t dataset_version = 0;
    uint64_t num_rows = 0;
    for (const auto& segment : inputs) {
      if (segment.family() != name()) {
        return InvalidArgument(name(), " cannot merge segment ", segment.uuid(), " of family ",
                               segment.family());
      }
      if (segment.field_id() != first.field_id()) {
        return InvalidArgument("segments ", first.uuid(), " and ", segment.uuid(),
                               " index different fields (", first.field_id(), " and ",
                               segment.field_id(), ") and cannot be merged");
      }
      if (segment.model_fingerprint() != first.model_fingerprint()) {
        return Unsupported("segments ", first.uuid(), " and ", segment.uuid(), " of index '",
                           first.index_name(), "' were built with different models (",
                           first.model_fingerprint(), " and ", segment.model_fingerprint(),
                           "); retrain the index to merge them");
      }
      ARROW_ASSIGN_OR_RAISE(Roaring covered, DecodeFragmentBitmap(segment));
      if (fragments.intersect(covered)) {
        return InvalidArgument("segment ", segment.uuid(), " overlaps the fragments of another ",
                               "segment being merged into index '", first.index_name(), "'");
      }
      fragments |= covered;
      dataset_version = std::max(dataset_version, segment.dataset_version());
      num_rows += segment.num_rows();
    }

    // Inputs in the order of their first fragment, so merged partitions list rows by fragment.
    std::vector<size_t> order(inputs.size());
    std::vector<uint32_t> first_fragment(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      order[i] = i;
      ARROW_ASSIGN_OR_RAISE(Roaring covered, DecodeFragmentBitmap(inputs[i]));
      first_fragment[i] = covered.isEmpty() ? UINT32_MAX : covered.minimum();
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return first_fragment[a] < first_fragment[b]; });

    // The inputs' files are read as a committed segment's: any failure is damage (Corrupt).
    const format::SegmentMeta& head = inputs[order[0]];
    auto head_bytes = ReadModelFile(dirs[order[0]], first.model_fingerprint());
    if (!head_bytes.ok()) return SegmentFileError(head_bytes.status(), head, kIvfModelFile);
    const std::string model_bytes = std::move(*head_bytes);
    auto decoded = Decode(model_bytes, "the model of segment " + head.uuid());
    if (!decoded.ok()) return SegmentFileError(decoded.status(), head, kIvfModelFile);
    const DecodedModel model = std::move(*decoded);
    std::vector<std::unique_ptr<IvfPartitions>> sources;
    for (size_t i : order) {
      if (i != order[0]) {
        auto other = ReadModelFile(dirs[i], first.model_fingerprint());
        if (!other.ok()) return SegmentFileError(other.status(), inputs[i], kIvfModelFile);
      }
      auto partitions =
          IvfPartitions::Open(*dirs[i].storage, Join(dirs[i].path, kIvfPartitionsFile),
                              model.layout, model.ivf.num_partitions());
      if (!partitions.ok()) {
        return SegmentFileError(partitions.status(), inputs[i], kIvfPartitionsFile);
      }
      sources.push_back(std::move(*partitions));
    }

    // One partition at a time: memory is bounded by the largest merged partition.
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          IvfPartitionWriter::Open(*out.storage, Join(out.path, kIvfPartitionsFile),
                                                   model.layout, model.ivf.num_partitions()));
    const size_t row_bytes = model.row_bytes();
    uint64_t num_vectors = 0;
    std::vector<uint64_t> row_addresses;
    std::vector<uint8_t> payloads;
    // Codes stored in blocks (4-bit PQ) are concatenated row-major, then stored again.
    const bool blocked = model.quantizer != nullptr && model.quantizer->row_block() > 1;
    std::vector<uint8_t> stored;
    for (int p = 0; p < model.ivf.num_partitions(); ++p) {
      row_addresses.clear();
      payloads.clear();
      for (const auto& source : sources) {
        ARROW_RETURN_NOT_OK(source->Verify(p));
        const size_t size = static_cast<size_t>(source->size(p));
        row_addresses.insert(row_addresses.end(), source->row_addresses(p),
                             source->row_addresses(p) + size);
        const size_t at = payloads.size();
        payloads.insert(payloads.end(), source->codes(p), source->codes(p) + size * row_bytes);
        if (blocked) {
          stored.assign(payloads.begin() + static_cast<std::ptrdiff_t>(at), payloads.end());
          model.quantizer->LoadCodes(stored.data(), static_cast<int64_t>(size),
                                     payloads.data() + at);
        }
      }
      if (blocked) {
        stored.resize(payloads.size());
        model.quantizer->StoreCodes(payloads.data(), static_cast<int64_t>(row_addresses.size()),
                                    stored.data());
        payloads.swap(stored);
      }
      num_vectors += row_addresses.size();
      ARROW_RETURN_NOT_OK(writer->Write(row_addresses.data(), payloads.data(),
                                        static_cast<int64_t>(row_addresses.size())));
    }
    ARROW_RETURN_NOT_OK(writer->Finish());
    // Graphs are rebuilt over the merged partitions, never stitched or dropped.
    ARROW_RETURN_NOT_OK(WriteGraphs(model, out));
    ARROW_RETURN_NOT_OK(out.storage->WriteFile(Join(out.path, kIvfModelFile), model_bytes));

    BuildInput merged;
    merged.index_name = first.index_name();
    merged.field_id = first.field_id();
    merged.dataset_version = dataset_version;
    for (uint32_t id : fragments) merged.fragments.emplace_back().set_id(id);
    format::SegmentMeta meta;
    meta.set_model_fingerprint(first.model_fingerprint());
    meta.set_num_rows(num_rows);
    SetDetails(model, num_vectors, writer->largest_partition(), &meta);
    ARROW_RETURN_NOT_OK(FillCommonMeta(merged, name(), out, &meta));
    return meta;
  }

  // The metric as the family reads it everywhere (ParseIvfOptions): absent means l2.
  std::optional<Metric> MetricOf(const format::IndexDef& definition) const override {
    const Params params(definition.params().begin(), definition.params().end());
    auto metric = ChoiceParam(params, name(), kMetricKey, "l2", {"l2", "cosine", "dot"});
    if (!metric.ok()) return std::nullopt;
    auto parsed = ParseMetric(*metric);
    if (!parsed.ok()) return std::nullopt;
    return *parsed;
  }

  arrow::Result<Model> LoadModel(const format::SegmentMeta& segment,
                                 const SegmentDirectory& dir) const override {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadModelFile(dir, segment.model_fingerprint()));
    ARROW_RETURN_NOT_OK(Decode(bytes, "the model of segment " + segment.uuid()).status());
    return ToModel(std::move(bytes));
  }

  arrow::Status Verify(const BuildInput& definition, const format::SegmentMeta& segment,
                       const SegmentDirectory& dir) const override {
    const std::string model_path = dir.storage->AbsolutePath(Join(dir.path, kIvfModelFile));
    ARROW_ASSIGN_OR_RAISE(std::string bytes, ReadModelFile(dir, /*expected_fingerprint=*/""));
    const std::string fingerprint = IvfModel::FingerprintOf(bytes);
    if (segment.model_fingerprint() != fingerprint) {
      return InvalidArgument("segment ", segment.uuid(), " records model fingerprint '",
                             format::Printable(segment.model_fingerprint()), "' but its model ",
                             model_path, " has fingerprint '", fingerprint, "'");
    }
    const std::string_view held = ModelFamilyOf(bytes);
    if (held.empty()) {
      // A damaged IVF_HNSW model: its own error names what is wrong (a failed checksum).
      if (HasHnswModelMagic(bytes)) {
        ARROW_RETURN_NOT_OK(UnwrapHnswModel(bytes, "model " + model_path).status());
      }
      return Corrupt("model ", model_path, " of segment ", segment.uuid(), " is not an IVF model");
    }
    if (held != name()) {
      return InvalidArgument("segment ", segment.uuid(), " is recorded as ", name(),
                             " but its model ", model_path, " is an ", held, " model");
    }
    ARROW_ASSIGN_OR_RAISE(int dim, InputDimension(definition));
    ARROW_ASSIGN_OR_RAISE(IvfOptions options, ParseIvfOptions(name(), definition.params, dim));
    ARROW_RETURN_NOT_OK(CheckModel(definition,
                                   Model{std::string(name()), fingerprint, std::move(bytes)}, dim,
                                   options)
                            .status());
    return Open(segment, dir).status();
  }

  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override {
    if (kind_ == IvfKind::kFlat) {
      ARROW_ASSIGN_OR_RAISE(auto reader, IvfFlatReader::Open(segment, dir, graph_));
      return std::unique_ptr<SegmentReader>(std::move(reader));
    }
    ARROW_ASSIGN_OR_RAISE(auto reader,
                          IvfQuantizedReader::Open(segment, dir, QuantizerOf(kind_), graph_));
    return std::unique_ptr<SegmentReader>(std::move(reader));
  }

  // Every IVF family keeps a model and its partitions (with their block checksums), whatever
  // the codes; the IVF_HNSW_* families their graphs too.
  std::vector<std::string> RequiredFiles(const format::SegmentMeta&) const override {
    const auto partitions = io::FileAndChecksums(kIvfPartitionsFile);
    std::vector<std::string> files{kIvfModelFile, partitions[0], partitions[1]};
    if (graph_) {
      for (const auto& file : io::FileAndChecksums(kIvfGraphsFile)) files.push_back(file);
    }
    return files;
  }

 private:
  // The indexed column's dimension, after checking that `input` names one.
  arrow::Result<int> InputDimension(const BuildInput& input) const {
    if (input.storage == nullptr || input.schema == nullptr) {
      return InvalidArgument("an ", name(), " build of index '", input.index_name,
                             "' needs the dataset's storage and schema");
    }
    if (input.column_index < 0 || input.column_index >= input.schema->num_fields()) {
      return InvalidArgument("an ", name(), " build of index '", input.index_name,
                             "' names column ", input.column_index, " of a schema with ",
                             input.schema->num_fields(), " columns");
    }
    return VectorColumnDimension(*input.schema->field(input.column_index), name());
  }

  static std::string ColumnName(const BuildInput& input) {
    return input.schema->field(input.column_index)->name();
  }

  Model ToModel(std::string bytes) const {
    Model result;
    result.family = std::string(name());
    result.fingerprint = IvfModel::FingerprintOf(bytes);
    result.bytes = std::move(bytes);
    return result;
  }

  arrow::Result<DecodedModel> Decode(std::string_view bytes, const std::string& what) const {
    DecodedModel decoded;
    if (graph_) {
      ARROW_ASSIGN_OR_RAISE(auto unwrapped, UnwrapHnswModel(bytes, what));
      decoded.graph = unwrapped.first;
      bytes = unwrapped.second;
    } else if (HasHnswModelMagic(bytes)) {
      return Corrupt(what, " is an IVF_HNSW model, not an ", name(), " model");
    }
    if (kind_ == IvfKind::kFlat) {
      ARROW_ASSIGN_OR_RAISE(decoded.ivf, IvfModel::Deserialize(bytes, what));
      decoded.layout = PartitionLayout::Vectors(decoded.ivf.dim());
      return decoded;
    }
    ARROW_ASSIGN_OR_RAISE(IvfQuantizedModel model,
                          IvfQuantizedModel::Deserialize(bytes, QuantizerOf(kind_), what));
    decoded.ivf = std::move(model.ivf);
    decoded.quantizer = std::move(model.quantizer);
    decoded.layout = PartitionLayout::Codes(decoded.quantizer->code_size());
    if (decoded.graph && decoded.quantizer->row_block() > 1) {
      return Corrupt(what, " holds codes stored in blocks (4-bit PQ), which a graph cannot walk");
    }
    return decoded;
  }

  // What `index describe` shows of a segment. `largest_partition`: the most vectors one partition
  // holds; with the mean, how unbalanced the partitions are (a search probing the largest scans
  // that many times the mean).
  void SetDetails(const DecodedModel& model, uint64_t num_vectors, int64_t largest_partition,
                  format::SegmentMeta* meta) const {
    auto& details = *meta->mutable_details();
    details["metric"] = std::string(MetricName(model.ivf.metric()));
    details["num_partitions"] = std::to_string(model.ivf.num_partitions());
    details["dim"] = std::to_string(model.ivf.dim());
    details["num_vectors"] = std::to_string(num_vectors);
    details["largest_partition"] = std::to_string(largest_partition);
    if (num_vectors > 0) {
      const double mean =
          static_cast<double>(num_vectors) / static_cast<double>(model.ivf.num_partitions());
      char imbalance[32];
      std::snprintf(imbalance, sizeof(imbalance), "%.2f",
                    static_cast<double>(largest_partition) / mean);
      details["partition_imbalance"] = imbalance;
    }
    if (model.quantizer != nullptr) {
      details["code_size"] = std::to_string(model.quantizer->code_size());
    }
    if (kind_ == IvfKind::kProduct8) {
      const auto& pq = static_cast<const ProductQuantizer&>(*model.quantizer);
      details["num_sub_vectors"] = std::to_string(pq.num_sub_vectors());
      details["num_bits"] = std::to_string(pq.bits());
      details["residual"] = pq.residual() ? "true" : "false";
    }
    if (model.graph) {
      details["m"] = std::to_string(model.graph->m);
      details["ef_construction"] = std::to_string(model.graph->ef_construction);
    }
    if (kind_ == IvfKind::kRabit) {
      details["num_bits"] =
          std::to_string(static_cast<const RabitQuantizer&>(*model.quantizer).bits());
    }
  }

  // The model a build uses, checked against the index's metric, column and parameters.
  arrow::Result<DecodedModel> CheckModel(const BuildInput& input, const Model& model, int dim,
                                         const IvfOptions& options) const {
    if (model.family != name()) {
      return InvalidArgument("index '", input.index_name, "' is ", name(), " but was given a ",
                             model.family, " model");
    }
    if (IvfModel::FingerprintOf(model.bytes) != model.fingerprint) {
      return InvalidArgument("the model given to index '", input.index_name,
                             "' does not match its fingerprint ", model.fingerprint);
    }
    ARROW_ASSIGN_OR_RAISE(DecodedModel decoded,
                          Decode(model.bytes, "the model of index '" + input.index_name + "'"));
    if (decoded.ivf.metric() != options.metric) {
      return InvalidArgument("the model given to index '", input.index_name, "' uses metric ",
                             MetricName(decoded.ivf.metric()), "; the index uses ",
                             MetricName(options.metric));
    }
    if (decoded.ivf.dim() != dim) {
      return InvalidArgument("the model given to index '", input.index_name, "' has dimension ",
                             decoded.ivf.dim(), "; column '", ColumnName(input), "' has dimension ",
                             dim);
    }
    if (kind_ == IvfKind::kProduct8) {
      const auto& pq = static_cast<const ProductQuantizer&>(*decoded.quantizer);
      if (pq.num_sub_vectors() != options.num_sub_vectors) {
        return InvalidArgument("the model given to index '", input.index_name, "' has ",
                               pq.num_sub_vectors(), " sub-vectors; the index uses ",
                               options.num_sub_vectors);
      }
      if (pq.bits() != options.num_bits) {
        return InvalidArgument("the model given to index '", input.index_name, "' has ", pq.bits(),
                               "-bit codes; the index uses num_bits ", options.num_bits);
      }
      if (pq.residual() != options.residual) {
        return InvalidArgument("the model given to index '", input.index_name, "' has codes of ",
                               pq.residual() ? "residuals" : "vectors",
                               "; the index uses residual ", options.residual ? "true" : "false");
      }
    }
    if (decoded.graph && (decoded.graph->m != options.m ||
                          decoded.graph->ef_construction != options.ef_construction)) {
      return InvalidArgument("the model given to index '", input.index_name,
                             "' builds graphs with m ", decoded.graph->m, " and ef_construction ",
                             decoded.graph->ef_construction, "; the index uses m ", options.m,
                             " and ef_construction ", options.ef_construction,
                             "; retrain the index (tessera index create --replace)");
    }
    if (kind_ == IvfKind::kRabit) {
      const int bits = static_cast<const RabitQuantizer&>(*decoded.quantizer).bits();
      if (bits != options.num_bits) {
        return InvalidArgument("the model given to index '", input.index_name, "' has ", bits,
                               " bits per dimension; the index uses ", options.num_bits);
      }
    }
    return decoded;
  }

  // The model bytes `inner` of the codes, wrapped with the graph parameters for IVF_HNSW_*.
  std::string WithGraph(std::string inner, const IvfOptions& options) const {
    if (!graph_) return inner;
    return WrapHnswModel(HnswParams{options.m, options.ef_construction}, inner);
  }

  // IVF_HNSW_*: the graphs of the partitions file just written to `out`.
  arrow::Status WriteGraphs(const DecodedModel& model, const SegmentDirectory& out) const {
    if (!model.graph) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto partitions,
                          IvfPartitions::Open(*out.storage, Join(out.path, kIvfPartitionsFile),
                                              model.layout, model.ivf.num_partitions()));
    return WriteIvfGraphs(*out.storage, Join(out.path, kIvfGraphsFile), *partitions, model.ivf,
                          model.quantizer.get(), *model.graph);
  }

  IvfKind kind_;
  bool graph_;
};

}  // namespace

arrow::Result<IvfOptions> ParseIvfOptions(std::string_view family, const Params& params, int dim) {
  const bool product = family == kIvfPqFamily || family == kIvfHnswPqFamily;
  const bool rabit = family == kIvfRqFamily;
  const bool graph =
      family == kIvfHnswFlatFamily || family == kIvfHnswSqFamily || family == kIvfHnswPqFamily;
  std::vector<std::string_view> known{kMetricKey, kNumPartitionsKey, kSampleRateKey, kMaxItersKey,
                                      kSeedKey};
  if (product) known.insert(known.end(), {kNumSubVectorsKey, kNumBitsKey, kResidualKey});
  if (rabit) known.push_back(kNumBitsKey);
  if (graph) known.insert(known.end(), {kHnswMKey, kEfConstructionKey});
  ARROW_RETURN_NOT_OK(RejectUnknownParams(params, family, known));
  IvfOptions options;
  ARROW_ASSIGN_OR_RAISE(std::string metric,
                        ChoiceParam(params, family, kMetricKey, "l2", {"l2", "cosine", "dot"}));
  ARROW_ASSIGN_OR_RAISE(options.metric, ParseMetric(metric));
  ARROW_ASSIGN_OR_RAISE(int64_t partitions,
                        IntegerParam(params, family, kNumPartitionsKey, 256, 1, 65536));
  ARROW_ASSIGN_OR_RAISE(int64_t sample_rate,
                        IntegerParam(params, family, kSampleRateKey, 256, 1, 65536));
  ARROW_ASSIGN_OR_RAISE(int64_t iterations,
                        IntegerParam(params, family, kMaxItersKey, 50, 1, 1000));
  ARROW_ASSIGN_OR_RAISE(int64_t seed, IntegerParam(params, family, kSeedKey, 42, 0, INT64_MAX));
  options.num_partitions = static_cast<int>(partitions);
  options.sample_rate = static_cast<int>(sample_rate);
  options.max_iterations = static_cast<int>(iterations);
  options.seed = static_cast<uint64_t>(seed);
  if (product) {
    ARROW_ASSIGN_OR_RAISE(std::string bits_text,
                          ChoiceParam(params, family, kNumBitsKey, "8", {"8", "4"}));
    const int bits = bits_text == "4" ? 4 : 8;
    if (graph && bits != 8) {
      // 4-bit codes are scanned in blocks of 32 rows; a graph walk scores rows one at a time.
      return InvalidArgument("index parameter 'num_bits' of ", family,
                             " must be 8, got 4; 4-bit codes (fast scan) are for IVF_PQ");
    }
    const int suggested = DefaultSubVectors(dim, bits);
    ARROW_ASSIGN_OR_RAISE(int64_t sub_vectors, IntegerParam(params, family, kNumSubVectorsKey,
                                                            suggested, 1, std::max(dim, 1)));
    if (sub_vectors == 0) {  // the default, where no count suits 4-bit codes
      return InvalidArgument("vectors of dimension ", dim, " cannot take 4-bit ", family,
                             " codes: no even count of at most ", kPq4MaxSubVectors,
                             " sub-vectors divides it; use num_bits 8");
    }
    if (dim % sub_vectors != 0) {
      return InvalidArgument("index parameter 'num_sub_vectors' of ", family, " must divide the ",
                             "vector dimension ", dim, ", got ", sub_vectors,
                             "; pick a divisor such as ", suggested);
    }
    if (bits == 4 && !FourBitSubVectorsValid(static_cast<int>(sub_vectors))) {
      return InvalidArgument("index parameter 'num_sub_vectors' of ", family,
                             " with num_bits 4 must be even and at most ", kPq4MaxSubVectors,
                             " (two 4-bit codes share a byte), got ", sub_vectors,
                             suggested > 0 ? "; pick an even divisor of the dimension such as "
                                           : "; the dimension has no such divisor",
                             suggested > 0 ? std::to_string(suggested) : std::string());
    }
    options.num_sub_vectors = static_cast<int>(sub_vectors);
    options.num_bits = bits;
    ARROW_ASSIGN_OR_RAISE(std::string residual,
                          ChoiceParam(params, family, kResidualKey, "true", {"true", "false"}));
    options.residual = residual == "true";
  }
  if (graph) {
    ARROW_ASSIGN_OR_RAISE(
        int64_t m, IntegerParam(params, family, kHnswMKey, kDefaultHnswM, kMinHnswM, kMaxHnswM));
    ARROW_ASSIGN_OR_RAISE(int64_t ef_construction,
                          IntegerParam(params, family, kEfConstructionKey, kDefaultEfConstruction,
                                       m, kMaxEfConstruction));
    options.m = static_cast<int>(m);
    options.ef_construction = static_cast<int>(ef_construction);
  }
  if (rabit) {
    ARROW_RETURN_NOT_OK(CheckRabitDimension(dim));
    ARROW_ASSIGN_OR_RAISE(
        int64_t bits, IntegerParam(params, family, kNumBitsKey, 1, kMinRabitBits, kMaxRabitBits));
    options.num_bits = static_cast<int>(bits);
  }
  return options;
}

std::unique_ptr<IndexFamily> MakeIvfFlatFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kFlat, /*graph=*/false);
}
std::unique_ptr<IndexFamily> MakeIvfSqFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kScalar8, /*graph=*/false);
}
std::unique_ptr<IndexFamily> MakeIvfPqFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kProduct8, /*graph=*/false);
}
std::unique_ptr<IndexFamily> MakeIvfRqFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kRabit, /*graph=*/false);
}
std::unique_ptr<IndexFamily> MakeIvfHnswFlatFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kFlat, /*graph=*/true);
}
std::unique_ptr<IndexFamily> MakeIvfHnswSqFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kScalar8, /*graph=*/true);
}
std::unique_ptr<IndexFamily> MakeIvfHnswPqFamily() {
  return std::make_unique<IvfFamily>(IvfKind::kProduct8, /*graph=*/true);
}

}  // namespace tessera::index::vector
