#include "tessera/query/text_query_eval.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>

#include "tessera/status.h"

namespace tessera::query {

namespace {

using index::PostingCursor;

// The node's terms (all present in the source) rarest first: the order a leapfrog moves them.
std::vector<size_t> ByRarity(const PlanNode& node, size_t source_index) {
  std::vector<size_t> order(node.terms.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t left, size_t right) {
    return node.terms[left].postings[source_index]->document_frequency <
           node.terms[right].postings[source_index]->document_frequency;
  });
  return order;
}

// One step of a leapfrog led by cursors[order[0]]: moves the others, in `order`, to `*doc`, the
// lead's document. When one holds no such document, the lead jumps to that cursor's next one,
// `*doc` follows it, and the answer is false (the caller tries again from there).
arrow::Result<bool> AlignOn(const std::vector<std::unique_ptr<PostingCursor>>& cursors,
                            const std::vector<size_t>& order, uint32_t* doc) {
  PostingCursor& lead = *cursors[order[0]];
  for (size_t i = 1; i < order.size(); ++i) {
    PostingCursor& cursor = *cursors[order[i]];
    ARROW_RETURN_NOT_OK(cursor.Advance(*doc));
    if (cursor.doc() != *doc) {
      ARROW_RETURN_NOT_OK(lead.Advance(cursor.doc()));
      *doc = lead.doc();
      return false;
    }
  }
  return true;
}

// Every term required (operator and): a leapfrog over the cursors, rarest first, so only the
// documents the rarest list reaches are visited; scores summed in plan order, as EvaluateTerms
// sums them.
arrow::Result<DocumentScores> EvaluateConjunction(const PlanNode& node, const TextSource& source,
                                                  size_t source_index, const Bm25& bm25,
                                                  ScoringCounters* counters) {
  DocumentScores result;
  const index::TextSegmentReader& reader = *source.reader;
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  for (const PlanTerm& term : node.terms) {
    const auto& postings = term.postings[source_index];
    if (!postings) return result;
    if (counters != nullptr) counters->postings += postings->document_frequency;
    ARROW_ASSIGN_OR_RAISE(auto cursor, reader.OpenPostings(*postings));
    cursors.push_back(std::move(cursor));
  }
  const std::vector<size_t> by_rarity = ByRarity(node, source_index);
  PostingCursor& lead = *cursors[by_rarity[0]];
  uint32_t doc = lead.doc();
  while (doc != PostingCursor::kEnd) {
    ARROW_ASSIGN_OR_RAISE(const bool aligned, AlignOn(cursors, by_rarity, &doc));
    if (!aligned) continue;
    const uint32_t length = reader.document_length(doc);
    double score = 0;
    for (size_t t = 0; t < cursors.size(); ++t) {
      score += bm25.TermScore(node.terms[t].weight, cursors[t]->term_frequency(), length);
    }
    if (counters != nullptr) counters->scored += cursors.size();
    result.docs.push_back(doc);
    result.scores.push_back(score);
    ARROW_RETURN_NOT_OK(lead.Next());
    doc = lead.doc();
  }
  return result;
}

arrow::Result<DocumentScores> EvaluateTerms(const PlanNode& node, const TextSource& source,
                                            size_t source_index, const Bm25& bm25,
                                            ScoringCounters* counters) {
  DocumentScores result;
  const index::TextSegmentReader& reader = *source.reader;
  if (node.min_match > node.terms.size() || node.terms.empty()) return result;
  if (node.min_match == node.terms.size() && node.terms.size() > 1) {
    return EvaluateConjunction(node, source, source_index, bm25, counters);
  }
  // A merge of the terms' cursors in document order: per document, the cursors on it add their
  // scores in plan order (as a per-document accumulator would), with no per-document array.
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  std::vector<const PlanTerm*> cursor_terms;
  for (const PlanTerm& term : node.terms) {
    const auto& postings = term.postings[source_index];
    if (!postings) continue;
    ARROW_ASSIGN_OR_RAISE(auto cursor, reader.OpenPostings(*postings));
    cursors.push_back(std::move(cursor));
    cursor_terms.push_back(&term);
    if (counters != nullptr) {
      counters->postings += postings->document_frequency;
      counters->scored += postings->document_frequency;
    }
  }
  while (true) {
    uint32_t doc = PostingCursor::kEnd;
    for (const auto& cursor : cursors) doc = std::min(doc, cursor->doc());
    if (doc == PostingCursor::kEnd) break;
    const uint32_t length = reader.document_length(doc);
    double score = 0.0;
    uint32_t matches = 0;
    for (size_t i = 0; i < cursors.size(); ++i) {
      PostingCursor& cursor = *cursors[i];
      if (cursor.doc() != doc) continue;
      score += bm25.TermScore(cursor_terms[i]->weight, cursor.term_frequency(), length);
      ++matches;
      ARROW_RETURN_NOT_OK(cursor.Next());
    }
    if (matches >= node.min_match) {
      result.docs.push_back(doc);
      result.scores.push_back(score);
    }
  }
  return result;
}

// Whether term `i`'s frequency in a document bounds the phrase's there. The phrase frequency
// counts positions of the first term (PhraseFrequency), so that term's always does; without
// slop every other term's does too (each occurrence needs its own position of each term at a
// fixed offset), while a sloppy occurrence may share another term's position with the next.
bool BoundsPhraseFrequency(const PlanNode& node, size_t i) { return i == 0 || node.slop == 0; }

// From `target` on, the first document whose blocks could hold a phrase occurrence scoring at
// least `threshold`: the phrase's frequency in a document is at most the smallest of its
// bounding terms' (BoundsPhraseFrequency) block maxima of frequency, and that document is no
// shorter than the largest of the blocks' smallest lengths. Whole runs of blocks below the
// threshold are passed by their headers alone (nothing decoded). kEnd once a term has no block
// left; otherwise every cursor's block position is at the block holding the answer, and
// `*blocks_end` is the last document all those blocks cover.
arrow::Result<uint32_t> FirstPromisingDocument(
    const PlanNode& node, const std::vector<std::unique_ptr<PostingCursor>>& cursors,
    uint32_t target, double threshold, const Bm25& bm25, uint32_t* blocks_end) {
  while (target != PostingCursor::kEnd) {
    uint32_t max_frequency = UINT32_MAX;
    uint32_t min_length = 0;
    *blocks_end = PostingCursor::kEnd;
    for (size_t i = 0; i < cursors.size(); ++i) {
      PostingCursor& cursor = *cursors[i];
      ARROW_RETURN_NOT_OK(cursor.ShallowAdvance(target));
      if (cursor.block_last_doc() == PostingCursor::kEnd) return PostingCursor::kEnd;
      if (BoundsPhraseFrequency(node, i)) {
        max_frequency = std::min(max_frequency, cursor.block_max_term_frequency());
      }
      min_length = std::max(min_length, cursor.block_min_document_length());
      *blocks_end = std::min(*blocks_end, cursor.block_last_doc());
    }
    if (bm25.UpperBound(node.phrase_weight, max_frequency, min_length) >= threshold) {
      return target;
    }
    target = *blocks_end + 1;
  }
  return target;
}

// A bound on the phrase's frequency in the lead's document, before the other cursors are moved
// to it: the lead's frequency there and the other bounding terms' block maxima (their block
// positions at the blocks holding the document, as FirstPromisingDocument leaves them).
uint32_t LeadFrequencyBound(const PlanNode& node,
                            const std::vector<std::unique_ptr<PostingCursor>>& cursors,
                            size_t lead) {
  uint32_t bound = UINT32_MAX;
  for (size_t i = 0; i < cursors.size(); ++i) {
    if (!BoundsPhraseFrequency(node, i)) continue;
    bound = std::min(
        bound, i == lead ? cursors[i]->term_frequency() : cursors[i]->block_max_term_frequency());
  }
  return bound;
}

// The documents holding the phrase, by a leapfrog led by the rarest term (only the documents its
// list reaches are visited), each scored as one term of the phrase's frequency. Without `top`,
// every match goes to `result`. With it, only accepted documents are offered to `top`, and a
// document (or a run of blocks) whose bound is strictly below top's threshold is passed before
// its positions are read: the same top k, the positions of far fewer documents decoded.
arrow::Status MatchPhrase(const PlanNode& node, const TextSource& source, size_t source_index,
                          const Bm25& bm25, TextTopK* top, ScoringCounters* counters,
                          DocumentScores* result) {
  const index::TextSegmentReader& reader = *source.reader;
  if (!reader.has_positions()) {
    return InvalidArgument("a phrase query needs positions, but segment ", source.segment_uuid,
                           " of index '", source.index_name,
                           "' was built without them; rebuild the index with the parameter "
                           "with_position=true");
  }
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  for (const PlanTerm& term : node.terms) {
    const auto& postings = term.postings[source_index];
    if (!postings) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto cursor, reader.OpenPostings(*postings));
    if (counters != nullptr) counters->postings += postings->document_frequency;
    cursors.push_back(std::move(cursor));
  }
  const std::vector<size_t> by_rarity = ByRarity(node, source_index);
  const size_t rarest = by_rarity[0];
  PostingCursor& lead = *cursors[rarest];
  std::vector<std::vector<uint32_t>> positions(cursors.size());
  // With `top` full: the block check passed for documents up to here (the cursors' block
  // positions are at the blocks holding them).
  uint32_t blocks_end = 0;
  bool blocks_checked = false;
  uint32_t doc = lead.doc();
  while (doc != PostingCursor::kEnd) {
    const double threshold =
        top == nullptr ? -std::numeric_limits<double>::infinity() : top->threshold();
    const bool bounded = threshold > -std::numeric_limits<double>::infinity();
    if (bounded) {
      if (!blocks_checked || doc > blocks_end) {
        ARROW_ASSIGN_OR_RAISE(
            const uint32_t promising,
            FirstPromisingDocument(node, cursors, doc, threshold, bm25, &blocks_end));
        if (promising == PostingCursor::kEnd) break;
        blocks_checked = true;
        if (promising != doc) {
          ARROW_RETURN_NOT_OK(lead.Advance(promising));
          doc = lead.doc();
          continue;
        }
      }
    }
    // Whether the document may enter, decided as cheaply as possible: before the other terms'
    // blocks are decoded, by the lead's frequency and the others' block maxima (which bound
    // the phrase's frequency) at the document's own length; then by the terms' frequencies.
    const bool may_enter =
        top == nullptr ||
        (source.Accepted(doc) &&
         (!bounded || bm25.UpperBound(node.phrase_weight, LeadFrequencyBound(node, cursors, rarest),
                                      reader.document_length(doc)) >= threshold));
    if (may_enter) {
      ARROW_ASSIGN_OR_RAISE(const bool aligned, AlignOn(cursors, by_rarity, &doc));
      if (!aligned) continue;
      uint32_t max_frequency = UINT32_MAX;
      for (size_t i = 0; i < cursors.size(); ++i) {
        if (BoundsPhraseFrequency(node, i)) {
          max_frequency = std::min(max_frequency, cursors[i]->term_frequency());
        }
      }
      const uint32_t length = reader.document_length(doc);
      if (!bounded || bm25.UpperBound(node.phrase_weight, max_frequency, length) >= threshold) {
        for (size_t i = 0; i < cursors.size(); ++i) {
          ARROW_RETURN_NOT_OK(cursors[i]->PositionsInto(&positions[i]));
        }
        if (counters != nullptr) counters->scored += cursors.size();
        const uint32_t frequency = PhraseFrequency(positions, node.offsets, node.slop);
        if (frequency > 0) {
          const double score = bm25.TermScore(node.phrase_weight, frequency, length);
          if (top != nullptr) {
            top->Push(score, reader.row_address(doc));
          } else {
            result->docs.push_back(doc);
            result->scores.push_back(score);
          }
        }
      }
    }
    ARROW_RETURN_NOT_OK(lead.Next());
    doc = lead.doc();
  }
  return arrow::Status::OK();
}

