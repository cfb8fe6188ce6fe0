#include "tessera/index/vector/scalar_quantizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"

namespace tessera::index::vector {

namespace {

constexpr int kLevels = 255;

class ScalarQueryScorer final : public QueryScorer {
 public:
  ScalarQueryScorer(Metric metric, int dim, int code_size)
      : metric_(metric), dim_(dim), code_size_(code_size) {}

  void Prepare(const float* query, const std::vector<float>& low, const std::vector<float>& step) {
    weights_.resize(static_cast<size_t>(dim_));
    float largest = 0;
    double bias = 0;
    double norm = 0;
    for (int d = 0; d < dim_; ++d) {
      largest = std::max(largest, std::fabs(query[d] * step[d]));
      bias += static_cast<double>(query[d]) * low[d];
      norm += static_cast<double>(query[d]) * query[d];
    }
    scale_ = largest / 127.0f;
    for (int d = 0; d < dim_; ++d) {
      const float weight = scale_ > 0 ? query[d] * step[d] / scale_ : 0.0f;
      weights_[d] = static_cast<int8_t>(std::clamp(std::lround(weight), -127L, 127L));
    }
    bias_ = static_cast<float>(bias);
    query_norm_ = static_cast<float>(norm);
  }

  void Score(int /*partition*/, const uint8_t* codes, int64_t count, float* out) override {
    products_.resize(static_cast<size_t>(count));
    simd::ActiveKernels().dot_u8_s8_batch(codes, code_size_, count, weights_.data(), dim_,
                                          products_.data());
    for (int64_t i = 0; i < count; ++i) {
      const float inner = bias_ + scale_ * static_cast<float>(products_[i]);
      switch (metric_) {
        case Metric::kL2: {
          float norm;
          std::memcpy(&norm, codes + i * code_size_ + dim_, sizeof(norm));
          out[i] = query_norm_ - 2.0f * inner + norm;
          break;
        }
        case Metric::kDot:
          out[i] = -inner;
          break;
        case Metric::kCosine:
          out[i] = 1.0f - inner;
          break;
      }
    }
  }

 private:
  Metric metric_;
  int dim_;
  int code_size_;
  std::vector<int8_t> weights_;
  std::vector<int32_t> products_;
  float scale_ = 0;
  float bias_ = 0;
  float query_norm_ = 0;
};

}  // namespace

ScalarQuantizer ScalarQuantizer::Train(const float* sample, int64_t count, int dim) {
  ScalarQuantizer quantizer;
  quantizer.dim_ = dim;
  std::vector<float> high(static_cast<size_t>(dim), -INFINITY);
  quantizer.low_.assign(static_cast<size_t>(dim), INFINITY);
  for (int64_t i = 0; i < count; ++i) {
    for (int d = 0; d < dim; ++d) {
      const float value = sample[i * dim + d];
      quantizer.low_[d] = std::min(quantizer.low_[d], value);
      high[d] = std::max(high[d], value);
    }
  }
  quantizer.step_.resize(static_cast<size_t>(dim));
  for (int d = 0; d < dim; ++d) {
    if (!(quantizer.low_[d] <= high[d])) quantizer.low_[d] = high[d] = 0;  // no sample
    quantizer.step_[d] = (high[d] - quantizer.low_[d]) / kLevels;
  }
  return quantizer;
}

arrow::Result<ScalarQuantizer> ScalarQuantizer::Deserialize(std::string_view bytes, int dim,
                                                            std::string_view what) {
  const size_t expected = sizeof(uint32_t) + 2 * sizeof(float) * static_cast<size_t>(dim);
  uint32_t stored_dim = 0;
  if (bytes.size() >= sizeof(uint32_t)) std::memcpy(&stored_dim, bytes.data(), sizeof(uint32_t));
  if (bytes.size() != expected || stored_dim != static_cast<uint32_t>(dim)) {
    return Corrupt(what, " holds a scalar quantizer of ", bytes.size(), " bytes (dimension ",
                   stored_dim, "); dimension ", dim, " needs ", expected);
  }
  ScalarQuantizer quantizer;
  quantizer.dim_ = dim;
  quantizer.low_.resize(static_cast<size_t>(dim));
  quantizer.step_.resize(static_cast<size_t>(dim));
  const char* at = bytes.data() + sizeof(uint32_t);
  std::memcpy(quantizer.low_.data(), at, sizeof(float) * static_cast<size_t>(dim));
  std::memcpy(quantizer.step_.data(), at + sizeof(float) * static_cast<size_t>(dim),
              sizeof(float) * static_cast<size_t>(dim));
  for (int d = 0; d < dim; ++d) {
    if (!std::isfinite(quantizer.low_[d]) || !std::isfinite(quantizer.step_[d]) ||
        quantizer.step_[d] < 0) {
      return Corrupt(what, " holds an invalid range for dimension ", d);
    }
  }
  return quantizer;
}

std::string ScalarQuantizer::Serialize() const {
  std::string bytes(sizeof(uint32_t), '\0');
  const uint32_t dim = static_cast<uint32_t>(dim_);
  std::memcpy(bytes.data(), &dim, sizeof(dim));
  bytes.append(reinterpret_cast<const char*>(low_.data()), low_.size() * sizeof(float));
  bytes.append(reinterpret_cast<const char*>(step_.data()), step_.size() * sizeof(float));
  return bytes;
}

arrow::Status ScalarQuantizer::Encode(const IvfModel& /*ivf*/, const float* vectors,
                                      const int32_t* /*partitions*/, int64_t count,
                                      uint8_t* codes) const {
  const int size = code_size();
  for (int64_t i = 0; i < count; ++i) {
    const float* vector = vectors + i * dim_;
    uint8_t* code = codes + i * size;
    double norm = 0;
    for (int d = 0; d < dim_; ++d) {
      float level = step_[d] > 0 ? (vector[d] - low_[d]) / step_[d] : 0.0f;
      // Values outside the trained range saturate; NaN (never a neighbour) becomes level 0.
      level = std::isnan(level) ? 0.0f : std::clamp(level, 0.0f, static_cast<float>(kLevels));
      const long rounded = std::lround(level);
      code[d] = static_cast<uint8_t>(rounded);
      const float decoded = low_[d] + step_[d] * static_cast<float>(rounded);
      norm += static_cast<double>(decoded) * decoded;
    }
    const float stored = static_cast<float>(norm);
    std::memcpy(code + dim_, &stored, sizeof(stored));
  }
  return arrow::Status::OK();
}

std::unique_ptr<QueryScorer> ScalarQuantizer::Prepare(const IvfModel& ivf,
                                                      const float* query) const {
  auto scorer = std::make_unique<ScalarQueryScorer>(ivf.metric(), dim_, code_size());
  scorer->Prepare(query, low_, step_);
  return scorer;
}

std::vector<float> ScalarQuantizer::Decode(const uint8_t* code) const {
  std::vector<float> vector(static_cast<size_t>(dim_));
  DecodeCode(code, vector.data());
  return vector;
}

arrow::Status ScalarQuantizer::Decode(const IvfModel&, int, const uint8_t* codes, int64_t count,
                                      float* out) const {
  for (int64_t i = 0; i < count; ++i) DecodeCode(codes + i * code_size(), out + i * dim_);
  return arrow::Status::OK();
}

void ScalarQuantizer::DecodeCode(const uint8_t* code, float* out) const {
  for (int d = 0; d < dim_; ++d) out[d] = low_[d] + step_[d] * static_cast<float>(code[d]);
}

}  // namespace tessera::index::vector
