// The reference BM25 of the full-text oracle tests: the straightforward implementation of
// query/text_search.h, written to be obviously correct rather than fast. Every live document of
// a dataset version is analyzed with index::text::Analyzer (the index's options) into an
// in-memory map term → document → positions; N, the average length and document frequencies
// are counted over those live documents; and each query scores every document the header's
// definitions match, then sorts by (score descending, row address ascending).
//
// It shares nothing with the engine's query code but the analyzer (the tests must compare
// scoring, not tokenization), so a disagreement is a bug in one of the two.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/params.h"
#include "tessera/index/text/analyzer.h"
#include "tessera/query/text_search.h"

namespace tessera::testing {

struct ReferenceHit {
  uint64_t row_address = 0;
  double score = 0;
};

class ReferenceBm25 {
 public:
  // Analyzes `columns` of every live row of `dataset` with the analyzer `params` describe (the
  // INVERTED index's parameters; other keys are ignored).
  static arrow::Result<std::unique_ptr<ReferenceBm25>> Make(const dataset::Dataset& dataset,
                                                            const std::vector<std::string>& columns,
                                                            const index::Params& params);

  // Every matching document, ordered by (score descending, row address ascending); options.k,
  // filter and highlight are ignored (the caller truncates). InvalidArgument for a column it
  // did not analyze, an unterminated quote or parenthesis.
  arrow::Result<std::vector<ReferenceHit>> Search(const query::TextSearchOptions& options) const;

  size_t document_count() const { return row_addresses_.size(); }
  uint64_t row_address(uint32_t document) const { return row_addresses_[document]; }
  // The distinct terms of `column` held by live documents, with their document frequencies.
  std::map<std::string, uint32_t> Dictionary(const std::string& column) const;

  // Damerau-Levenshtein distance, optimal string alignment variant (adjacent transpositions,
  // no substring edited twice), over bytes.
  static int EditDistance(const std::string& a, const std::string& b);

  struct Column {
    std::vector<uint32_t> lengths;  // per document
    uint64_t total_length = 0;
    // term → document → positions (ascending)
    std::map<std::string, std::map<uint32_t, std::vector<uint32_t>>> postings;
  };
  using Scores = std::map<uint32_t, double>;  // document → score, the matching documents only

 private:
  ReferenceBm25() = default;
  struct Context;
  struct BooleanNode;

  double TermScore(const Column& column, const std::string& term, double frequency,
                   uint32_t document, double k1, double b) const;
  double Idf(const Column& column, const std::string& term) const;
  Scores Match(const Column& column, const std::vector<std::string>& terms, bool operator_and,
               int minimum_should_match, double k1, double b) const;
  Scores Phrase(const Column& column, const std::vector<std::pair<std::string, uint32_t>>& terms,
                int slop, double k1, double b) const;
  std::vector<std::string> PrefixTerms(const Column& column, const std::string& prefix,
                                       int max_expansions) const;
  std::vector<std::string> FuzzyTerms(const Column& column, const std::string& word, int fuzziness,
                                      int max_expansions) const;
  arrow::Result<Scores> Boolean(const Column& column, const std::string& text, double k1, double b,
                                int max_expansions) const;
  std::optional<Scores> Evaluate(const Column& column, const BooleanNode& node, double k1, double b,
                                 int max_expansions) const;

  std::vector<std::string> AnalyzeTerms(const std::string& text) const;
  std::vector<std::pair<std::string, uint32_t>> AnalyzeTokens(const std::string& text) const;
  std::string Normalize(const std::string& word) const;

  index::text::AnalyzerOptions analyzer_options_;
  std::unique_ptr<index::text::Analyzer> analyzer_;
  std::vector<uint64_t> row_addresses_;  // per document, ascending
  std::map<std::string, Column> columns_;
};

}  // namespace tessera::testing
