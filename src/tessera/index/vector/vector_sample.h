// A training sample of an indexed vector column: a uniform sample without replacement of the
// physical rows of a build's fragments, keeping the non-null vectors among them.
//
// Deterministic in (fragments, seed). Reads only the record batches holding sampled rows and
// never holds more than the sample, so training memory is bounded by max_rows × dim floats,
// whatever the size of the column.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <vector>

#include "tessera/index/index_family.h"

namespace tessera::index::vector {

struct VectorSample {
  std::vector<float> vectors;  // rows × dim, float32 (float16 columns converted exactly)
  int64_t rows = 0;
};

// Samples min(max_rows, physical rows) rows; null vectors among them are dropped, so the sample
// may hold fewer. Counts the rows of every batch read in GlobalReadStatistics().rows_scanned.
arrow::Result<VectorSample> SampleVectors(const BuildInput& input, int dim, int64_t max_rows,
                                          uint64_t seed);

// The positions (in [0, total)) of a uniform sample of min(count, total) of them, ascending.
std::vector<uint64_t> SamplePositions(uint64_t total, uint64_t count, uint64_t seed);

}  // namespace tessera::index::vector
