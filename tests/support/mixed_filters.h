// Random data and random filters for the read-path property tests: batches of a schema with
// every kind of column the planner treats differently, and predicates over it that use every
// operator the filter language has, on indexed and unindexed columns alike.
//   id int64 (first_id, first_id + 1, ...), i64 int64 in [-20, 20], f64 float64 (quarters in
//   [-10, 10], NaN, -0.0 and 0.0), s utf8 (MixedWords()), ts timestamp[us] (2024-01-01 plus
//   0..99 s), flag bool; every column but id about 10% null; tags list<utf8> of MixedTags()
//   (10% null lists, 10% empty, repeated and null elements).
// Deterministic per random engine state.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tessera/dataset/options.h"

namespace tessera::testing {

std::shared_ptr<arrow::Schema> MixedFilterSchema();
// The words of column s; small, so that predicates match several rows.
const std::vector<std::string>& MixedWords();
// The elements of column tags.
const std::vector<std::string>& MixedTags();
// Rows with ids [first_id, first_id + rows).
std::shared_ptr<arrow::RecordBatch> MixedFilterBatch(std::mt19937_64& random, int64_t first_id,
                                                     int64_t rows);
// Small files and batches, so that a few hundred rows make several fragments and batches.
dataset::WriteOptions SmallFiles();

// Random predicate text over MixedFilterSchema(): comparisons with literals on either side,
// BETWEEN, IN with NULLs, their negations, IS [NOT] NULL, boolean columns, LIKE, contains and
// starts_with, a column compared with a column, constants, and AND / OR / NOT of those.
class PredicateGenerator {
 public:
  explicit PredicateGenerator(std::mt19937_64& random) : random_(random) {}

  // A predicate nested up to `depth` levels of AND / OR / NOT.
  std::string Predicate(int depth);
  // A random leaf on one of i64, f64, s, ts (and the unindexed shapes above).
  std::string Leaf();
  // A leaf on `column` (i64, f64, s, ts, id or flag): a comparison, BETWEEN, IN or a null
  // test, negated or not, or one of a few odd cases (literals the binder rewrites, extremes,
  // -0.0 in IN lists, LIKE, another column). On tags: array_has_any / array_has_all /
  // array_contains / a null test, negated or not, and empty arrays or a NULL value.
  std::string LeafOn(const std::string& column);
  // A substring leaf on s: contains, starts_with, LIKE '%w%', LIKE 'w%', ILIKE, NOT LIKE, of
  // a word of s (some too short for any n-gram).
  std::string SubstringLeaf();
  // A literal of `column`'s domain (i64, f64, s, ts or id).
  std::string Literal(const std::string& column);

 private:
  int Pick(int n) { return static_cast<int>(random_() % static_cast<uint64_t>(n)); }
  std::string Join(const char* op, int depth);
  std::string Int();
  std::string Float();
  std::string Word();
  std::string Time();
  std::string Tag();
  std::string TagsLeaf();
  std::string OddLeaf(const std::string& column);
  // Leaf() on `column` with its first literal already drawn.
  std::string LeafWith(const std::string& column, const std::string& literal, int shape);

  std::mt19937_64& random_;
};

}  // namespace tessera::testing
