// EvaluatePlan: every document of one source matching a TextQueryPlan node, with its score,
// computed by scoring every posting of the node's terms — the exhaustive path of full-text
// search, used for the query shapes block-max WAND and PhraseTopK do not serve (conjunctions,
// minimum should match, boolean queries and the phrases inside them) and as the oracle both
// are compared with.
//
// Invariants: documents ascending; every document's score is summed in the plan's order from 0
// (terms of a node, children of a boolean), as BlockMaxWand sums it; a phrase over a source
// without positions is InvalidArgument naming the index and with_position=true. Deleted or
// rejected documents are not filtered here: the caller admits only accepted ones.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <vector>

#include "tessera/query/block_max_wand.h"
#include "tessera/query/bm25.h"
#include "tessera/query/text_query_plan.h"
#include "tessera/query/text_sources.h"
#include "tessera/query/text_top_k.h"

namespace tessera::query {

struct DocumentScores {
  std::vector<uint32_t> docs;
  std::vector<double> scores;
};

// `source_index`: the position of `source` in each PlanTerm::postings.
arrow::Result<DocumentScores> EvaluatePlan(const PlanNode& node, const TextSource& source,
                                           size_t source_index, const Bm25& bm25,
                                           ScoringCounters* counters);

// The top k of a phrase node in one source, offered to `top` (accepted documents only): the
// documents EvaluatePlan finds with the same scores, less those whose bound is strictly below
// top's threshold when they are reached — the phrase's score at a frequency no occurrence count
// can exceed (the first term's frequency in the document; without slop, the smallest of the
// terms'), or over whole posting blocks at their headers' largest frequencies and smallest
// lengths. Their positions are never read.
arrow::Status PhraseTopK(const PlanNode& node, const TextSource& source, size_t source_index,
                         const Bm25& bm25, TextTopK& top, ScoringCounters* counters);

// The phrase frequency of one document: how many positions of the first term start an
// occurrence — a position p_i of each term, no document position used twice, with
// max(p_i − offsets[i]) − min(p_i − offsets[i]) <= slop (Lucene's sloppy phrase: slop 1 allows
// one word inserted, slop 2 two words swapped). positions[i]: term i's positions in the
// document, ascending; offsets[i]: its place in the phrase.
uint32_t PhraseFrequency(const std::vector<std::vector<uint32_t>>& positions,
                         const std::vector<uint32_t>& offsets, int slop);

}  // namespace tessera::query
