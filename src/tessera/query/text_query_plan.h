// TextQueryPlan: a full-text query resolved against one column's sources — analyzed terms with
// their global weights (idf × multiplicity) and their postings in each source — in the shape
// every source evaluates identically (query/text_query_eval.h, query/block_max_wand.h).
//
// Node kinds:
//  - kTerms: a disjunction of terms; a document matches when it holds at least min_match of
//    them (all of them for operator and) and scores the sum of their contributions, in order.
//  - kPhrase: the terms at their relative positions (within `slop`), scored as one term whose
//    tf is the phrase's frequency and whose idf is the sum of its terms' idfs.
//  - kBoolean: must / should / must_not children; a document matches when it matches every
//    must child, no must_not child and, without must children, a should child; it scores the
//    sum of its matching must and should children, in order.
// Invariants: the plan is the same for every source of a search (only `postings` differ per
// source), so sums run over the same numbers in the same order everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/index/text_segment.h"
#include "tessera/query/text_query_parser.h"

namespace tessera::query {

struct PlanTerm {
  std::string term;
  double weight = 0;  // idf × multiplicity
  double idf = 0;
  std::vector<std::optional<index::TermPostings>> postings;  // per source
};

struct PlanNode {
  enum class Kind { kTerms, kPhrase, kBoolean };
  Kind kind = Kind::kTerms;
  Occur occur = Occur::kShould;  // as a child of a kBoolean node
  // kTerms (distinct unless flattened from should clauses) and kPhrase (in phrase order).
  std::vector<PlanTerm> terms;
  size_t min_match = 1;            // kTerms
  std::vector<uint32_t> offsets;   // kPhrase: each term's position relative to the first
  int slop = 0;                    // kPhrase
  double phrase_weight = 0;        // kPhrase: Σ idf
  std::vector<PlanNode> children;  // kBoolean
  // Whether the node can match nothing at all (kTerms without terms, ...).
  bool Empty() const { return kind == Kind::kBoolean ? children.empty() : terms.empty(); }
};

}  // namespace tessera::query

#include <arrow/result.h>

#include "tessera/index/text/analyzer.h"
#include "tessera/query/bm25.h"
#include "tessera/query/text_search.h"
#include "tessera/query/text_statistics.h"

namespace tessera::query {

// The plan of `options` (its type, `type` for multi_match's per-column match) over one column:
// the text analyzed by `analyzer`, terms looked up in `terms`, idf from `bm25`. nullopt when the
// query has no term left (empty, or only stop words): it matches no row. `query_terms` gets the
// analyzed terms (for highlights). Errors: the boolean query language's (text_query_parser.h).
arrow::Result<std::optional<PlanNode>> BuildPlan(const TextSearchOptions& options,
                                                 TextQueryType type,
                                                 index::text::Analyzer& analyzer,
                                                 const TextSources& sources, TermTable& terms,
                                                 const Bm25& bm25,
                                                 std::vector<std::string>* query_terms);

// Whether block-max WAND serves the plan: a disjunction of terms, any one enough.
inline bool IsPureDisjunction(const PlanNode& plan) {
  return plan.kind == PlanNode::Kind::kTerms && plan.min_match <= 1;
}

}  // namespace tessera::query
