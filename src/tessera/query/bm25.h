// Bm25: the BM25 scoring function of full-text search (query/text_search.h) in double
// precision, and the upper bound of a posting block's scores for block-max WAND.
//
//   score(tf, len) = idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))
//   idf(df)        = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// Invariants: every part of a search computes a term's contribution through TermScore with the
// same global statistics, so a document gets the same bits wherever its postings live; the
// score rises with tf and falls with len, so TermScore(max tf, min len) bounds a block, and
// UpperBound adds a relative margin so that rounding never makes a bound fall below a score.
#pragma once

#include <cstdint>

namespace tessera::query {

class Bm25 {
 public:
  // `document_count` (N) and `average_length` are global statistics; average_length > 0 unless
  // every document is empty (then lengths do not matter).
  Bm25(double k1, double b, double document_count, double average_length);

  double Idf(double document_frequency) const;
  // The contribution of a term of weight `weight` (idf × its multiplicity in the query) found
  // `tf` times in a document of `length` terms.
  // One division: k1·(1 − b + b·len/avglen) is computed as k1(1 − b) + (k1·b/avglen)·len with
  // both factors fixed at construction (a score's hot loop runs this per posting).
  double TermScore(double weight, uint32_t tf, uint32_t length) const {
    const double frequency = static_cast<double>(tf);
    return weight * (frequency * k1_plus_one_) /
           (frequency + (length_free_norm_ + norm_per_length_ * static_cast<double>(length)));
  }
  // A bound on TermScore(weight, tf, len) for every tf <= max_tf and len >= min_length, with a
  // margin covering rounding (WAND compares it with sums computed in another order).
  double UpperBound(double weight, uint32_t max_tf, uint32_t min_length) const {
    return TermScore(weight, max_tf, min_length) * kBoundMargin;
  }

  double document_count() const { return document_count_; }

 private:
  static constexpr double kBoundMargin = 1.0 + 1e-9;
  double document_count_;
  double k1_plus_one_;
  double length_free_norm_;  // k1 · (1 − b)
  double norm_per_length_;   // k1 · b / avglen
};

}  // namespace tessera::query
