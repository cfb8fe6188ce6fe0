// BlockMaxWand: the top-k documents of one source (a segment or the unindexed tail) for a pure
// disjunction of terms (a document's score is the sum of the BM25 contributions of the query
// terms it holds), without scoring every posting: block-max WAND (Ding & Suel, 2011).
//
// Per step the cursors are sorted by document; the pivot is the first cursor at which the sum
// of the terms' upper bounds reaches the top-k threshold (no document before the pivot's can
// enter); then the cursors up to the pivot are moved (shallowly) to the pivot's block and the
// sum of their block bounds, bm25(block max tf, block min length), is checked: when it falls
// short, every document up to the end of the nearest block boundary is skipped. Only documents
// passing both bounds are scored, and only accepted ones (deletions, prefilter) are offered.
//
// Invariants: a document's score is summed over its terms in query order, from 0, exactly as the
// exhaustive path (text_query_eval.h) sums it, so both paths give the same bits; a document is
// skipped only when its bound is strictly below the threshold, since a tie may still enter by row
// address. Bounds carry a rounding margin (bm25.h).
#pragma once

#include <arrow/status.h>

#include <cstdint>
#include <vector>

#include "tessera/index/text_segment.h"
#include "tessera/query/bm25.h"
#include "tessera/query/text_sources.h"
#include "tessera/query/text_top_k.h"

namespace tessera::query {

// One term of the disjunction in one source.
struct WandTerm {
  index::TermPostings postings;
  double weight = 0;  // idf × the term's multiplicity in the query
};

// How much work a search did (explain).
struct ScoringCounters {
  uint64_t postings = 0;  // postings of the query's terms in the searched sources
  uint64_t scored = 0;    // postings whose contribution was computed
};

// `terms` in query order (those absent from the source left out).
arrow::Status BlockMaxWand(const TextSource& source, const std::vector<WandTerm>& terms,
                           const Bm25& bm25, TextTopK& top, ScoringCounters* counters);

}  // namespace tessera::query
