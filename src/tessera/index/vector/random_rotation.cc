#include "tessera/index/vector/random_rotation.h"

#include <cmath>

#include "tessera/index/vector/random.h"

namespace tessera::index::vector {

namespace {

// A standard normal value (Box–Muller), defined here so that every platform draws the same.
double Gaussian(Random& random) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  const double u = 1.0 - random.Uniform();  // (0, 1]: the logarithm stays finite
  const double v = random.Uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(kTwoPi * v);
}

}  // namespace

std::vector<float> RandomOrthonormalColumns(int rows, int cols, uint64_t seed) {
  Random random(seed);
  // Column-major while orthonormalizing: column j at columns[j · rows].
  std::vector<double> columns(static_cast<size_t>(rows) * cols);
  for (int j = 0; j < cols; ++j) {
    double* column = columns.data() + static_cast<size_t>(j) * rows;
    // Modified Gram–Schmidt. A Gaussian column lies in the span of the ones before it with
    // probability zero; one that comes out (numerically) short is drawn again.
    for (;;) {
      for (int i = 0; i < rows; ++i) column[i] = Gaussian(random);
      for (int k = 0; k < j; ++k) {
        const double* previous = columns.data() + static_cast<size_t>(k) * rows;
        double dot = 0;
        for (int i = 0; i < rows; ++i) dot += previous[i] * column[i];
        for (int i = 0; i < rows; ++i) column[i] -= dot * previous[i];
      }
      double norm = 0;
      for (int i = 0; i < rows; ++i) norm += column[i] * column[i];
      norm = std::sqrt(norm);
      if (norm < 1e-6) continue;
      for (int i = 0; i < rows; ++i) column[i] /= norm;
      break;
    }
  }
  std::vector<float> matrix(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      matrix[static_cast<size_t>(i) * cols + j] =
          static_cast<float>(columns[static_cast<size_t>(j) * rows + i]);
    }
  }
  return matrix;
}

}  // namespace tessera::index::vector
