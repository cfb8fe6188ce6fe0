#include "tessera/synthetic/embedding_generator.h"

#include <arrow/buffer.h>
#include <arrow/builder.h>
#include <arrow/memory_pool.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <string_view>
#include <utility>

#include "tessera/status.h"

namespace tessera::synthetic {
namespace {

// Independent random streams derived from one seed. Changing a constant changes the data.
constexpr uint64_t kModelStream = 0x6d6f64656c000001ULL;
constexpr uint64_t kRowVectorStream = 0x726f777665630002ULL;
constexpr uint64_t kRowAttributeStream = 0x726f776174740003ULL;
constexpr uint64_t kQueryStream = 0x7175657279000004ULL;

// SplitMix64's finalizer: a bijective mix of 64 bits.
uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t StreamKey(uint64_t seed, uint64_t stream, uint64_t counter) {
  return Mix64(Mix64(seed ^ stream) + Mix64(counter + 0x9e3779b97f4a7c15ULL));
}

// A counter-based generator: its whole sequence follows from one key, so each row (or the
// model) gets its own stream and no value depends on what was generated before it. SplitMix64
// passes BigCrush and is more than enough here. Gaussians use Box–Muller rather than
// std::normal_distribution, whose output differs between standard libraries.
class Random {
 public:
  explicit Random(uint64_t key) : state_(key) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return Mix64(state_);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound).
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }
  double Gaussian() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - Uniform();  // (0, 1]: log stays finite
    const double u2 = Uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

constexpr std::array<std::string_view, 8> kCategories = {
    "electronics", "books", "clothing", "home", "sports", "toys", "grocery", "beauty"};
// Skewed like real catalogues, so filters of very different selectivity exist.
constexpr std::array<double, 8> kCategoryWeights = {0.30, 0.20, 0.15, 0.11, 0.09, 0.07, 0.05, 0.03};
constexpr double kCategoryNullFraction = 0.02;
constexpr double kPriceNullFraction = 0.05;

constexpr std::array<std::string_view, 16> kTags = {
    "new",     "sale",    "popular",   "limited",  "eco",      "premium",
    "bundle",  "gift",    "clearance", "imported", "handmade", "refurbished",
    "organic", "vintage", "compact",   "wireless"};

constexpr std::array<std::string_view, 64> kWords = {
    "data",   "vector",    "search",  "index",   "fast",     "query",   "model",    "light",
    "river",  "stone",     "garden",  "music",   "window",   "cloud",   "engine",   "market",
    "paper",  "signal",    "forest",  "ocean",   "camera",   "travel",  "coffee",   "winter",
    "summer", "battery",   "screen",  "cotton",  "leather",  "kitchen", "family",   "silver",
    "golden", "digital",   "classic", "modern",  "simple",   "strong",  "quiet",    "bright",
    "table",  "chair",     "lamp",    "bottle",  "jacket",   "shoe",    "watch",    "phone",
    "novel",  "story",     "history", "science", "football", "tennis",  "puzzle",   "robot",
    "tea",    "chocolate", "spice",   "fresh",   "soft",     "warm",    "portable", "smart"};

constexpr int64_t kEpoch2024Micros = 1704067200LL * 1000000LL;  // 2024-01-01T00:00:00Z
constexpr int64_t kMicrosPerRow = 1000000;

// The fixed part of the distribution: mixture components in latent space and the linear map
// to the output space. Derived from the seed alone.
struct Mixture {
  int32_t dim = 0;
  int32_t latent_dim = 0;
  int32_t clusters = 0;
  double noise_stddev = 0;
  std::vector<double> centres;     // clusters × latent_dim
  std::vector<double> spreads;     // clusters × latent_dim: per-axis standard deviation
  std::vector<double> cumulative;  // clusters: cumulative component weights, last is 1
  std::vector<double> map;         // dim × latent_dim, row-major
};

Mixture BuildMixture(const EmbeddingOptions& options) {
  Mixture mixture;
  mixture.dim = options.dim;
  mixture.latent_dim = std::min(options.latent_dim, options.dim);
  mixture.clusters = options.clusters;
  mixture.noise_stddev = options.noise_stddev;
  const int32_t latent = mixture.latent_dim;
  Random random(StreamKey(options.seed, kModelStream, 0));

  mixture.centres.resize(static_cast<size_t>(options.clusters) * latent);
  for (double& value : mixture.centres) value = random.Gaussian();

  // Components differ in size and are anisotropic, as topics in a real embedding space are.
  mixture.spreads.resize(mixture.centres.size());
  for (int32_t c = 0; c < options.clusters; ++c) {
    const double scale = 0.2 + 0.3 * random.Uniform();
    for (int32_t k = 0; k < latent; ++k) {
      mixture.spreads[static_cast<size_t>(c) * latent + k] = scale * (0.5 + random.Uniform());
    }
  }

  mixture.cumulative.resize(options.clusters);
  double total = 0;
  for (int32_t c = 0; c < options.clusters; ++c) {
    total += std::exp(0.7 * random.Gaussian());
    mixture.cumulative[c] = total;
  }
  for (double& value : mixture.cumulative) value /= total;
  mixture.cumulative.back() = 1.0;

  // Entries of variance 1/dim keep the lifted vector's norm close to the latent point's.
  const double map_stddev = 1.0 / std::sqrt(static_cast<double>(options.dim));
  mixture.map.resize(static_cast<size_t>(options.dim) * latent);
  for (double& value : mixture.map) value = map_stddev * random.Gaussian();
  return mixture;
}

// Draws one point: returns its mixture component and writes dim floats to `out`.
// `latent` is scratch space of latent_dim doubles.
int32_t DrawVector(const Mixture& mixture, Random& random, double* latent, float* out) {
  const double u = random.Uniform();
  const auto it = std::upper_bound(mixture.cumulative.begin(), mixture.cumulative.end(), u);
  const int32_t cluster = static_cast<int32_t>(
      std::min<ptrdiff_t>(it - mixture.cumulative.begin(), mixture.clusters - 1));
  const int32_t latent_dim = mixture.latent_dim;
  const double* centre = mixture.centres.data() + static_cast<size_t>(cluster) * latent_dim;
  const double* spread = mixture.spreads.data() + static_cast<size_t>(cluster) * latent_dim;
  for (int32_t k = 0; k < latent_dim; ++k) latent[k] = centre[k] + spread[k] * random.Gaussian();
  for (int32_t j = 0; j < mixture.dim; ++j) {
    const double* row = mixture.map.data() + static_cast<size_t>(j) * latent_dim;
    double value = 0;
    for (int32_t k = 0; k < latent_dim; ++k) value += row[k] * latent[k];
    if (mixture.noise_stddev > 0) value += mixture.noise_stddev * random.Gaussian();
    out[j] = static_cast<float>(value);
  }
  return cluster;
}

size_t PickWeighted(double u) {
  double total = 0;
  for (size_t i = 0; i < kCategoryWeights.size(); ++i) {
    total += kCategoryWeights[i];
    if (u < total) return i;
  }
  return kCategoryWeights.size() - 1;
}

// The builders of one batch; attributes derive from (seed, row id) and the row's component.
class AttributeBuilders {
 public:
  explicit AttributeBuilders(arrow::MemoryPool* pool)
      : category_(pool),
        price_(pool),
        ts_(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), pool),
        tag_values_(std::make_shared<arrow::StringBuilder>(pool)),
        tags_(pool, tag_values_),
        text_(pool) {}