arrow::Result<DocumentScores> EvaluatePhrase(const PlanNode& node, const TextSource& source,
                                             size_t source_index, const Bm25& bm25,
                                             ScoringCounters* counters) {
  DocumentScores result;
  ARROW_RETURN_NOT_OK(MatchPhrase(node, source, source_index, bm25, nullptr, counters, &result));
  return result;
}

// A child of a boolean node as a cursor over the documents it matches, ascending, with their
// scores. A one-term child reads its postings as the boolean merge asks (so a must_not or
// should term decodes only around the candidates); any other child is evaluated whole first.
class ChildCursor {
 public:
  static arrow::Result<ChildCursor> Open(const PlanNode& child, const TextSource& source,
                                         size_t source_index, const Bm25& bm25,
                                         ScoringCounters* counters) {
    ChildCursor cursor;
    cursor.bm25_ = &bm25;
    if (child.kind == PlanNode::Kind::kTerms && child.terms.size() == 1 && child.min_match <= 1) {
      const auto& postings = child.terms[0].postings[source_index];
      cursor.term_ = true;
      if (!postings) return cursor;  // no document of the source holds the term
      if (counters != nullptr) counters->postings += postings->document_frequency;
      ARROW_ASSIGN_OR_RAISE(cursor.postings_, source.reader->OpenPostings(*postings));
      cursor.weight_ = child.terms[0].weight;
      cursor.estimate_ = postings->document_frequency;
      return cursor;
    }
    ARROW_ASSIGN_OR_RAISE(cursor.matched_,
                          EvaluatePlan(child, source, source_index, bm25, counters));
    cursor.estimate_ = cursor.matched_.docs.size();
    return cursor;
  }

