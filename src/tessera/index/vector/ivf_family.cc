#include "tessera/index/vector/ivf_flat_family.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/vector/ivf_flat_reader.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/ivf_partitions.h"
#include "tessera/index/vector/kmeans.h"
#include "tessera/index/vector/vector_column.h"
#include "tessera/index/vector/vector_sample.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

constexpr std::string_view kMetricKey = "metric";
constexpr std::string_view kNumPartitionsKey = "num_partitions";
constexpr std::string_view kSampleRateKey = "sample_rate";
constexpr std::string_view kMaxItersKey = "max_iters";
constexpr std::string_view kSeedKey = "seed";

// Sampling and k-means seeding draw from separate streams of the one `seed` parameter.
constexpr uint64_t kSampleStream = 0x73616d706c650001ULL;
constexpr uint64_t kKMeansStream = 0x6b6d65616e730002ULL;

std::string Join(const std::string& directory, const char* file) { return directory + "/" + file; }

// The indexed column's dimension, after checking that `input` names one.
arrow::Result<int> InputDimension(const BuildInput& input) {
  if (input.storage == nullptr || input.schema == nullptr) {
    return InvalidArgument("an IVF_FLAT build of index '", input.index_name,
                           "' needs the dataset's storage and schema");
  }
  if (input.column_index < 0 || input.column_index >= input.schema->num_fields()) {
    return InvalidArgument("an IVF_FLAT build of index '", input.index_name, "' names column ",
                           input.column_index, " of a schema with ", input.schema->num_fields(),
                           " columns");
  }
  return VectorColumnDimension(*input.schema->field(input.column_index), kIvfFlatFamily);
}

std::string ColumnName(const BuildInput& input) {
  return input.schema->field(input.column_index)->name();
}

Model ToModel(const IvfModel& model) {
  Model result;
  result.family = std::string(kIvfFlatFamily);
  result.bytes = model.Serialize();
  result.fingerprint = IvfModel::FingerprintOf(result.bytes);
  return result;
}

void SetDetails(const IvfModel& model, uint64_t num_vectors, format::SegmentMeta* meta) {
  auto& details = *meta->mutable_details();
  details["metric"] = std::string(MetricName(model.metric()));
  details["num_partitions"] = std::to_string(model.num_partitions());
  details["dim"] = std::to_string(model.dim());
  details["num_vectors"] = std::to_string(num_vectors);
}

// The segment's rows, grouped by partition, then written out in partition order.
struct PartitionedRows {
  std::vector<std::vector<uint64_t>> row_addresses;
  std::vector<std::vector<float>> vectors;
  uint64_t count = 0;
};

arrow::Status WriteSegmentFiles(const SegmentDirectory& out, const IvfModel& model,
                                const std::string& model_bytes, const PartitionedRows& rows) {
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        IvfPartitionWriter::Open(*out.storage, Join(out.path, kIvfPartitionsFile),
                                                 model.dim(), model.num_partitions()));
  for (int p = 0; p < model.num_partitions(); ++p) {
    ARROW_RETURN_NOT_OK(writer->Write(rows.row_addresses[p].data(), rows.vectors[p].data(),
                                      static_cast<int64_t>(rows.row_addresses[p].size())));
  }
  ARROW_RETURN_NOT_OK(writer->Finish());
  return out.storage->WriteFile(Join(out.path, kIvfModelFile), model_bytes);
}

class IvfFlatFamily final : public IndexFamily {
 public:
  std::string_view name() const override { return kIvfFlatFamily; }
  bool has_model() const override { return true; }

  arrow::Result<Params> Validate(const arrow::Field& column, const Params& params) const override {
    ARROW_RETURN_NOT_OK(VectorColumnDimension(column, kIvfFlatFamily).status());
    ARROW_ASSIGN_OR_RAISE(IvfFlatOptions options, ParseIvfFlatOptions(params));
    return Params{
        {std::string(kMetricKey), std::string(MetricName(options.metric))},
        {std::string(kNumPartitionsKey), std::to_string(options.num_partitions)},
        {std::string(kSampleRateKey), std::to_string(options.sample_rate)},
        {std::string(kMaxItersKey), std::to_string(options.max_iterations)},
        {std::string(kSeedKey), std::to_string(options.seed)},
    };
  }