  arrow::Status Append(uint64_t seed, int64_t id, int32_t cluster) {
    Random random(StreamKey(seed, kRowAttributeStream, static_cast<uint64_t>(id)));
    if (random.Uniform() < kCategoryNullFraction) {
      ARROW_RETURN_NOT_OK(category_.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(category_.Append(kCategories[PickWeighted(random.Uniform())]));
    }

    if (random.Uniform() < kPriceNullFraction) {
      ARROW_RETURN_NOT_OK(price_.AppendNull());
    } else {
      const double price = std::exp(3.0 + random.Gaussian());  // log-normal, median ~20
      ARROW_RETURN_NOT_OK(price_.Append(std::round(price * 100.0) / 100.0));
    }

    const int64_t jitter = static_cast<int64_t>(random.Below(kMicrosPerRow));
    ARROW_RETURN_NOT_OK(ts_.Append(kEpoch2024Micros + id * kMicrosPerRow + jitter));

    ARROW_RETURN_NOT_OK(tags_.Append());
    const uint64_t tag_count = random.Below(4);
    uint32_t chosen = 0;  // bit set of tags already used: tags of a row are distinct
    for (uint64_t i = 0; i < tag_count;) {
      const uint64_t tag = random.Below(kTags.size());
      if (chosen & (1u << tag)) continue;
      chosen |= 1u << tag;
      ARROW_RETURN_NOT_OK(tag_values_->Append(kTags[tag]));
      ++i;
    }

    // Half the words come from a small window of "topic" words tied to the component, the rest
    // from a skewed background distribution: full-text queries for topic words then find rows
    // that are also vector neighbours.
    const uint64_t word_count = 4 + random.Below(13);
    text_scratch_.clear();
    for (uint64_t i = 0; i < word_count; ++i) {
      size_t word;
      if (random.Uniform() < 0.5) {
        word = (static_cast<size_t>(cluster) * 3 + random.Below(4)) % kWords.size();
      } else {
        const double u = random.Uniform();
        word = static_cast<size_t>(u * u * kWords.size());
      }
      if (i > 0) text_scratch_ += ' ';
      text_scratch_ += kWords[word];
    }
    return text_.Append(text_scratch_);
  }

  arrow::Status Finish(std::vector<std::shared_ptr<arrow::Array>>* columns) {
    std::shared_ptr<arrow::Array> array;
    ARROW_RETURN_NOT_OK(category_.Finish(&array));
    columns->push_back(array);
    ARROW_RETURN_NOT_OK(price_.Finish(&array));
    columns->push_back(array);
    ARROW_RETURN_NOT_OK(ts_.Finish(&array));
    columns->push_back(array);
    ARROW_RETURN_NOT_OK(tags_.Finish(&array));
    columns->push_back(array);
    ARROW_RETURN_NOT_OK(text_.Finish(&array));
    columns->push_back(array);
    return arrow::Status::OK();
  }

 private:
  arrow::StringBuilder category_;
  arrow::DoubleBuilder price_;
  arrow::TimestampBuilder ts_;
  std::shared_ptr<arrow::StringBuilder> tag_values_;
  arrow::ListBuilder tags_;
  arrow::StringBuilder text_;
  std::string text_scratch_;
};

arrow::Result<std::shared_ptr<arrow::FixedSizeListArray>> MakeVectorArray(
    std::shared_ptr<arrow::Buffer> values, int64_t length, int32_t dim) {
  auto value_array =
      std::make_shared<arrow::FloatArray>(length * dim, std::move(values), nullptr, 0);
  return std::make_shared<arrow::FixedSizeListArray>(arrow::fixed_size_list(arrow::float32(), dim),
                                                     length, value_array);
}

arrow::Result<std::shared_ptr<arrow::Buffer>> AllocateFloats(int64_t count) {
  ARROW_ASSIGN_OR_RAISE(std::unique_ptr<arrow::Buffer> buffer,
                        arrow::AllocateBuffer(count * static_cast<int64_t>(sizeof(float))));
  // Zero the padding too, so buffers (and files written from them) are byte-identical.
  std::memset(buffer->mutable_data(), 0, static_cast<size_t>(buffer->capacity()));
  return std::shared_ptr<arrow::Buffer>(std::move(buffer));
}

class EmbeddingReader : public arrow::RecordBatchReader {
 public:
  explicit EmbeddingReader(const EmbeddingOptions& options)
      : options_(options),
        schema_(EmbeddingSchema(options.dim)),
        mixture_(BuildMixture(options)),
        latent_(mixture_.latent_dim) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  using arrow::RecordBatchReader::ReadNext;
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (next_row_ >= options_.rows) {
      batch->reset();
      return arrow::Status::OK();
    }
    const int64_t begin = next_row_;
    const int64_t length = std::min(options_.batch_rows, options_.rows - begin);
    const int32_t dim = options_.dim;