  uint32_t doc() const {
    if (term_) return postings_ == nullptr ? PostingCursor::kEnd : postings_->doc();
    return at_ < matched_.docs.size() ? matched_.docs[at_] : PostingCursor::kEnd;
  }
  // The documents it may match (to lead a conjunction with the rarest child).
  uint64_t estimate() const { return estimate_; }
  // Whether score() computes a BM25 contribution (explain's scored postings) or reads one.
  bool reads_postings() const { return term_; }

  arrow::Status Advance(uint32_t target) {
    if (term_) return postings_ == nullptr ? arrow::Status::OK() : postings_->Advance(target);
    while (at_ < matched_.docs.size() && matched_.docs[at_] < target) ++at_;
    return arrow::Status::OK();
  }
  arrow::Status Next() {
    if (term_) return postings_ == nullptr ? arrow::Status::OK() : postings_->Next();
    ++at_;
    return arrow::Status::OK();
  }
  // The score of doc() in a document of `length` terms.
  double score(uint32_t length) const {
    if (term_) return bm25_->TermScore(weight_, postings_->term_frequency(), length);
    return matched_.scores[at_];
  }

 private:
  bool term_ = false;
  std::unique_ptr<PostingCursor> postings_;
  double weight_ = 0;
  const Bm25* bm25_ = nullptr;
  DocumentScores matched_;
  size_t at_ = 0;
  uint64_t estimate_ = 0;
};