  arrow::Result<Model> Train(const BuildInput& input) const override {
    ARROW_ASSIGN_OR_RAISE(int dim, InputDimension(input));
    ARROW_ASSIGN_OR_RAISE(IvfFlatOptions options, ParseIvfFlatOptions(input.params));
    const int64_t sample_rows = int64_t{options.num_partitions} * options.sample_rate;
    ARROW_ASSIGN_OR_RAISE(VectorSample sample,
                          SampleVectors(input, dim, sample_rows, options.seed ^ kSampleStream));
    if (sample.rows == 0) {
      return InvalidArgument("cannot train IVF_FLAT index '", input.index_name, "': column '",
                             ColumnName(input), "' has no non-null vector in the ",
                             input.fragments.size(), " fragment(s) to index");
    }
    if (options.metric == Metric::kCosine) {
      for (int64_t i = 0; i < sample.rows; ++i) Normalize(sample.vectors.data() + i * dim, dim);
    }
    KMeansOptions kmeans;
    kmeans.num_clusters = static_cast<int>(std::min<int64_t>(options.num_partitions, sample.rows));
    kmeans.max_iterations = options.max_iterations;
    kmeans.seed = options.seed ^ kKMeansStream;
    kmeans.metric = options.metric;
    ARROW_ASSIGN_OR_RAISE(KMeansResult clusters,
                          TrainKMeans(sample.vectors.data(), sample.rows, dim, kmeans));
    ARROW_ASSIGN_OR_RAISE(IvfModel model,
                          IvfModel::Make(options.metric, dim, std::move(clusters.centroids)));
    return ToModel(model);
  }

  arrow::Result<format::SegmentMeta> Build(const BuildInput& input, const Model* model,
                                           const SegmentDirectory& out) const override {
    ARROW_ASSIGN_OR_RAISE(int dim, InputDimension(input));
    ARROW_ASSIGN_OR_RAISE(IvfFlatOptions options, ParseIvfFlatOptions(input.params));
    Model trained;
    if (model == nullptr) {
      ARROW_ASSIGN_OR_RAISE(trained, Train(input));
      model = &trained;
    }
    ARROW_ASSIGN_OR_RAISE(IvfModel ivf, CheckModel(input, *model, dim, options));

    PartitionedRows rows;
    rows.row_addresses.resize(static_cast<size_t>(ivf.num_partitions()));
    rows.vectors.resize(static_cast<size_t>(ivf.num_partitions()));
    uint64_t physical_rows = 0;
    for (const auto& fragment : input.fragments) {
      ARROW_ASSIGN_OR_RAISE(auto reader,
                            dataset::FragmentReader::Open(*input.storage, fragment, input.schema,
                                                          {input.column_index}));
      physical_rows += fragment.physical_rows();
      for (int b = 0; b < reader->num_batches(); ++b) {
        ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(b));
        dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
        ARROW_ASSIGN_OR_RAISE(VectorRows vectors, VectorRows::Make(batch->column(0)));
        if (vectors.dim() != dim) {
          return Corrupt("fragment ", fragment.id(), " holds vectors of dimension ", vectors.dim(),
                         " in column '", ColumnName(input), "' of dimension ", dim);
        }
        const uint64_t first = static_cast<uint64_t>(b) * reader->rows_per_batch();
        if (first + static_cast<uint64_t>(vectors.size()) > (uint64_t{1} << 32)) {
          return Corrupt("fragment ", fragment.id(), " has more rows than a row address holds");
        }
        for (int64_t i = 0; i < vectors.size(); ++i) {
          if (vectors.IsNull(i)) continue;
          const float* vector = vectors.Row(i);
          const int partition = ivf.Assign(vector);
          rows.row_addresses[partition].push_back(dataset::MakeRowAddress(
              fragment.id(), static_cast<uint32_t>(first + static_cast<uint64_t>(i))));
          rows.vectors[partition].insert(rows.vectors[partition].end(), vector, vector + dim);
          ++rows.count;
        }
      }
    }
    ARROW_RETURN_NOT_OK(WriteSegmentFiles(out, ivf, model->bytes, rows));