    arrow::Int64Builder ids;
    ARROW_RETURN_NOT_OK(ids.Reserve(length));
    ARROW_ASSIGN_OR_RAISE(auto values, AllocateFloats(length * dim));
    float* out = reinterpret_cast<float*>(values->mutable_data());
    AttributeBuilders attributes(arrow::default_memory_pool());
    for (int64_t i = 0; i < length; ++i) {
      const int64_t id = begin + i;
      ids.UnsafeAppend(id);
      Random random(StreamKey(options_.seed, kRowVectorStream, static_cast<uint64_t>(id)));
      const int32_t cluster = DrawVector(mixture_, random, latent_.data(), out + i * dim);
      ARROW_RETURN_NOT_OK(attributes.Append(options_.seed, id, cluster));
    }

    std::vector<std::shared_ptr<arrow::Array>> columns;
    std::shared_ptr<arrow::Array> id_array;
    ARROW_RETURN_NOT_OK(ids.Finish(&id_array));
    columns.push_back(id_array);
    ARROW_ASSIGN_OR_RAISE(auto vectors, MakeVectorArray(values, length, dim));
    columns.push_back(vectors);
    ARROW_RETURN_NOT_OK(attributes.Finish(&columns));

    next_row_ += length;
    *batch = arrow::RecordBatch::Make(schema_, length, std::move(columns));
    return arrow::Status::OK();
  }

