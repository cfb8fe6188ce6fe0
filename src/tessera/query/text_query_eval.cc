#include "tessera/query/text_query_eval.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "tessera/status.h"

namespace tessera::query {

namespace {

using index::PostingCursor;

// Every term required (operator and): a leapfrog over the cursors, rarest first, so only the
// documents the rarest list reaches are visited; scores summed in plan order, as EvaluateTerms
// sums them.
arrow::Result<DocumentScores> EvaluateConjunction(const PlanNode& node, const TextSource& source,
                                                  size_t source_index, const Bm25& bm25,
                                                  ScoringCounters* counters) {
  DocumentScores result;
  const index::TextSegmentReader& reader = *source.reader;
  std::vector<std::unique_ptr<PostingCursor>> cursors;
  std::vector<size_t> by_rarity;
  for (const PlanTerm& term : node.terms) {
    const auto& postings = term.postings[source_index];
    if (!postings) return result;
    if (counters != nullptr) counters->postings += postings->document_frequency;
    ARROW_ASSIGN_OR_RAISE(auto cursor, reader.OpenPostings(*postings));
    by_rarity.push_back(cursors.size());
    cursors.push_back(std::move(cursor));
  }
  std::stable_sort(by_rarity.begin(), by_rarity.end(), [&](size_t left, size_t right) {
    return node.terms[left].postings[source_index]->document_frequency <
           node.terms[right].postings[source_index]->document_frequency;
  });
  PostingCursor& lead = *cursors[by_rarity[0]];
  uint32_t doc = lead.doc();
  while (doc != PostingCursor::kEnd) {
    bool aligned = true;
    for (size_t i = 1; i < by_rarity.size(); ++i) {
      PostingCursor& cursor = *cursors[by_rarity[i]];
      ARROW_RETURN_NOT_OK(cursor.Advance(doc));
      if (cursor.doc() != doc) {
        ARROW_RETURN_NOT_OK(lead.Advance(cursor.doc()));
        doc = lead.doc();
        aligned = false;
        break;
      }
    }
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

arrow::Result<DocumentScores> EvaluatePhrase(const PlanNode& node, const TextSource& source,
                                             size_t source_index, const Bm25& bm25,
                                             ScoringCounters* counters) {
  DocumentScores result;
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
    if (!postings) return result;
    ARROW_ASSIGN_OR_RAISE(auto cursor, reader.OpenPostings(*postings));
    if (counters != nullptr) counters->postings += postings->document_frequency;
    cursors.push_back(std::move(cursor));
  }
  std::vector<std::vector<uint32_t>> positions(cursors.size());
  uint32_t doc = cursors[0]->doc();
  while (doc != PostingCursor::kEnd) {
    bool aligned = true;
    for (auto& cursor : cursors) {
      ARROW_RETURN_NOT_OK(cursor->Advance(doc));
      if (cursor->doc() != doc) {
        doc = cursor->doc();
        aligned = false;
        break;
      }
    }
    if (!aligned) continue;
    for (size_t i = 0; i < cursors.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(positions[i], cursors[i]->Positions());
    }
    if (counters != nullptr) counters->scored += cursors.size();
    const uint32_t frequency = PhraseFrequency(positions, node.offsets, node.slop);
    if (frequency > 0) {
      result.docs.push_back(doc);
      result.scores.push_back(
          bm25.TermScore(node.phrase_weight, frequency, reader.document_length(doc)));
    }
    ARROW_RETURN_NOT_OK(cursors[0]->Next());
    doc = cursors[0]->doc();
  }
  return result;
}

// Whether `doc` is in `docs` (ascending), advancing `position` (monotonically, as the documents
// asked about ascend) to the first entry not below it.
bool Contains(const std::vector<uint32_t>& docs, size_t& position, uint32_t doc) {
  while (position < docs.size() && docs[position] < doc) ++position;
  return position < docs.size() && docs[position] == doc;
}

// Sorted merges of the children's document lists (each ascending): the candidates are the
// intersection of the must lists (else the union of the should ones) less the must_not ones,
// and a candidate's score sums its must and should children's scores in child order.
arrow::Result<DocumentScores> EvaluateBoolean(const PlanNode& node, const TextSource& source,
                                              size_t source_index, const Bm25& bm25,
                                              ScoringCounters* counters) {
  DocumentScores result;
  uint32_t must_children = 0;
  bool should_children = false;
  for (const PlanNode& child : node.children) {
    if (child.occur == Occur::kMust) ++must_children;
    if (child.occur == Occur::kShould) should_children = true;
  }
  if (must_children == 0 && !should_children) return result;
  std::vector<DocumentScores> matched(node.children.size());
  for (size_t c = 0; c < node.children.size(); ++c) {
    const PlanNode& child = node.children[c];
    ARROW_ASSIGN_OR_RAISE(matched[c], EvaluatePlan(child, source, source_index, bm25, counters));
    if (child.occur == Occur::kMust && matched[c].docs.empty()) return result;
  }
  std::vector<uint32_t> candidates;
  if (must_children > 0) {
    size_t rarest = node.children.size();
    for (size_t c = 0; c < node.children.size(); ++c) {
      if (node.children[c].occur != Occur::kMust) continue;
      if (rarest == node.children.size() || matched[c].docs.size() < matched[rarest].docs.size()) {
        rarest = c;
      }
    }
    std::vector<size_t> positions(node.children.size(), 0);
    for (uint32_t doc : matched[rarest].docs) {
      bool all = true;
      for (size_t c = 0; c < node.children.size() && all; ++c) {
        if (c == rarest || node.children[c].occur != Occur::kMust) continue;
        all = Contains(matched[c].docs, positions[c], doc);
      }
      if (all) candidates.push_back(doc);
    }
  } else {
    for (size_t c = 0; c < node.children.size(); ++c) {
      if (node.children[c].occur != Occur::kShould) continue;
      candidates.insert(candidates.end(), matched[c].docs.begin(), matched[c].docs.end());
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  std::vector<size_t> positions(node.children.size(), 0);
  for (uint32_t doc : candidates) {
    bool excluded = false;
    double score = 0.0;
    for (size_t c = 0; c < node.children.size(); ++c) {
      const bool found = Contains(matched[c].docs, positions[c], doc);
      if (!found) continue;
      if (node.children[c].occur == Occur::kMustNot) {
        excluded = true;
        break;
      }
      score += matched[c].scores[positions[c]];
    }
    if (excluded) continue;
    result.docs.push_back(doc);
    result.scores.push_back(score);
  }
  return result;
}

}  // namespace

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
