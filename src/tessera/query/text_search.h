// Full-text search over string columns: BM25 top-k through INVERTED index segments, with the
// same answer for unindexed data (docs/design.md, "Full-text search").
//
// Scoring. BM25 with k1 and b (defaults 1.2 and 0.75, settable per query):
//   score(d) = Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len(d)/avglen)),
//   idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)),
// where N, avglen and df are global statistics over every live document of the version: all
// segments of the column's INVERTED index, deleted rows excluded, and the fragments no segment
// covers (the unindexed tail, analyzed on the fly with the index's analyzer). So scores are
// identical for one segment, N segments or partly unindexed data, before and after merge,
// optimize and compaction. A query term occurring twice counts twice. Scores are computed in
// double and returned as float32 `_score`; rows are ordered by (score descending, row address
// ascending).
//
// Top-k uses block-max WAND for disjunctions and bounds for a phrase (index/text_segment.h
// block bounds under the global IDF) so the exact top-k is found without scoring every
// posting; `exhaustive` scores every posting instead (the oracle the tests compare them with).
// All give identical results.
//
// Query types (`text` is analyzed by the column's analyzer unless said otherwise):
//  - match: documents holding any term (operator or; minimum_should_match of the query's
//    distinct terms), or all of them (operator and).
//  - phrase: the terms at consecutive positions, or within `slop` moves (needs with_position);
//    scored as BM25 with the phrase's frequency in the document as tf and the sum of its terms'
//    IDFs.
//  - boolean: `text` in a small query language: clauses separated by spaces, each a word, a
//    "quoted phrase" (optional ~N slop), word* (prefix), word~N (fuzzy) or a parenthesized
//    boolean query, prefixed by + (must), - (must_not) or nothing (should). A document matches
//    when it holds every must clause, none of the must_not ones and, when there is no must
//    clause, at least one should clause; its score is the sum of its matching must and should
//    clauses' scores.
//  - multi_match: a match query over each of `columns` (each with an INVERTED index or
//    scanned); a document's score is its best column's score times that column's boost.
//  - prefix: documents holding a term starting with the (normalized, unstemmed) word; the
//    expansion is capped at max_expansions terms (the most frequent ones), each scored as a
//    match term.
//  - fuzzy: terms within Damerau-Levenshtein distance `fuzziness` (1 or 2) of the normalized
//    word, capped at max_expansions terms (closest, then most frequent), scored as a match.
//
// Filters: with prefilter the rows passing `filter` are computed first (through scalar indexes
// where they answer) and only they compete, so k rows return whenever k matching rows pass;
// without it (postfilter) the top k of the unfiltered order are found, then those failing the
// filter dropped, so fewer than k may return.
//
// Bad input: an empty query, or one whose every term the analyzer drops (only stop words),
// returns no rows (as SQL engines' MATCH does). An unterminated quote or parenthesis, an unknown
// query type or column, a column that is not a string (or list of strings), a phrase query over
// an index built without positions, k < 1, k1 < 0 or b outside [0, 1] are InvalidArgument naming
// what to fix.
#pragma once

#include <arrow/result.h>
#include <arrow/table.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/query/explain.h"
#include "tessera/query/nearest.h"
#include "tessera/query/snapshot.h"

namespace tessera::query {

inline constexpr const char* kScoreColumn = "_score";
inline constexpr const char* kHighlightColumn = "_highlight";

enum class TextQueryType { kMatch, kPhrase, kBoolean, kMultiMatch, kPrefix, kFuzzy };

// "match", "phrase", ...; InvalidArgument listing the accepted names.
arrow::Result<TextQueryType> ParseTextQueryType(std::string_view name);
std::string_view TextQueryTypeName(TextQueryType type);

// A searched column and its weight (multi_match: "title^2").
struct BoostedColumn {
  std::string name;
  double boost = 1.0;
};

struct TextSearchOptions {
  // One column; several for multi_match.
  std::vector<BoostedColumn> columns;
  std::string text;
  TextQueryType type = TextQueryType::kMatch;
  bool operator_and = false;     // match, multi_match
  int minimum_should_match = 1;  // match with operator or: distinct query terms a hit holds
  int slop = 0;                  // phrase
  int fuzziness = 1;             // fuzzy: 1 or 2
  int max_expansions = 50;       // prefix, fuzzy
  double k1 = 1.2;
  double b = 0.75;
  int64_t k = 10;
  std::string filter;  // SQL-like predicate (docs/filters.md); empty means none
  bool prefilter = false;
  // Score every posting instead of block-max WAND or a phrase's bounds (same result; for
  // tests and explain).
  bool exhaustive = false;
  // Adds `_highlight`: the best-matching passage of the first searched column's value, at most
  // highlight_length bytes, the matched terms wrapped in the tags.
  bool highlight = false;
  int highlight_length = 160;
  std::string highlight_open = "<b>";
  std::string highlight_close = "</b>";
  // Columns to return, in this order; empty means all columns of the schema.
  std::vector<std::string> projection;
  bool with_row_address = false;
};

// The result: projected columns, `_score` (float32), `_highlight` (utf8, when asked), `_rowaddr`
// (uint64, when asked); ordered by (score descending, row address ascending).
arrow::Result<std::shared_ptr<arrow::Table>> TextSearch(const dataset::Dataset& dataset,
                                                        const TextSearchOptions& options,
                                                        Explain* explain = nullptr);
// The same on a snapshot of the dataset's version: what it loads (segments, deletion vectors,
// fragment readers for the projected rows) serves every query on it. A process answering many
// queries keeps one snapshot per version (query/snapshot.h); the answer is that of the call
// above on snapshot->dataset().
arrow::Result<std::shared_ptr<arrow::Table>> TextSearch(
    const std::shared_ptr<const Snapshot>& snapshot, const TextSearchOptions& options,
    Explain* explain = nullptr);

// Hybrid search: a nearest-neighbour query and a text query over one dataset, fused.
enum class Fusion {
  // Reciprocal rank fusion: Σ 1 / (rrf_k + rank), rank from 1 in each list.
  kReciprocalRank,
  // text_weight · s_text + (1 − text_weight) · s_vector, each list's scores min-max normalized
  // to [0, 1] (distances inverted so closer is higher); a row missing from a list scores 0 there.
  kWeighted,
};

inline constexpr double kDefaultRrfK = 60;

struct HybridSearchOptions {
  NearestOptions vector;   // its k, filter, prefilter and projection are ignored
  TextSearchOptions text;  // its k, filter, prefilter and projection are ignored
  Fusion fusion = Fusion::kReciprocalRank;
  double rrf_k = kDefaultRrfK;
  double text_weight = 0.5;
  // Each list contributes its top (k · candidate_factor) rows before fusion.
  int candidate_factor = 4;
  int64_t k = 10;
  std::string filter;
  bool prefilter = false;
  std::vector<std::string> projection;
  bool with_row_address = false;
};

// Projected columns, `_score` (float32, the fused score), `_rowaddr` when asked; ordered by
// (fused score descending, row address ascending).
arrow::Result<std::shared_ptr<arrow::Table>> HybridSearch(const dataset::Dataset& dataset,
                                                          const HybridSearchOptions& options,
                                                          Explain* explain = nullptr);

}  // namespace tessera::query