    format::SegmentMeta meta;
    meta.set_model_fingerprint(model->fingerprint);
    meta.set_num_rows(physical_rows);
    SetDetails(ivf, rows.count, &meta);
    ARROW_RETURN_NOT_OK(FillCommonMeta(input, kIvfFlatFamily, out, &meta));
    return meta;
  }

  arrow::Result<format::SegmentMeta> Merge(const std::vector<format::SegmentMeta>& inputs,
                                           const std::vector<SegmentDirectory>& dirs,
                                           const SegmentDirectory& out) const override {
    if (inputs.empty()) return InvalidArgument("IVF_FLAT merge needs at least one segment");
    if (dirs.size() != inputs.size()) {
      return InvalidArgument("IVF_FLAT merge got ", inputs.size(), " segments but ", dirs.size(),
                             " directories");
    }
    const format::SegmentMeta& first = inputs.front();
    Roaring fragments;
    uint64_t dataset_version = 0;
    uint64_t num_rows = 0;
    for (const auto& segment : inputs) {
      if (segment.family() != kIvfFlatFamily) {
        return InvalidArgument("IVF_FLAT cannot merge segment ", segment.uuid(), " of family ",
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

    std::string model_bytes;
    ARROW_ASSIGN_OR_RAISE(IvfModel model,
                          ReadIvfModel(dirs[order[0]], first.model_fingerprint(), &model_bytes));
    std::vector<std::unique_ptr<IvfPartitions>> sources;
    for (size_t i : order) {
      if (i != order[0]) {
        ARROW_RETURN_NOT_OK(ReadIvfModel(dirs[i], first.model_fingerprint()).status());
      }
      ARROW_ASSIGN_OR_RAISE(
          auto partitions,
          IvfPartitions::Open(*dirs[i].storage, Join(dirs[i].path, kIvfPartitionsFile), model.dim(),
                              model.num_partitions()));
      sources.push_back(std::move(partitions));
    }

    // One partition at a time: memory is bounded by the largest merged partition.
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          IvfPartitionWriter::Open(*out.storage, Join(out.path, kIvfPartitionsFile),
                                                   model.dim(), model.num_partitions()));
    const size_t dim = static_cast<size_t>(model.dim());
    uint64_t num_vectors = 0;
    std::vector<uint64_t> row_addresses;
    std::vector<float> vectors;
    for (int p = 0; p < model.num_partitions(); ++p) {
      row_addresses.clear();
      vectors.clear();
      for (const auto& source : sources) {
        const size_t size = static_cast<size_t>(source->size(p));
        row_addresses.insert(row_addresses.end(), source->row_addresses(p),
                             source->row_addresses(p) + size);
        vectors.insert(vectors.end(), source->vectors(p), source->vectors(p) + size * dim);
      }
      num_vectors += row_addresses.size();
      ARROW_RETURN_NOT_OK(writer->Write(row_addresses.data(), vectors.data(),
                                        static_cast<int64_t>(row_addresses.size())));
    }
    ARROW_RETURN_NOT_OK(writer->Finish());
    ARROW_RETURN_NOT_OK(out.storage->WriteFile(Join(out.path, kIvfModelFile), model_bytes));

    BuildInput merged;
    merged.index_name = first.index_name();
    merged.field_id = first.field_id();
    merged.dataset_version = dataset_version;
    for (uint32_t id : fragments) merged.fragments.emplace_back().set_id(id);
    format::SegmentMeta meta;
    meta.set_model_fingerprint(first.model_fingerprint());
    meta.set_num_rows(num_rows);
    SetDetails(model, num_vectors, &meta);
    ARROW_RETURN_NOT_OK(FillCommonMeta(merged, kIvfFlatFamily, out, &meta));
    return meta;
  }

  arrow::Result<Model> LoadModel(const format::SegmentMeta& segment,
                                 const SegmentDirectory& dir) const override {
    std::string bytes;
    ARROW_RETURN_NOT_OK(ReadIvfModel(dir, segment.model_fingerprint(), &bytes).status());
    Model model;
    model.family = std::string(kIvfFlatFamily);
    model.fingerprint = IvfModel::FingerprintOf(bytes);
    model.bytes = std::move(bytes);
    return model;
  }

  arrow::Result<std::unique_ptr<SegmentReader>> Open(const format::SegmentMeta& segment,
                                                     const SegmentDirectory& dir) const override {
    ARROW_ASSIGN_OR_RAISE(auto reader, IvfFlatReader::Open(segment, dir));
    return std::unique_ptr<SegmentReader>(std::move(reader));
  }

 private:
  // The model a build uses, checked against the index's metric and column.
  static arrow::Result<IvfModel> CheckModel(const BuildInput& input, const Model& model, int dim,
                                            const IvfFlatOptions& options) {
    if (model.family != kIvfFlatFamily) {
      return InvalidArgument("index '", input.index_name, "' is IVF_FLAT but was given a ",
                             model.family, " model");
    }
    if (IvfModel::FingerprintOf(model.bytes) != model.fingerprint) {
      return InvalidArgument("the model given to index '", input.index_name,
                             "' does not match its fingerprint ", model.fingerprint);
    }
    ARROW_ASSIGN_OR_RAISE(
        IvfModel ivf,
        IvfModel::Deserialize(model.bytes, "the model of index '" + input.index_name + "'"));
    if (ivf.metric() != options.metric) {
      return InvalidArgument("the model given to index '", input.index_name, "' uses metric ",
                             MetricName(ivf.metric()), "; the index uses ",
                             MetricName(options.metric));
    }
    if (ivf.dim() != dim) {
      return InvalidArgument("the model given to index '", input.index_name, "' has dimension ",
                             ivf.dim(), "; column '", ColumnName(input), "' has dimension ", dim);
    }
    return ivf;
  }
};

}  // namespace