// A merge of the children's cursors: the candidates are the documents every must child matches
// (a leapfrog led by the rarest), else those some should child matches, less those a must_not
// child matches; a candidate's score sums its must and should children's scores in child order.
arrow::Result<DocumentScores> EvaluateBoolean(const PlanNode& node, const TextSource& source,
                                              size_t source_index, const Bm25& bm25,
                                              ScoringCounters* counters) {
  DocumentScores result;
  std::vector<ChildCursor> children;
  std::vector<size_t> must, must_not, should;
  for (size_t c = 0; c < node.children.size(); ++c) {
    const PlanNode& child = node.children[c];
    ARROW_ASSIGN_OR_RAISE(auto cursor,
                          ChildCursor::Open(child, source, source_index, bm25, counters));
    if (child.occur == Occur::kMust) {
      if (cursor.doc() == PostingCursor::kEnd) return result;
      must.push_back(c);
    } else if (child.occur == Occur::kMustNot) {
      must_not.push_back(c);
    } else {
      should.push_back(c);
    }
    children.push_back(std::move(cursor));
  }
  if (must.empty() && should.empty()) return result;
  const index::TextSegmentReader& reader = *source.reader;

  // Adds `doc` unless a must_not child matches it; the must (and should) children are on it
  // when they match it.
  auto offer = [&](uint32_t doc) -> arrow::Status {
    for (size_t c : must_not) {
      ARROW_RETURN_NOT_OK(children[c].Advance(doc));
      if (children[c].doc() == doc) return arrow::Status::OK();
    }
    const uint32_t length = reader.document_length(doc);
    double score = 0.0;
    for (size_t c = 0; c < children.size(); ++c) {
      if (node.children[c].occur == Occur::kMustNot || children[c].doc() != doc) continue;
      score += children[c].score(length);
      if (counters != nullptr && children[c].reads_postings()) ++counters->scored;
    }
    result.docs.push_back(doc);
    result.scores.push_back(score);
    return arrow::Status::OK();
  };

  if (!must.empty()) {
    std::stable_sort(must.begin(), must.end(), [&](size_t left, size_t right) {
      return children[left].estimate() < children[right].estimate();
    });
    ChildCursor& lead = children[must[0]];
    uint32_t doc = lead.doc();
    while (doc != PostingCursor::kEnd) {
      bool aligned = true;
      for (size_t i = 1; i < must.size(); ++i) {
        ChildCursor& other = children[must[i]];
        ARROW_RETURN_NOT_OK(other.Advance(doc));
        if (other.doc() != doc) {
          ARROW_RETURN_NOT_OK(lead.Advance(other.doc()));
          doc = lead.doc();
          aligned = false;
          break;
        }
      }
      if (!aligned) continue;
      for (size_t c : should) ARROW_RETURN_NOT_OK(children[c].Advance(doc));
      ARROW_RETURN_NOT_OK(offer(doc));
      ARROW_RETURN_NOT_OK(lead.Next());
      doc = lead.doc();
    }
    return result;
  }
  for (;;) {
    uint32_t doc = PostingCursor::kEnd;
    for (size_t c : should) doc = std::min(doc, children[c].doc());
    if (doc == PostingCursor::kEnd) break;
    ARROW_RETURN_NOT_OK(offer(doc));
    for (size_t c : should) {
      if (children[c].doc() == doc) ARROW_RETURN_NOT_OK(children[c].Next());
    }
  }
  return result;
}

}  // namespace

