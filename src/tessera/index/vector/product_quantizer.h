// PQ8: product quantization with 8-bit codes, the quantizer of IVF_PQ.
//
// The dimension splits into m sub-vectors of dim / m values (m = num_sub_vectors divides dim).
// Each sub-space has a codebook of 256 centroids learnt by k-means on the training sample's
// residuals (the vector minus its partition's IVF centroid): residual encoding spends the
// codes on where a vector lies within its partition, not on which partition it is in. A row's
// code is m bytes, the nearest codebook entry (squared l2) of each residual sub-vector.
//
// Asymmetric distance computation (the query is not quantized), with x̂ = c_p + r̂:
//  - l2: ‖q − c_p − r̂‖² = ‖q − c_p‖² + Σ_j (‖e‖² + 2 c_p,j·e − 2 q_j·e) with e =
//    codebook_j[code_j]. The terms ‖e‖² + 2 c_p,j·e are precomputed per (partition, j, entry)
//    when the model is opened for search (PrepareSearch, up to kMaxPrecomputedSearchBytes), so a
//    query computes −2 q_j·e once and adds the partition's terms per probed partition; beyond
//    that size, a table ‖(q − c_p)_j − e‖² is computed per probed partition;
//  - dot: −q·x̂ = −q·c_p − Σ_j q_j · codebook_j[code_j], one table per query plus a per-partition
//    bias; cosine is 1 + the same on unit vectors.
// The sum over the table is simd::Kernels::pq_adc_batch.
//
// Serialized form (little-endian): uint32 dim, uint32 m, uint32 bits (8),
// float32 codebooks[m][256][dim / m].
#pragma once

#include <arrow/result.h>

#include <string_view>
#include <vector>

#include "tessera/index/vector/quantizer.h"

namespace tessera::index::vector {

inline constexpr int kPqCodebookSize = 256;

struct ProductQuantizerOptions {
  int num_sub_vectors = 16;
  int max_iterations = 25;
  uint64_t seed = 42;
};

class ProductQuantizer final : public Quantizer {
 public:
  // Trains the codebooks on the residuals of `count` sample vectors (partitions[i]: the IVF
  // partition of sample i), or of an evenly spread subset of 65,536 of them (256 per codebook
  // entry) when there are more. InvalidArgument unless num_sub_vectors divides dim.
  static arrow::Result<ProductQuantizer> Train(const IvfModel& ivf, const float* sample,
                                               const int32_t* partitions, int64_t count,
                                               const ProductQuantizerOptions& options);
  static arrow::Result<ProductQuantizer> Deserialize(std::string_view bytes, int dim,
                                                     std::string_view what);

  int code_size() const override { return num_sub_vectors_; }
  std::string Serialize() const override;
  arrow::Status Encode(const IvfModel& ivf, const float* vectors, const int32_t* partitions,
                       int64_t count, uint8_t* codes) const override;
  // x̂ = c_p + the codebook entries the code names.
  arrow::Status Decode(const IvfModel& ivf, int partition, const uint8_t* codes, int64_t count,
                       float* out) const override;
  void PrepareSearch(const IvfModel& ivf) override;
  std::unique_ptr<QueryScorer> Prepare(const IvfModel& ivf, const float* query) const override;

  int num_sub_vectors() const { return num_sub_vectors_; }
  int sub_dim() const { return sub_dim_; }
  // Codebook j: 256 × sub_dim floats.
  const float* codebook(int j) const {
    return codebooks_.data() + static_cast<size_t>(j) * kPqCodebookSize * sub_dim_;
  }

 private:
  int dim_ = 0;
  int num_sub_vectors_ = 0;
  int sub_dim_ = 0;
  std::vector<float> codebooks_;  // m × 256 × sub_dim
  // The codebooks dimension-major, m × sub_dim × 256: the layout of the transposed kernels,
  // which compute a query's table for 16 entries per instruction.
  std::vector<float> columns_;
  // Fills columns_ from codebooks_.
  void TransposeCodebooks();
  // Codebook j's columns: sub_dim rows of 256 floats.
  const float* columns(int j) const {
    return columns_.data() + static_cast<size_t>(j) * kPqCodebookSize * sub_dim_;
  }
  // l2 only, after PrepareSearch: partitions × m × 256 terms ‖e‖² + 2 c_p,j·e; empty otherwise.
  std::vector<float> partition_terms_;

  friend class ProductQueryScorer;
};

}  // namespace tessera::index::vector
