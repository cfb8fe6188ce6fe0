// Random rotations: the first step of RaBitQ (rabit_quantizer.h).
//
// A rotation drawn uniformly at random spreads a vector's length evenly over its coordinates
// whatever the data looks like, which is what lets one bit per coordinate keep an unbiased,
// bounded estimate of inner products. It is drawn as a Gaussian matrix made orthonormal by
// Gram–Schmidt (in double precision), from a seed alone, so a build is reproducible. It is drawn
// once, at training, and stored with the model: readers never redraw it.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::index::vector {

// A rows × cols matrix (row-major, rows ≥ cols ≥ 1) whose columns are orthonormal: the first
// `cols` columns of a uniformly random rows × rows rotation. It maps a vector of `cols`
// coordinates (zero-padded to `rows`) to its rotation, keeping lengths and inner products.
std::vector<float> RandomOrthonormalColumns(int rows, int cols, uint64_t seed);

}  // namespace tessera::index::vector
