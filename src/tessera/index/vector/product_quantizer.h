// PQ: product quantization with 8-bit or 4-bit codes, the quantizer of IVF_PQ.
//
// The dimension splits into m sub-vectors of dim / m values (m = num_sub_vectors divides dim).
// Each sub-space has a codebook of 2^bits centroids (256 or 16) learnt by k-means on the training
// sample's residuals (the vector minus its partition's IVF centroid): residual encoding spends the
// codes on where a vector lies within its partition, not on which partition it is in. Or, with
// residual = false, on the vectors themselves: one table per query serves every partition, and
// on real text embeddings the codes come out better (recall@10 0.680 against 0.647 with 64
// 4-bit sub-vectors on wordnet-256, docs/benchmarks.md), while on tightly clustered data they
// are worse. A row's code names the nearest codebook entry (squared l2) of each sub-vector: m
// bytes with 8 bits, m / 2 bytes with 4 (sub-vector 2p in the low nibble of byte p, 2p + 1 in
// the high one; m must be even).
//
// Asymmetric distance computation (the query is not quantized), with residual codes x̂ = c_p + r̂
// (codes of the vectors: x̂ = r̂, one table ‖q_j − e‖² or −q_j · e per query, and no bias):
//  - l2: ‖q − c_p − r̂‖² = ‖q − c_p‖² + Σ_j (‖e‖² + 2 c_p,j·e − 2 q_j·e) with e =
//    codebook_j[code_j]. The terms ‖e‖² + 2 c_p,j·e are precomputed per (partition, j, entry)
//    when the model is opened for search (PrepareSearch, up to kMaxPrecomputedSearchBytes), so a
//    query computes −2 q_j·e once and adds the partition's terms per probed partition; beyond
//    that size, a table ‖(q − c_p)_j − e‖² is computed per probed partition;
//  - dot: −q·x̂ = −q·c_p − Σ_j q_j · codebook_j[code_j], one table per query plus a per-partition
//    bias; cosine is 1 + the same on unit vectors.
// With 8 bits the sum over the table is simd::Kernels::pq_adc_batch.
//
// 4 bits: fast scan. A table of 16 entries fits a 128-bit register, so a byte shuffle looks up
// one sub-quantizer for 16 or 32 rows at once (simd::Kernels::pq4_fast_scan). For that the
// table is quantized to bytes per query (and per partition, residual l2): entry c of sub-quantizer
// j becomes round((T_j[c] − min_j) · s), s = 255 / the widest range max_j − min_j of any j, and a
// row's distance is Σ_j min_j + (Σ_j byte_j) / s, within m / (2 s) of the float table's sum. Codes
// are stored in blocks of 32 rows (row_block()): a block is the transpose of its rows' m / 2 code
// bytes, byte p of the 32 rows next to each other (the kernel's pair-major layout); a
// partition's last n mod 32 rows form a shorter block laid out alike (byte p of row i at
// p × (n mod 32) + i), which the scorer widens to 32 rows (the rows past n are not reported).
// Exact re-ranking is the
// planner's refine_factor on the raw vectors.
//
// Serialized form (little-endian): uint32 dim, uint32 m, uint32 bits (8 or 4; plus 2^16 for
// codes of the vectors themselves), float32 codebooks[m][2^bits][dim / m].
#pragma once

#include <arrow/result.h>

#include <string_view>
#include <vector>

#include "tessera/index/vector/quantizer.h"

