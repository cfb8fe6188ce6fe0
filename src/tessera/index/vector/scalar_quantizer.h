// SQ8: 8-bit scalar quantization, the quantizer of IVF_SQ.
//
// Each dimension d has a range [low_d, low_d + 255 · step_d] learnt from the training sample
// (its minimum and maximum); a vector is stored as one byte per dimension,
// c_d = round((x_d − low_d) / step_d) clamped to [0, 255], followed by ‖x̂‖² as a float32 (the
// squared norm of the decoded vector x̂_d = low_d + step_d · c_d, for l2). Codes are absolute,
// not residuals, so a query is prepared once for all partitions.
//
// Scoring never decodes: q·x̂ = q·low + Σ_d (q_d · step_d) · c_d. The weights q_d · step_d are
// rounded to signed bytes with one scale per query, so the sum is an exact integer dot product
// of unsigned and signed bytes (simd::Kernels::dot_u8_s8_batch: AVX-512 VNNI where the CPU has
// it, 64 dimensions per instruction). That rounding adds an error of the same order as the
// codes' own; re-ranking with raw vectors (refine_factor) removes both.
//
// Serialized form (little-endian): uint32 dim, float32 low[dim], float32 step[dim].
#pragma once

#include <arrow/result.h>

#include <string_view>
#include <vector>

#include "tessera/index/vector/quantizer.h"

namespace tessera::index::vector {

class ScalarQuantizer final : public Quantizer {
 public:
  // Ranges of the `count` sample vectors (count ≥ 1).
  static ScalarQuantizer Train(const float* sample, int64_t count, int dim);
  // Corrupt (naming `what`) for bytes that are not a quantizer of dimension `dim`.
  static arrow::Result<ScalarQuantizer> Deserialize(std::string_view bytes, int dim,
                                                    std::string_view what);

  int code_size() const override { return dim_ + static_cast<int>(sizeof(float)); }
  std::string Serialize() const override;
  arrow::Status Encode(const IvfModel& ivf, const float* vectors, const int32_t* partitions,
                       int64_t count, uint8_t* codes) const override;
  std::unique_ptr<QueryScorer> Prepare(const IvfModel& ivf, const float* query) const override;

  arrow::Status Decode(const IvfModel& ivf, int partition, const uint8_t* codes, int64_t count,
                       float* out) const override;
  // The decoded vector of `code` (dim floats), and the range of dimension d, for tests.
  std::vector<float> Decode(const uint8_t* code) const;
  float low(int d) const { return low_[d]; }
  float step(int d) const { return step_[d]; }

 private:
  int dim_ = 0;
  // x̂ of one code, dim floats to `out`.
  void DecodeCode(const uint8_t* code, float* out) const;
  std::vector<float> low_;
  std::vector<float> step_;
};

}  // namespace tessera::index::vector
