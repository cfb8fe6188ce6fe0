// IvfModel: the coarse quantizer of an IVF index — a metric, a dimension and the centroids of
// its partitions — and its serialization (the bytes of index::Model and of a segment's
// model.bin).
//
// Invariants: num_partitions >= 1, centroids hold num_partitions × dim floats; for cosine the
// centroids are unit vectors (or zero). A row is stored in, and a query first probes, the
// partition whose centroid is nearest under AssignmentScore (kmeans.h): l2 by squared
// distance, cosine and dot by largest inner product; ties go to the lowest partition.
//
// Serialized form (little-endian):
//   8 bytes   magic "TSIVFMDL"
//   uint32    format version (1)
//   uint32    metric: 0 l2, 1 cosine, 2 dot
//   uint32    dim
//   uint32    num_partitions
//   float32   centroids[num_partitions × dim], row-major
//   uint32    CRC-32C of all the bytes before it
// The fingerprint is the 64-bit FNV-1a hash of these bytes in 16 hex digits: equal models
// have equal fingerprints, and segments with equal fingerprints merge by concatenation.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"

namespace tessera::index::vector {

class IvfModel {
 public:
  // InvalidArgument when the centroids do not fit (num_partitions × dim, at least one).
  static arrow::Result<IvfModel> Make(Metric metric, int dim, std::vector<float> centroids);
  // Corrupt when `bytes` are not a model of this format (the message names `what`).
  static arrow::Result<IvfModel> Deserialize(std::string_view bytes, std::string_view what);
  // Whether `bytes` start with the IVF model's magic (a cheap test of what a file holds; only
  // Deserialize checks the rest).
  static bool HasMagic(std::string_view bytes);

  std::string Serialize() const;
  static std::string FingerprintOf(std::string_view bytes);

  Metric metric() const { return metric_; }
  int dim() const { return dim_; }
  int num_partitions() const { return num_partitions_; }
  const std::vector<float>& centroids() const { return centroids_; }

  // The residuals of `count` row-major vectors to the centroids of their partitions
  // (partitions[i] for vector i): count × dim floats, what IVF_PQ and IVF_RQ codes encode.
  std::vector<float> Residuals(const float* vectors, const int32_t* partitions,
                               int64_t count) const;

  // The partition `vector` is stored in.
  int Assign(const float* vector) const;
  // The min(count, num_partitions) partitions nearest to `query`, nearest first (ties: lowest
  // partition first).
  std::vector<int> Probe(const float* query, int count) const;

  // Batch forms (index/vector/centroid_assignment.h), equal row by row to the above:
  // partitions[i] = Assign(vectors + i × dim) for the n row-major vectors (InvalidArgument when
  // n < 0), and result[i] = Probe(queries + i × dim, count) for n queries (none when n <= 0).
  // At most `max_threads` threads (0: util::NumThreads()).
  arrow::Status AssignBatch(const float* vectors, int64_t n, int32_t* partitions,
                            int max_threads = 0) const;
  // ProbeBatch fails as its parallel loop can (ResourceExhausted when out of memory) and when
  // OpenBLAS, which it multiplies with, cannot be loaded.
  arrow::Result<std::vector<std::vector<int>>> ProbeBatch(const float* queries, int64_t n,
                                                          int count, int max_threads = 0) const;

 private:
  Metric metric_ = Metric::kL2;
  int dim_ = 0;
  int num_partitions_ = 0;
  std::vector<float> centroids_;
};

}  // namespace tessera::index::vector
