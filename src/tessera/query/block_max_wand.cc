#include "tessera/query/block_max_wand.h"

#include <algorithm>
#include <memory>

namespace tessera::query {

namespace {

using index::PostingCursor;

struct Lane {
  std::unique_ptr<PostingCursor> cursor;
  double weight = 0;
  double bound = 0;  // over every posting
  uint32_t doc = PostingCursor::kEnd;
  // The block bound of the cursor's current block (the block ending at block_last), kept so
  // that it is computed once per block rather than once per pivot.
  uint32_t block_last = 0;
  double block_bound = -1;  // negative: not computed yet
};

// The bound of the block `lane`'s cursor is on (after a ShallowAdvance).
double BlockBound(Lane& lane, const Bm25& bm25) {
  const PostingCursor& cursor = *lane.cursor;
  const uint32_t last = cursor.block_last_doc();
  if (lane.block_bound < 0 || last != lane.block_last) {
    lane.block_last = last;
    lane.block_bound = bm25.UpperBound(lane.weight, cursor.block_max_term_frequency(),
                                       cursor.block_min_document_length());
  }
  return lane.block_bound;
}

void SortByDocument(std::vector<Lane*>& lanes) {
  // Nearly sorted after each step: insertion sort.
  for (size_t i = 1; i < lanes.size(); ++i) {
    Lane* lane = lanes[i];
    size_t j = i;
    while (j > 0 && lanes[j - 1]->doc > lane->doc) {
      lanes[j] = lanes[j - 1];
      --j;
    }
    lanes[j] = lane;
  }
}

// The largest block bound of the term's postings: tighter than weight · (k1 + 1), the bound for
// any tf and length, so fewer pivots pass. Walks the block headers of a second cursor, since the
// search's cursor cannot move its block position back.
arrow::Result<double> ListBound(const index::TextSegmentReader& reader,
                                const index::TermPostings& postings, double weight,
                                const Bm25& bm25, PostingCursor& cursor) {
  std::unique_ptr<PostingCursor> walker;
  PostingCursor* blocks = &cursor;
  if (postings.document_frequency > index::kPostingBlockSize) {
    ARROW_ASSIGN_OR_RAISE(walker, reader.OpenPostings(postings));
    blocks = walker.get();
  }
  double bound = 0;
  ARROW_RETURN_NOT_OK(blocks->ShallowAdvance(0));
  for (;;) {
    const uint32_t last = blocks->block_last_doc();
    if (last == PostingCursor::kEnd) break;
    bound = std::max(bound, bm25.UpperBound(weight, blocks->block_max_term_frequency(),
                                            blocks->block_min_document_length()));
    if (walker == nullptr || last == PostingCursor::kEnd - 1) break;
    ARROW_RETURN_NOT_OK(blocks->ShallowAdvance(last + 1));
  }
  return bound;
}

// One term: block by block, a block whose bound reaches the threshold scored in one loop over
// its decoded documents, any other passed by its header alone (not decoded). The same documents
// are scored as the general loop would score, with the same TermScore.
arrow::Status SingleTermTopK(const TextSource& source, Lane& lane, const Bm25& bm25, TextTopK& top,
                             ScoringCounters* counters) {
  const index::TextSegmentReader& reader = *source.reader;
  PostingCursor& cursor = *lane.cursor;
  uint32_t target = cursor.doc();
  while (target != PostingCursor::kEnd && lane.bound >= top.threshold()) {
    ARROW_RETURN_NOT_OK(cursor.ShallowAdvance(target));
    const uint32_t block_last = cursor.block_last_doc();
    if (block_last == PostingCursor::kEnd) break;
    if (BlockBound(lane, bm25) >= top.threshold()) {
      ARROW_RETURN_NOT_OK(cursor.Advance(target));
      const PostingCursor::BlockRemainder block = cursor.RemainderOfBlock();
      for (uint32_t i = 0; i < block.size; ++i) {
        const uint32_t doc = block.docs[i];
        if (!source.Accepted(doc)) continue;
        if (counters != nullptr) ++counters->scored;
        const double score =
            bm25.TermScore(lane.weight, block.term_frequencies[i], reader.document_length(doc));
        if (score >= top.threshold()) top.Push(score, reader.row_address(doc));
      }
    }
    target = block_last + 1;  // block_last < kEnd: at most kEnd
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Status BlockMaxWand(const TextSource& source, const std::vector<WandTerm>& terms,
                           const Bm25& bm25, TextTopK& top, ScoringCounters* counters) {
  const index::TextSegmentReader& reader = *source.reader;
  std::vector<Lane> lanes(terms.size());
  std::vector<Lane*> sorted;
  for (size_t i = 0; i < terms.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(lanes[i].cursor, reader.OpenPostings(terms[i].postings));
    lanes[i].weight = terms[i].weight;
    ARROW_ASSIGN_OR_RAISE(lanes[i].bound, ListBound(reader, terms[i].postings, terms[i].weight,
                                                    bm25, *lanes[i].cursor));
    lanes[i].doc = lanes[i].cursor->doc();
    if (counters != nullptr) counters->postings += terms[i].postings.document_frequency;
    sorted.push_back(&lanes[i]);
  }
  const size_t count = sorted.size();
  if (count == 1) return SingleTermTopK(source, lanes[0], bm25, top, counters);
  for (;;) {
    SortByDocument(sorted);
    const double threshold = top.threshold();
    double reach = 0;
    size_t pivot = count;
    for (size_t i = 0; i < count && sorted[i]->doc != PostingCursor::kEnd; ++i) {
      reach += sorted[i]->bound;
      if (reach >= threshold) {
        pivot = i;
        break;
      }
    }
    if (pivot == count) break;
    const uint32_t doc = sorted[pivot]->doc;
    size_t last = pivot;
    while (last + 1 < count && sorted[last + 1]->doc == doc) ++last;

    double block_reach = 0;
    uint32_t next = PostingCursor::kEnd;
    for (size_t i = 0; i <= last; ++i) {
      Lane& lane = *sorted[i];
      // The block found for an earlier pivot still holds the first document >= doc while doc
      // is at most its last document (which is one of the list's): no call to the cursor.
      // Sound because the pivot never moves back (every step moves the lanes before it to it
      // or past it).
      if (lane.block_bound < 0 || doc > lane.block_last) {
        ARROW_RETURN_NOT_OK(lane.cursor->ShallowAdvance(doc));
        if (lane.cursor->block_last_doc() == PostingCursor::kEnd) continue;  // none >= doc
        BlockBound(lane, bm25);
      }
      block_reach += lane.block_bound;
      next = std::min(next, lane.block_last + 1);
    }
    if (block_reach < threshold) {
      // No document in [doc, next) can enter: the lists after `last` start at or after their
      // doc, and those up to `last` hold nothing above their block bounds before `next`.
      if (last + 1 < count) next = std::min(next, sorted[last + 1]->doc);
      for (size_t i = 0; i <= last; ++i) {
        ARROW_RETURN_NOT_OK(sorted[i]->cursor->Advance(next));
        sorted[i]->doc = sorted[i]->cursor->doc();
      }
      continue;
    }
    if (sorted[0]->doc == doc) {
      if (source.Accepted(doc)) {
        const uint32_t length = reader.document_length(doc);
        // The lanes on doc are sorted[0..last]; `lanes` is in query order, so summing over it
        // adds the contributions in query order.
        double score = 0;
        for (const Lane& lane : lanes) {
          if (lane.doc != doc) continue;
          score += bm25.TermScore(lane.weight, lane.cursor->term_frequency(), length);
        }
        if (counters != nullptr) counters->scored += last + 1;
        // Below the threshold it cannot enter: skip the row address lookup.
        if (score >= top.threshold()) top.Push(score, reader.row_address(doc));
      }
      for (size_t i = 0; i <= last; ++i) {
        ARROW_RETURN_NOT_OK(sorted[i]->cursor->Next());
        sorted[i]->doc = sorted[i]->cursor->doc();
      }
      continue;
    }
    for (size_t i = 0; i < pivot; ++i) {
      if (sorted[i]->doc >= doc) break;
      ARROW_RETURN_NOT_OK(sorted[i]->cursor->Advance(doc));
      sorted[i]->doc = sorted[i]->cursor->doc();
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::query
