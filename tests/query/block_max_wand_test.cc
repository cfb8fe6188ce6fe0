// Block-max WAND finds exactly the top k of the exhaustive path (every posting scored) — the
// same rows with the same score bits — over random postings split into several sources sharing
// one top-k heap, with random k, BM25 parameters, query terms (repeats included) and rejected
// documents. The sources are in-memory segments (query/memory_text_segment.h), whose cursors
// report blocks as segments on disk do.
#include "tessera/query/block_max_wand.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/status_assertions.h"
#include "tessera/query/bm25.h"
#include "tessera/query/memory_text_segment.h"
#include "tessera/query/text_query_eval.h"
#include "tessera/query/text_query_plan.h"

namespace tessera::query::block_max_wand_test {
namespace {

struct RandomSources {
  std::vector<std::unique_ptr<MemoryTextSegment>> segments;
  std::vector<TextSource> sources;
};

// Term i is drawn with weight 1 / (i + 1): a few frequent terms, many rare ones.
RandomSources MakeSources(std::mt19937& random, int vocabulary) {
  RandomSources made;
  std::vector<double> weights;
  for (int i = 0; i < vocabulary; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> term(weights.begin(), weights.end());
  const int segments = std::uniform_int_distribution<int>(1, 4)(random);
  for (int s = 0; s < segments; ++s) {
    auto segment = std::make_unique<MemoryTextSegment>();
    const int documents = std::uniform_int_distribution<int>(0, 900)(random);
    const int length_limit = std::uniform_int_distribution<int>(1, 30)(random);
    uint32_t offset = 0;
    for (int d = 0; d < documents; ++d) {
      offset += std::uniform_int_distribution<uint32_t>(1, 3)(random);
      const int length = std::uniform_int_distribution<int>(0, length_limit)(random);
      std::vector<MemoryTextSegment::Term> terms;
      for (int t = 0; t < length; ++t) {
        terms.push_back({"t" + std::to_string(term(random)), static_cast<uint32_t>(t)});
      }
      EXPECT_OK(segment->AddDocument((static_cast<uint64_t>(s) << 32) | offset,
                                     static_cast<uint32_t>(length), std::move(terms)));
    }
    TextSource source;
    source.index_name = "random";
    source.segment_uuid = "segment" + std::to_string(s);
    source.reader = segment.get();
    if (std::bernoulli_distribution(0.5)(random)) {
      std::bernoulli_distribution rejected(0.3);
      for (int d = 0; d < documents; ++d) source.accepted.push_back(rejected(random) ? 0 : 1);
    }
    made.sources.push_back(std::move(source));
    made.segments.push_back(std::move(segment));
  }
  return made;
}

TEST(BlockMaxWand, FindsTheExhaustiveTopKBitForBit) {
  std::mt19937 random(20261201);
  int compared = 0;
  for (int round = 0; round < 60; ++round) {
    const int vocabulary = std::uniform_int_distribution<int>(2, 60)(random);
    RandomSources made = MakeSources(random, vocabulary);
    const double k1 = std::uniform_real_distribution<double>(0.0, 3.0)(random);
    const double b = std::uniform_real_distribution<double>(0.0, 1.0)(random);
    uint64_t documents = 0, length = 0;
    for (const auto& segment : made.segments) {
      documents += segment->document_count();
      length += segment->total_length();
    }
    const Bm25 bm25(k1, b, static_cast<double>(documents),
                    documents == 0 ? 0.0 : static_cast<double>(length) / documents);
    PlanNode plan;
    const int query_terms = std::uniform_int_distribution<int>(1, 6)(random);
    for (int q = 0; q < query_terms; ++q) {
      PlanTerm term;
      term.term = "t" + std::to_string(std::uniform_int_distribution<int>(0, vocabulary)(random));
      uint64_t df = 0;
      for (const auto& segment : made.segments) {
        ASSERT_OK_AND_ASSIGN(auto postings, segment->FindTerm(term.term));
        if (postings) df += postings->document_frequency;
        term.postings.push_back(postings);
      }
      term.idf = bm25.Idf(static_cast<double>(df));
      // A repeated term weighs twice, as the planner makes it.
      term.weight = term.idf * std::uniform_int_distribution<int>(1, 2)(random);
      plan.terms.push_back(std::move(term));
    }
    const size_t k = std::uniform_int_distribution<size_t>(1, 40)(random);

    TextTopK wand(k), exhaustive(k);
    ScoringCounters counters;
    for (size_t s = 0; s < made.sources.size(); ++s) {
      std::vector<WandTerm> lanes;
      for (const PlanTerm& term : plan.terms) {
        if (term.postings[s]) lanes.push_back({*term.postings[s], term.weight});
      }
      ASSERT_OK(BlockMaxWand(made.sources[s], lanes, bm25, wand, &counters));
      ASSERT_OK_AND_ASSIGN(auto all, EvaluatePlan(plan, made.sources[s], s, bm25, nullptr));
      for (size_t i = 0; i < all.docs.size(); ++i) {
        if (!made.sources[s].Accepted(all.docs[i])) continue;
        exhaustive.Push(all.scores[i], made.sources[s].reader->row_address(all.docs[i]));
      }
    }
    EXPECT_LE(counters.scored, counters.postings);
    const auto found = std::move(wand).Take();
    const auto expected = std::move(exhaustive).Take();
    ASSERT_EQ(found.size(), expected.size()) << "round " << round;
    for (size_t i = 0; i < found.size(); ++i) {
      EXPECT_EQ(found[i].row_address, expected[i].row_address) << "round " << round << " #" << i;
      EXPECT_EQ(found[i].score, expected[i].score) << "round " << round << " #" << i;
    }
    compared += static_cast<int>(found.size());
  }
  EXPECT_GT(compared, 500);
}

// With a large k the heap's threshold stays low; with k = 1 on many documents most postings are
// skipped — the point of block-max WAND.
TEST(BlockMaxWand, SkipsPostingsWhenKIsSmall) {
  MemoryTextSegment segment;
  for (uint32_t d = 0; d < 20000; ++d) {
    std::vector<MemoryTextSegment::Term> terms{{"common", 0}};
    if (d % 997 == 0) terms.push_back({"rare", 1});
    ASSERT_OK(segment.AddDocument(d, static_cast<uint32_t>(terms.size()), terms));
  }
  TextSource source;
  source.reader = &segment;
  const Bm25 bm25(1.2, 0.75, 20000, 1.0);
  ASSERT_OK_AND_ASSIGN(auto common, segment.FindTerm("common"));
  ASSERT_OK_AND_ASSIGN(auto rare, segment.FindTerm("rare"));
  TextTopK top(1);
  ScoringCounters counters;
  ASSERT_OK(BlockMaxWand(source,
                         {{*common, bm25.Idf(20000)}, {*rare, bm25.Idf(rare->document_frequency)}},
                         bm25, top, &counters));
  EXPECT_LT(counters.scored, counters.postings / 4);
  const auto best = std::move(top).Take();
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].row_address, 0u);  // the first of the documents holding both terms
}

}  // namespace
}  // namespace tessera::query::block_max_wand_test
