// Quantizer: how a quantized IVF family (IVF_SQ, IVF_PQ, IVF_RQ) turns a vector into a short code
// and scores codes against a query without decoding them.
//
// A quantizer is trained once per model, on the training sample, after the IVF centroids (it
// may encode a vector relative to its partition's centroid: residual encoding). It is immutable
// once trained, so one quantizer serves every thread.
//
// Approximate distances follow tessera's metrics on the decoded vector x̂ (docs/design.md, "Query
// semantics"): l2 is ‖q − x̂‖², dot is −q·x̂, cosine is 1 − q·x̂ (the family normalizes vectors and
// queries to unit length for cosine before they reach the quantizer). Smaller is closer.
#pragma once

#include <arrow/status.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "tessera/index/vector/distance.h"
#include "tessera/index/vector/ivf_model.h"
#include "tessera/index/vector/simd/kernels.h"
#include "tessera/status.h"

namespace tessera::index::vector {

// The most memory what PrepareSearch precomputes for one segment may take: 64 MiB (IVF_PQ's
// per-partition l2 terms, num_partitions × num_sub_vectors × 256 floats, hold 1024 partitions
// at 64 sub-vectors; IVF_RQ's rotated centroids, num_partitions × D floats).
inline constexpr size_t kMaxPrecomputedSearchBytes = size_t{64} << 20;

// Scores the codes of one query, partition by partition. Holds per-query state (tables);
// use one per query and thread.
class QueryScorer {
 public:
  virtual ~QueryScorer() = default;
  // out[i]: the approximate distance of the `count` codes of partition `partition`, code i at
  // codes + i × code_size. For a quantizer whose row_block() exceeds 1, `codes` are stored codes
  // (Quantizer::StoreCodes) of rows [first, first + count) of the partition, `first` a multiple
  // of row_block(), and the range ends at a multiple of row_block() or at the partition's end.
  virtual void Score(int partition, const uint8_t* codes, int64_t count, float* out) = 0;
};

// The part of a dot or cosine distance (−q·x, 1 − q·x) that partition p's centroid contributes
// to a row x = c_p + r: −q·c_p, plus 1 for cosine. The code scores the rest, −q·r.
inline float CentroidDistanceTerm(const IvfModel& ivf, const float* query, int partition) {
  const float* centroid = ivf.centroids().data() + static_cast<size_t>(partition) * ivf.dim();
  float term = -simd::ActiveKernels().inner_product(query, centroid, ivf.dim());
  if (ivf.metric() == Metric::kCosine) term += 1.0f;
  return term;
}

class Quantizer {
 public:
  virtual ~Quantizer() = default;

  // Bytes of one row's code.
  virtual int code_size() const = 0;

  // How a partition's codes are stored. Encode writes codes row-major (code i at i ×
  // code_size()); StoreCodes rearranges one partition's row-major codes into the layout its
  // scorer reads, LoadCodes undoes it (merges concatenate partitions row-major). A stored
  // partition of n rows is n × code_size() bytes in blocks of row_block() rows (the last one
  // n mod row_block() rows when that is not 0): the block of rows [r, r + b) takes bytes
  // [r × code_size(), (r + b) × code_size()), laid out as the quantizer chooses. A quantizer
  // whose row_block() is 1 stores codes as Encode writes them.
  virtual int row_block() const { return 1; }
  virtual void StoreCodes(const uint8_t* rows, int64_t count, uint8_t* stored) const;
  virtual void LoadCodes(const uint8_t* stored, int64_t count, uint8_t* rows) const;
  // The quantizer's parameters, to be stored in the model (see ivf_quantized_model.h).
  virtual std::string Serialize() const = 0;
  // The oldest quantized-model format version whose readers understand Serialize()'s bytes: 1,
  // or 2 for a form readers of version 1 cannot read (they refuse the model, naming its
  // version, instead of misreading it).
  virtual uint32_t format_version() const { return 1; }

  // Encodes `count` vectors (row-major, dim floats each), vector i stored in partition
  // partitions[i] of `ivf`, into count × code_size() bytes.
  virtual arrow::Status Encode(const IvfModel& ivf, const float* vectors, const int32_t* partitions,
                               int64_t count, uint8_t* codes) const = 0;

  // The vectors x̂ that `count` row-major codes of partition `partition` stand for (dim floats
  // each; unit length space for cosine), for building graphs over codes (ivf_graphs.h). Unsupported
  // by quantizers that no graph family uses.
  virtual arrow::Status Decode(const IvfModel& ivf, int partition, const uint8_t* codes,
                               int64_t count, float* out) const;

  // Precomputes, once per model, what every query's scorer of `ivf` shares. Called before the
  // quantizer is shared between threads; optional (scorers work without it, more slowly).
  virtual void PrepareSearch(const IvfModel& ivf) {}

  // The scorer of `query` (dim floats, unit length for cosine).
  virtual std::unique_ptr<QueryScorer> Prepare(const IvfModel& ivf, const float* query) const = 0;

  // Scores the same `count` codes of partition `partition` for `num` queries: out[i] for
  // scorers[i] (made by this quantizer's Prepare), as scorers[i]->Score would write it. A
  // quantizer whose scan can share code loads between queries overrides it.
  virtual void ScoreQueries(QueryScorer* const* scorers, int num, int partition,
                            const uint8_t* codes, int64_t count, float* const* out) const {
    for (int i = 0; i < num; ++i) scorers[i]->Score(partition, codes, count, out[i]);
  }
};

inline void Quantizer::StoreCodes(const uint8_t* rows, int64_t count, uint8_t* stored) const {
  std::memcpy(stored, rows, static_cast<size_t>(count) * static_cast<size_t>(code_size()));
}

inline void Quantizer::LoadCodes(const uint8_t* stored, int64_t count, uint8_t* rows) const {
  std::memcpy(rows, stored, static_cast<size_t>(count) * static_cast<size_t>(code_size()));
}

inline arrow::Status Quantizer::Decode(const IvfModel&, int, const uint8_t*, int64_t,
                                       float*) const {
  return Unsupported("this quantizer's codes cannot be decoded to vectors");
}

}  // namespace tessera::index::vector
