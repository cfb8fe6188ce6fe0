// IVF_FLAT: an inverted-file index over a vector column that stores the raw vectors.
//
// A model (IvfModel: k-means centroids) splits vector space into partitions; a segment stores
// each non-null vector of its fragments, as float32, in the partition of its nearest centroid.
// A search probes the `nprobes` partitions nearest to the query and computes every reported
// distance with vector::Distance on the raw vector, so probing all partitions returns exactly
// the exact scan's answer, ties broken by row address.
//
// Parameters (Validate fills in the defaults):
//   metric          l2 | cosine | dot                                default l2
//   num_partitions  partitions to train, in [1, 65536]               default 256
//                   Training uses min(num_partitions, non-null vectors in the training sample)
//                   partitions; the segment's details record the number actually used.
//   sample_rate     training rows sampled per partition, [1, 65536]  default 256
//                   (at most num_partitions × sample_rate rows are read for training)
//   max_iters       k-means iterations, [1, 1000]                    default 50
//   seed            seed of sampling and k-means, [0, 2^63 - 1]      default 42
//
// Segment files (in _indices/<uuid>/): model.bin (the IvfModel, see ivf_model.h) and
// partitions.arrow (see ivf_partitions.h). Details: metric, num_partitions, dim, num_vectors
// (non-null vectors stored). SegmentMeta.num_rows counts every physical row of the covered
// fragments, null or deleted ones included.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "tessera/index/index_family.h"
#include "tessera/index/params.h"
#include "tessera/index/vector/distance.h"

namespace tessera::index::vector {

inline constexpr std::string_view kIvfFlatFamily = "IVF_FLAT";

struct IvfFlatOptions {
  Metric metric = Metric::kL2;
  int num_partitions = 256;
  int sample_rate = 256;
  int max_iterations = 50;
  uint64_t seed = 42;
};

// InvalidArgument for unknown keys and out-of-range values.
arrow::Result<IvfFlatOptions> ParseIvfFlatOptions(const Params& params);

std::unique_ptr<IndexFamily> MakeIvfFlatFamily();

}  // namespace tessera::index::vector