 private:
  EmbeddingOptions options_;
  std::shared_ptr<arrow::Schema> schema_;
  Mixture mixture_;
  std::vector<double> latent_;
  int64_t next_row_ = 0;
};

}  // namespace

std::shared_ptr<arrow::Schema> EmbeddingSchema(int32_t dim) {
  return arrow::schema({
      arrow::field("id", arrow::int64()),
      arrow::field("vector", arrow::fixed_size_list(arrow::float32(), dim)),
      arrow::field("category", arrow::utf8()),
      arrow::field("price", arrow::float64()),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
      arrow::field("tags", arrow::list(arrow::utf8())),
      arrow::field("text", arrow::utf8()),
  });
}

arrow::Status ValidateOptions(const EmbeddingOptions& options) {
  if (options.rows < 0) {
    return InvalidArgument("synthetic data: rows must be >= 0, got ", options.rows);
  }
  if (options.dim < 1 || options.dim > 65536) {
    return InvalidArgument("synthetic data: dim must be in [1, 65536], got ", options.dim);
  }
  if (options.latent_dim < 1) {
    return InvalidArgument("synthetic data: latent_dim must be >= 1, got ", options.latent_dim);
  }
  if (options.clusters < 1 || options.clusters > 1000000) {
    return InvalidArgument("synthetic data: clusters must be in [1, 1000000], got ",
                           options.clusters);
  }
  if (options.batch_rows < 1) {
    return InvalidArgument("synthetic data: batch_rows must be >= 1, got ", options.batch_rows);
  }
  // Bounds one batch's vector buffer (and keeps length × dim far from overflow).
  if (options.batch_rows > (int64_t{1} << 28) / options.dim) {
    return InvalidArgument("synthetic data: batch_rows × dim must be at most 2^28, got ",
                           options.batch_rows, " × ", options.dim, "; use smaller batches");
  }
  if (!(options.noise_stddev >= 0) || !std::isfinite(options.noise_stddev)) {
    return InvalidArgument("synthetic data: noise_stddev must be finite and >= 0, got ",
                           options.noise_stddev);
  }
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeEmbeddingReader(
    const EmbeddingOptions& options) {
  ARROW_RETURN_NOT_OK(ValidateOptions(options));
  return std::make_shared<EmbeddingReader>(options);
}

arrow::Result<std::vector<float>> MakeQueryVectorsFlat(const EmbeddingOptions& options,
                                                       int64_t count) {
  EmbeddingOptions checked = options;
  checked.rows = 0;
  checked.batch_rows = 1;
  ARROW_RETURN_NOT_OK(ValidateOptions(checked));
  if (count < 0 || count > (int64_t{1} << 31) / options.dim) {
    return InvalidArgument("synthetic queries: count must be in [0, 2^31 / dim], got ", count);
  }
  const Mixture mixture = BuildMixture(options);
  std::vector<double> latent(mixture.latent_dim);
  std::vector<float> out(static_cast<size_t>(count) * options.dim);
  for (int64_t i = 0; i < count; ++i) {
    Random random(StreamKey(options.seed, kQueryStream, static_cast<uint64_t>(i)));
    DrawVector(mixture, random, latent.data(), out.data() + i * options.dim);
  }
  return out;
}

arrow::Result<std::shared_ptr<arrow::FixedSizeListArray>> MakeQueryVectors(
    const EmbeddingOptions& options, int64_t count) {
  ARROW_ASSIGN_OR_RAISE(std::vector<float> flat, MakeQueryVectorsFlat(options, count));
  ARROW_ASSIGN_OR_RAISE(auto values, AllocateFloats(count * options.dim));
  std::memcpy(values->mutable_data(), flat.data(), flat.size() * sizeof(float));
  return MakeVectorArray(std::move(values), count, options.dim);
}

}  // namespace tessera::synthetic
