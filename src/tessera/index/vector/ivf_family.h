// The IVF families: inverted-file indexes over a vector column.
//
// A model (IvfModel: k-means centroids) splits vector space into partitions; a segment stores
// each non-null vector of its fragments in the partition of its nearest centroid, and a search
// probes the `nprobes` partitions nearest to the query. The families differ in what a
// partition stores per row:
//  - IVF_FLAT: the raw vector as float32. Every reported distance is vector::Distance on it, so
//    probing all partitions returns exactly the exact scan's answer, ties broken by row address.
//  - IVF_SQ: an 8-bit scalar-quantized code, dim + 4 bytes (scalar_quantizer.h).
//  - IVF_PQ: a product-quantized code of the residual to the partition centroid, one byte per
//    sub-vector (product_quantizer.h).
//  - IVF_RQ: a RaBitQ code of the residual, num_bits bits per rotated dimension plus three
//    floats (rabit_quantizer.h); vectors of at most 4096 dimensions.
// The quantized families report approximate distances (VectorSegmentReader::approximate());
// the planner re-ranks k × refine_factor candidates with exact distances when asked. For
// cosine their vectors and queries are normalized to unit length before quantization.
//
// Parameters (Validate fills in the defaults):
//   metric           l2 | cosine | dot                                default l2
//   num_partitions   partitions to train, in [1, 65536]               default 256
//                    Training uses min(num_partitions, non-null vectors in the training sample)
//                    partitions; the segment's details record the number actually used.
//   sample_rate      training rows sampled per partition, [1, 65536]  default 256
//                    (at most num_partitions × sample_rate rows are read for training)
//   max_iters        k-means iterations, [1, 1000]                    default 50
//   seed             seed of sampling and k-means, [0, 2^63 - 1]      default 42
// IVF_PQ only:
//   num_sub_vectors  sub-vectors per vector; must divide the dimension. Default: dim / 8 when 8
//                    divides dim, else dim / 4, else dim / 2, else dim.
//   num_bits         bits per sub-vector code: 8 (default) or 4 (fast scan: codes stored in
//                    blocks of 32 rows, tables quantized to bytes, product_quantizer.h;
//                    num_sub_vectors must then be even and at most 256). IVF_HNSW_PQ: 8 only.
//   residual         true (default): codes of the vector minus its partition's centroid;
//                    false: codes of the vector itself (one query table for all partitions)
// IVF_HNSW_FLAT / IVF_HNSW_SQ / IVF_HNSW_PQ: IVF_FLAT / IVF_SQ / IVF_PQ (and their parameters)
// with an HNSW graph per partition (ivf_graphs.h), searched instead of scanning the partition:
//   m                links per node, [2, 256] (2m on level 0)            default 16
//   ef_construction  candidates a build keeps per insertion, [m, 10000]  default 100
// A query's `ef` (VectorQuery::ef) sets the candidates a search keeps per probed partition.
// IVF_RQ only:
//   num_bits         bits per rotated dimension, [1, 8]                 default 1
//                    (code: num_bits × ⌈dim / 64⌉ × 8 bytes + 12; the rotation is drawn
//                    from seed)
//
// Segment files (in _indices/<uuid>/): model.bin (IVF_FLAT: the IvfModel, ivf_model.h; the
// quantized families: IvfQuantizedModel, ivf_quantized_model.h) and partitions.arrow
// (ivf_partitions.h; IVF_FLAT stores vectors, the others codes). Details: metric,
// num_partitions, dim, num_vectors (non-null vectors stored), and for the quantized families
// code_size (and IVF_PQ num_sub_vectors and num_bits, IVF_RQ num_bits). SegmentMeta.num_rows counts
// every physical row of the covered fragments, null or deleted ones included. Segments of one model
// merge by concatenating their partitions (4-bit PQ codes row-major, then stored in blocks again).
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "tessera/index/index_family.h"
#include "tessera/index/params.h"
#include "tessera/index/vector/distance.h"
#include "tessera/index/vector/hnsw_graph.h"

namespace tessera::index::vector {

inline constexpr std::string_view kIvfFlatFamily = "IVF_FLAT";
inline constexpr std::string_view kIvfSqFamily = "IVF_SQ";
inline constexpr std::string_view kIvfPqFamily = "IVF_PQ";
inline constexpr std::string_view kIvfRqFamily = "IVF_RQ";
inline constexpr std::string_view kIvfHnswFlatFamily = "IVF_HNSW_FLAT";
inline constexpr std::string_view kIvfHnswSqFamily = "IVF_HNSW_SQ";
inline constexpr std::string_view kIvfHnswPqFamily = "IVF_HNSW_PQ";

struct IvfOptions {
  Metric metric = Metric::kL2;
  int num_partitions = 256;
  int sample_rate = 256;
  int max_iterations = 50;
  uint64_t seed = 42;
  int num_sub_vectors = 0;  // IVF_PQ
  int num_bits = 1;         // IVF_RQ (default 1); IVF_PQ: 8 or 4
  bool residual = true;     // IVF_PQ
  int m = kDefaultHnswM;    // IVF_HNSW_*
  int ef_construction = kDefaultEfConstruction;
};

// The options of `family` (one of the seven names above) for a column of dimension `dim`;
// InvalidArgument for unknown keys and out-of-range values.
arrow::Result<IvfOptions> ParseIvfOptions(std::string_view family, const Params& params, int dim);

std::unique_ptr<IndexFamily> MakeIvfFlatFamily();
std::unique_ptr<IndexFamily> MakeIvfSqFamily();
std::unique_ptr<IndexFamily> MakeIvfPqFamily();
std::unique_ptr<IndexFamily> MakeIvfRqFamily();
std::unique_ptr<IndexFamily> MakeIvfHnswFlatFamily();
std::unique_ptr<IndexFamily> MakeIvfHnswSqFamily();
std::unique_ptr<IndexFamily> MakeIvfHnswPqFamily();

}  // namespace tessera::index::vector
