#include "tessera/query/bm25.h"

#include <cmath>

namespace tessera::query {

Bm25::Bm25(double k1, double b, double document_count, double average_length)
    : document_count_(document_count),
      k1_plus_one_(k1 + 1.0),
      length_free_norm_(k1 * (1.0 - b)),
      // Every document empty (average 0): lengths do not matter.
      norm_per_length_(average_length > 0 ? k1 * b / average_length : 0.0) {}

double Bm25::Idf(double document_frequency) const {
  return std::log(1.0 + (document_count_ - document_frequency + 0.5) / (document_frequency + 0.5));
}

}  // namespace tessera::query
