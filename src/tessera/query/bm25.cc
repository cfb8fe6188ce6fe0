#include "tessera/query/bm25.h"

#include <cmath>

namespace tessera::query {

Bm25::Bm25(double k1, double b, double document_count, double average_length)
    : k1_(k1),
      b_(b),
      document_count_(document_count),
      average_length_(average_length > 0 ? average_length : 1.0) {}

double Bm25::Idf(double document_frequency) const {
  return std::log(1.0 + (document_count_ - document_frequency + 0.5) / (document_frequency + 0.5));
}

}  // namespace tessera::query