arrow::Result<IvfFlatOptions> ParseIvfFlatOptions(const Params& params) {
  ARROW_RETURN_NOT_OK(
      RejectUnknownParams(params, kIvfFlatFamily,
                          {kMetricKey, kNumPartitionsKey, kSampleRateKey, kMaxItersKey, kSeedKey}));
  IvfFlatOptions options;
  ARROW_ASSIGN_OR_RAISE(std::string metric, ChoiceParam(params, kIvfFlatFamily, kMetricKey, "l2",
                                                        {"l2", "cosine", "dot"}));
  ARROW_ASSIGN_OR_RAISE(options.metric, ParseMetric(metric));
  ARROW_ASSIGN_OR_RAISE(int64_t partitions,
                        IntegerParam(params, kIvfFlatFamily, kNumPartitionsKey, 256, 1, 65536));
  ARROW_ASSIGN_OR_RAISE(int64_t sample_rate,
                        IntegerParam(params, kIvfFlatFamily, kSampleRateKey, 256, 1, 65536));
  ARROW_ASSIGN_OR_RAISE(int64_t iterations,
                        IntegerParam(params, kIvfFlatFamily, kMaxItersKey, 50, 1, 1000));
  ARROW_ASSIGN_OR_RAISE(int64_t seed,
                        IntegerParam(params, kIvfFlatFamily, kSeedKey, 42, 0, INT64_MAX));
  options.num_partitions = static_cast<int>(partitions);
  options.sample_rate = static_cast<int>(sample_rate);
  options.max_iterations = static_cast<int>(iterations);
  options.seed = static_cast<uint64_t>(seed);
  return options;
}

std::unique_ptr<IndexFamily> MakeIvfFlatFamily() { return std::make_unique<IvfFlatFamily>(); }

}  // namespace tessera::index::vector