arrow::Status PhraseTopK(const PlanNode& node, const TextSource& source, size_t source_index,
                         const Bm25& bm25, TextTopK& top, ScoringCounters* counters) {
  return MatchPhrase(node, source, source_index, bm25, &top, counters, nullptr);
}

uint32_t PhraseFrequency(const std::vector<std::vector<uint32_t>>& positions,
                         const std::vector<uint32_t>& offsets, int slop) {
  uint32_t frequency = 0;
  std::vector<uint32_t> used;
  std::vector<int64_t> windows;
  // Whether every other term has a position p, unused by the terms before it, with
  // p − offset in [window, window + slop]; the smallest such p is taken, which finds an
  // assignment whenever one exists for windows of equal length in phrase order.
  auto fits = [&](uint32_t first, int64_t window) {
    used.assign(1, first);
    for (size_t i = 1; i < positions.size(); ++i) {
      const int64_t low = window + offsets[i];
      const int64_t high = low + slop;
      if (high < 0) return false;
      auto it = std::lower_bound(positions[i].begin(), positions[i].end(),
                                 static_cast<uint32_t>(std::max<int64_t>(low, 0)));
      while (it != positions[i].end() && static_cast<int64_t>(*it) <= high &&
             std::find(used.begin(), used.end(), *it) != used.end()) {
        ++it;
      }
      if (it == positions[i].end() || static_cast<int64_t>(*it) > high) return false;
      used.push_back(*it);
    }
    return true;
  };
  for (uint32_t first : positions[0]) {
    const int64_t base = static_cast<int64_t>(first) - offsets[0];
    // The window's low end is the smallest of the chosen offsets p − offset: the first term's,
    // or another term's within slop below it.
    windows.assign(1, base);
    for (size_t i = 1; i < positions.size() && slop > 0; ++i) {
      const int64_t low = base - slop + offsets[i];
      auto it = std::lower_bound(positions[i].begin(), positions[i].end(),
                                 static_cast<uint32_t>(std::max<int64_t>(low, 0)));
      for (; it != positions[i].end() && static_cast<int64_t>(*it) - offsets[i] < base; ++it) {
        windows.push_back(static_cast<int64_t>(*it) - offsets[i]);
      }
    }
    for (int64_t window : windows) {
      if (fits(first, window)) {
        ++frequency;
        break;
      }
    }
  }
  return frequency;
}

arrow::Result<DocumentScores> EvaluatePlan(const PlanNode& node, const TextSource& source,
                                           size_t source_index, const Bm25& bm25,
                                           ScoringCounters* counters) {
  switch (node.kind) {
    case PlanNode::Kind::kTerms:
      return EvaluateTerms(node, source, source_index, bm25, counters);
    case PlanNode::Kind::kPhrase:
      return EvaluatePhrase(node, source, source_index, bm25, counters);
    case PlanNode::Kind::kBoolean:
      return EvaluateBoolean(node, source, source_index, bm25, counters);
  }
  return DocumentScores{};
}

}  // namespace tessera::query