namespace tessera::index::vector {

// Rows per stored block of 4-bit codes (the width of a 256-bit byte shuffle).
inline constexpr int kPq4BlockRows = 32;
// The most sub-vectors a 4-bit code may have: the fast scan's sums of m bytes stay below 2^16.
inline constexpr int kPq4MaxSubVectors = 2 * simd::kPq4MaxPairs;

// Whether m sub-vectors can take 4-bit codes: an even number (two codes share a byte) of at most
// kPq4MaxSubVectors.
inline bool FourBitSubVectorsValid(int m) { return m > 0 && m % 2 == 0 && m <= kPq4MaxSubVectors; }

struct ProductQuantizerOptions {
  int num_sub_vectors = 16;
  int num_bits = 8;      // 8 or 4
  bool residual = true;  // codes of residuals (true) or of the vectors themselves
  int max_iterations = 25;
  uint64_t seed = 42;
};

class ProductQuantizer final : public Quantizer {
 public:
  // Trains the codebooks on the residuals of `count` sample vectors (partitions[i]: the IVF
  // partition of sample i), or of an evenly spread subset of 256 per codebook entry (65,536
  // with 8 bits, 4,096 with 4) when there are more. InvalidArgument unless num_sub_vectors divides
  // dim, num_bits is 8 or 4, and (4 bits) num_sub_vectors is even and at most kPq4MaxSubVectors.
  static arrow::Result<ProductQuantizer> Train(const IvfModel& ivf, const float* sample,
                                               const int32_t* partitions, int64_t count,
                                               const ProductQuantizerOptions& options);
  static arrow::Result<ProductQuantizer> Deserialize(std::string_view bytes, int dim,
                                                     std::string_view what);

  int code_size() const override { return bits_ == 8 ? num_sub_vectors_ : num_sub_vectors_ / 2; }
  int row_block() const override { return bits_ == 8 ? 1 : kPq4BlockRows; }
  void StoreCodes(const uint8_t* rows, int64_t count, uint8_t* stored) const override;
  void LoadCodes(const uint8_t* stored, int64_t count, uint8_t* rows) const override;
  std::string Serialize() const override;
  arrow::Status Encode(const IvfModel& ivf, const float* vectors, const int32_t* partitions,
                       int64_t count, uint8_t* codes) const override;
  // x̂ = c_p (residual codes only) + the codebook entries the code names.
  arrow::Status Decode(const IvfModel& ivf, int partition, const uint8_t* codes, int64_t count,
                       float* out) const override;
  void PrepareSearch(const IvfModel& ivf) override;
  std::unique_ptr<QueryScorer> Prepare(const IvfModel& ivf, const float* query) const override;
  // 4 bits: up to simd::kPq4MaxQueries queries' whole blocks in one scan
  // (simd::Kernels::pq4_fast_scan_queries).
  void ScoreQueries(QueryScorer* const* scorers, int num, int partition, const uint8_t* codes,
                    int64_t count, float* const* out) const override;

  int num_sub_vectors() const { return num_sub_vectors_; }
  int sub_dim() const { return sub_dim_; }
  int bits() const { return bits_; }
  bool residual() const { return residual_; }
  // Entries per codebook: 2^bits.
  int codebook_size() const { return 1 << bits_; }
  // Codebook j: codebook_size() × sub_dim floats.
  const float* codebook(int j) const {
    return codebooks_.data() + static_cast<size_t>(j) * codebook_size() * sub_dim_;
  }

 private:
  int dim_ = 0;
  int num_sub_vectors_ = 0;
  int sub_dim_ = 0;
  int bits_ = 8;
  bool residual_ = true;
  std::vector<float> codebooks_;  // m × 2^bits × sub_dim
  // The codebooks dimension-major, m × sub_dim × 2^bits: the layout of the transposed kernels,
  // which compute a query's table for 16 entries per instruction.
  std::vector<float> columns_;
  // Fills columns_ from codebooks_.
  void TransposeCodebooks();
  // Codebook j's columns: sub_dim rows of 2^bits floats.
  const float* columns(int j) const {
    return columns_.data() + static_cast<size_t>(j) * codebook_size() * sub_dim_;
  }
  // l2 only, after PrepareSearch: partitions × m × 2^bits terms ‖e‖² + 2 c_p,j·e; empty otherwise.
  std::vector<float> partition_terms_;

  friend class ProductQueryScorer;
};

}  // namespace tessera::index::vector
