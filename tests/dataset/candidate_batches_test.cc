// Candidates by batch (dataset/candidate_batches.h): which batches hold candidates, and when
// candidates fill the batches they touch densely enough to evaluate those batches instead.
#include "tessera/dataset/candidate_batches.h"

#include <gtest/gtest.h>

namespace tessera::dataset::candidate_batches_test {
namespace {

TEST(CandidateBatches, ABatchHoldsTheCandidatesWithinItsRows) {
  Roaring candidates;
  candidates.add(0);
  candidates.add(511);
  candidates.add(1024);
  EXPECT_TRUE(BatchHasCandidates(candidates, 0, 256));
  EXPECT_TRUE(BatchHasCandidates(candidates, 256, 256));  // 511 is its last row
  EXPECT_FALSE(BatchHasCandidates(candidates, 512, 256));
  EXPECT_FALSE(BatchHasCandidates(candidates, 768, 256));  // 1024 is the next batch's first
  EXPECT_TRUE(BatchHasCandidates(candidates, 1024, 256));
  EXPECT_FALSE(BatchHasCandidates(candidates, 1025, 0));
  EXPECT_FALSE(BatchHasCandidates(Roaring(), 0, 256));
}

TEST(CandidateBatches, CandidatesFillTheirBatchesFromASixteenthOfTheirRows) {
  Roaring dense;
  dense.addRange(100, 116);  // 16 of one batch of 256
  EXPECT_TRUE(CandidatesFillTheirBatches(dense, 256));
  dense.add(5000);  // a second batch touched: 17 of 512 rows
  EXPECT_FALSE(CandidatesFillTheirBatches(dense, 256));
  Roaring sparse;
  sparse.addRange(0, 15);  // 15 of 256
  EXPECT_FALSE(CandidatesFillTheirBatches(sparse, 256));
  EXPECT_FALSE(CandidatesFillTheirBatches(Roaring(), 256));
  Roaring zones;
  zones.addRange(8192, 3 * 8192);  // whole batches, as a zone map answers
  EXPECT_TRUE(CandidatesFillTheirBatches(zones, 8192));
}

}  // namespace
}  // namespace tessera::dataset::candidate_batches_test
