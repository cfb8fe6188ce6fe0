// VectorSegmentSearch on an in-memory segment (support/fake_vector_segment.h): only eligible
// rows of its own fragments count, probes are raised until enough rows qualify, refined
// segments return k × refine_factor candidates without the range, a row past its fragment is
// Corrupt; and the prefilter's decision to score the allowed rows exactly instead.
#include "tessera/query/vector_segment_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "support/fake_vector_segment.h"
#include "support/status_assertions.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/vector/ivf_search.h"
#include "tessera/status.h"

namespace tessera::query::vector_segment_search_test {
namespace {

using index::ScoredRow;
using index::vector::Metric;
using testing::FakeVectorSegment;

constexpr int kRows = 40;  // per fragment
constexpr int kPartitions = 8;

// Fragments 0, 1 and 2 of kRows rows; row r of fragment f has the vector (f, r) and lies in
// partition r % kPartitions. The segment lists the rows of all three fragments, but only
// fragments 0 and 1 are assigned to it.
class SegmentSearchTest : public ::testing::Test {
 protected:
  SegmentSearchTest() {
    for (uint32_t id = 0; id < 3; ++id) {
      auto& fragment = fragments_.emplace_back();
      fragment.set_id(id);
      fragment.set_physical_rows(kRows);
    }
  }

  std::shared_ptr<FakeVectorSegment> Segment(bool approximate = false,
                                             std::vector<FakeVectorSegment::Row> extra = {}) {
    std::vector<FakeVectorSegment::Row> rows;
    for (uint32_t id = 0; id < 3; ++id) {
      for (uint32_t offset = 0; offset < kRows; ++offset) {
        rows.push_back({dataset::MakeRowAddress(id, offset),
                        {static_cast<float>(id), static_cast<float>(offset)},
                        static_cast<int>(offset % kPartitions)});
      }
    }
    for (auto& row : extra) rows.push_back(std::move(row));
    return std::make_shared<FakeVectorSegment>("0123456789abcdef", Metric::kL2, 2, kPartitions,
                                               std::move(rows), approximate);
  }

  VectorSource Source(const std::shared_ptr<FakeVectorSegment>& segment) {
    VectorSource source;
    source.index_name = "v_idx";
    source.family = "IVF_FLAT";
    source.segment_uuid = segment->meta().uuid();
    source.owner = segment;
    source.reader = segment.get();
    source.fragments = {0, 1};
    return source;
  }

  // Deletions per fragment (no prefilter).
  EligibleRows Live(const std::vector<Roaring>& deleted) {
    std::vector<EligibleFragment> eligible;
    for (size_t i = 0; i < fragments_.size(); ++i) {
      EligibleFragment fragment;
      fragment.fragment = &fragments_[i];
      fragment.deleted = std::make_shared<const Roaring>(deleted[i]);
      eligible.push_back(std::move(fragment));
    }
    return EligibleRows::Of(false, std::move(eligible));
  }

  // Allow-lists per fragment (a prefilter).
  EligibleRows Allowed(const std::vector<Roaring>& allowed) {
    std::vector<EligibleFragment> eligible;
    for (size_t i = 0; i < fragments_.size(); ++i) {
      EligibleFragment fragment;
      fragment.fragment = &fragments_[i];
      fragment.allowed = allowed[i];
      eligible.push_back(std::move(fragment));
    }
    return EligibleRows::Of(true, std::move(eligible));
  }

  // A prefilter allowing the rows of fragment 0 in partition 7 only (5 rows).
  EligibleRows AllowedInPartitionSevenOnly() {
    Roaring allowed;
    for (uint32_t offset = 7; offset < kRows; offset += kPartitions) allowed.add(offset);
    return Allowed({allowed, Roaring(), Roaring()});
  }

  // The best `k` rows of fragments 0 and 1 that `rows` accepts, within `range`.
  std::vector<ScoredRow> BruteForce(const EligibleRows& rows, const float* query, size_t k,
                                    const DistanceRange& range = {}) {
    std::vector<ScoredRow> all;
    for (uint32_t id = 0; id < 2; ++id) {
      for (uint32_t offset = 0; offset < kRows; ++offset) {
        if (!rows.fragments()[id].Accepts(offset)) continue;
        const float vector[2] = {static_cast<float>(id), static_cast<float>(offset)};
        const float distance = index::vector::Distance(Metric::kL2, query, vector, 2);
        if (range.Contains(distance))
          all.push_back({dataset::MakeRowAddress(id, offset), distance});
      }
    }
    std::sort(all.begin(), all.end(), index::vector::NearerFirst());
    if (all.size() > k) all.resize(k);
    return all;
  }

  static std::vector<uint64_t> Addresses(const std::vector<ScoredRow>& rows) {
    std::vector<uint64_t> addresses;
    for (const auto& row : rows) addresses.push_back(row.row_address);
    return addresses;
  }

  std::vector<format::Fragment> fragments_;
};

TEST_F(SegmentSearchTest, ReturnsOnlyEligibleRowsOfItsFragments) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  Roaring deleted;
  deleted.addRange(0, 10);
  const EligibleRows rows = Live({deleted, Roaring(), Roaring()});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {2.0f, 0.0f};  // nearest to fragment 2, which is not the segment's
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {1000, kPartitions, 1}));
  EXPECT_FALSE(found.candidates);
  EXPECT_FALSE(found.raised_nprobes);
  EXPECT_EQ(found.wanted, size_t{2 * kRows - 10});  // capped by the rows it may return
  EXPECT_EQ(Addresses(found.rows), Addresses(BruteForce(rows, query, 1000)));
  for (const auto& row : found.rows) {
    EXPECT_LT(dataset::FragmentOf(row.row_address), 2u);
    EXPECT_FALSE(dataset::FragmentOf(row.row_address) == 0 &&
                 dataset::OffsetOf(row.row_address) < 10);
  }
}

TEST_F(SegmentSearchTest, RaisesProbesUntilEnoughRowsQualify) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  // The allowed rows lie in partition 7 only: probing 1, 2 or 4 partitions finds none.
  const EligibleRows rows = AllowedInPartitionSevenOnly();
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {0.0f, 0.0f};
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {3, 1, 1}));
  EXPECT_EQ(segment->probes(), (std::vector<int>{1, 2, 4, 8}));
  ASSERT_TRUE(found.raised_nprobes);
  EXPECT_EQ(*found.raised_nprobes, kPartitions);
  EXPECT_EQ(found.wanted, 3u);
  EXPECT_FALSE(found.exhausted);  // 5 rows qualify
  EXPECT_EQ(Addresses(found.rows), Addresses(BruteForce(rows, query, 3)));
}

// Without any filter too: asked for more rows than the probed partitions hold, the segment
// probes more (nprobes is a floor), and says so.
TEST_F(SegmentSearchTest, RaisesProbesWithoutAFilterWhenThePartitionsHoldTooFewRows) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  const EligibleRows rows = Live({Roaring(), Roaring(), Roaring()});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {0.0f, 0.0f};
  const size_t k = 2 * kRows / kPartitions + 1;  // more than one partition holds
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {k, 1, 1}));
  EXPECT_EQ(segment->probes(), (std::vector<int>{1, 2}));
  ASSERT_TRUE(found.raised_nprobes);
  EXPECT_EQ(*found.raised_nprobes, 2);
  EXPECT_EQ(found.rows.size(), k);
}

TEST_F(SegmentSearchTest, StopsProbingOnceEveryQualifyingRowIsFound) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  // Two allowed rows, both in partition 0: one probe finds all there are, fewer than k.
  Roaring allowed;
  allowed.add(0);
  allowed.add(8);
  const EligibleRows rows = Allowed({allowed, Roaring(), Roaring()});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {0.0f, 0.0f};
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {10, 1, 1}));
  EXPECT_EQ(segment->probes(), (std::vector<int>{1}));
  EXPECT_FALSE(found.raised_nprobes);
  EXPECT_TRUE(found.exhausted);
  EXPECT_EQ(found.rows.size(), 2u);
}

TEST_F(SegmentSearchTest, NoAllowedRowNoProbe) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  Roaring others;  // fragment 2 has allowed rows, but it is not the segment's
  others.add(3);
  const EligibleRows rows = Allowed({Roaring(), Roaring(), others});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {0.0f, 0.0f};
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {10, 1, 1}));
  EXPECT_TRUE(found.rows.empty());
  EXPECT_TRUE(segment->probes().empty());
}

TEST_F(SegmentSearchTest, RefinedSegmentsReturnCandidatesWithoutTheRange) {
  const float query[2] = {0.0f, 0.0f};
  const DistanceRange range{4.0f, 50.0f};  // offsets 2 .. 7 of fragment 0, 0 .. 6 of fragment 1
  const EligibleRows rows = Live({Roaring(), Roaring(), Roaring()});
  {
    auto segment = Segment(/*approximate=*/true);
    const VectorSource source = Source(segment);
    const VectorSegmentSearch search(source, rows, 2, range);
    ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {4, kPartitions, 3}));
    EXPECT_TRUE(found.candidates);
    EXPECT_EQ(found.wanted, 12u);  // capacity × refine_factor
    EXPECT_EQ(Addresses(found.rows), Addresses(BruteForce(rows, query, 12)));
    // refine_factor 1: approximate distances are final, the range applies.
    ASSERT_OK_AND_ASSIGN(found, search.Search(query, {4, kPartitions, 1}));
    EXPECT_FALSE(found.candidates);
    EXPECT_EQ(Addresses(found.rows), Addresses(BruteForce(rows, query, 4, range)));
  }
  // An exact segment is never refined.
  auto segment = Segment(/*approximate=*/false);
  const VectorSource source = Source(segment);
  const VectorSegmentSearch search(source, rows, 2, range);
  ASSERT_OK_AND_ASSIGN(auto found, search.Search(query, {4, kPartitions, 3}));
  EXPECT_FALSE(found.candidates);
  EXPECT_EQ(found.wanted, 4u);
  EXPECT_EQ(Addresses(found.rows), Addresses(BruteForce(rows, query, 4, range)));
}

TEST_F(SegmentSearchTest, RowPastItsFragmentIsCorrupt) {
  auto segment = Segment(false, {{dataset::MakeRowAddress(1, kRows), {1.0f, 0.0f}, 0}});
  const VectorSource source = Source(segment);
  const EligibleRows rows = Live({Roaring(), Roaring(), Roaring()});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float query[2] = {0.0f, 0.0f};
  auto found = search.Search(query, {10, kPartitions, 1});
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(KindOf(found.status()), ErrorKind::kCorrupt);
  EXPECT_NE(found.status().message().find("0123456789abcdef"), std::string::npos)
      << found.status().ToString();
  EXPECT_NE(found.status().message().find("fragment 1, row 40"), std::string::npos)
      << found.status().ToString();
}

TEST_F(SegmentSearchTest, BatchAnswersEachQueryAsSearchAndContinuesShortOnesFromTwiceTheProbes) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  const EligibleRows rows = AllowedInPartitionSevenOnly();
  const VectorSegmentSearch search(source, rows, 2, {});
  const float vectors[3][2] = {{0.0f, 0.0f}, {0.0f, 20.0f}, {1.0f, 39.0f}};
  const float* queries[3] = {vectors[0], vectors[1], vectors[2]};
  ASSERT_OK_AND_ASSIGN(auto batch, search.SearchBatch(queries, 3, {3, 1, 1}));
  // One batch probe of 1 partition per query, then each short query from 2 partitions on.
  std::vector<int> probes = segment->probes();
  EXPECT_EQ(std::count(probes.begin(), probes.end(), 1), 3) << ::testing::PrintToString(probes);
  ASSERT_EQ(batch.size(), 3u);
  for (int q = 0; q < 3; ++q) {
    ASSERT_OK_AND_ASSIGN(auto alone, search.Search(queries[q], {3, 1, 1}));
    EXPECT_EQ(Addresses(batch[q].rows), Addresses(alone.rows)) << q;
    EXPECT_EQ(batch[q].raised_nprobes, alone.raised_nprobes) << q;
    EXPECT_EQ(batch[q].exhausted, alone.exhausted) << q;
  }
  ASSERT_OK_AND_ASSIGN(auto none, search.SearchBatch(queries, 0, {3, 1, 1}));
  EXPECT_TRUE(none.empty());
}

TEST_F(SegmentSearchTest, RowPastItsFragmentIsCorruptInABatch) {
  auto segment = Segment(false, {{dataset::MakeRowAddress(1, kRows), {1.0f, 0.0f}, 0}});
  const VectorSource source = Source(segment);
  const EligibleRows rows = Live({Roaring(), Roaring(), Roaring()});
  const VectorSegmentSearch search(source, rows, 2, {});
  const float vectors[2][2] = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  const float* queries[2] = {vectors[0], vectors[1]};
  auto found = search.SearchBatch(queries, 2, {10, kPartitions, 1});
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(KindOf(found.status()), ErrorKind::kCorrupt);
  EXPECT_NE(found.status().message().find("fragment 1, row 40"), std::string::npos)
      << found.status().ToString();
}

TEST_F(SegmentSearchTest, ScoresAllowedRowsExactlyWhenFewerThanTheProbesWouldScan) {
  auto segment = Segment();
  const VectorSource source = Source(segment);
  // 80 rows in the segment's fragments; 2 of 8 partitions probed scan about 20.
  auto allowing = [&](uint64_t count) {
    Roaring first;
    Roaring second;
    for (uint32_t i = 0; i < count; ++i) (i % 2 == 0 ? first : second).add(i / 2);
    return Allowed({first, second, Roaring()});
  };
  EXPECT_TRUE(ScoreAllowedRowsExactly(source, allowing(0), 2));
  EXPECT_TRUE(ScoreAllowedRowsExactly(source, allowing(20), 2));
  EXPECT_FALSE(ScoreAllowedRowsExactly(source, allowing(21), 2));
  // Probing every partition scans every row: exact scoring is never worse.
  EXPECT_TRUE(ScoreAllowedRowsExactly(source, allowing(80), kPartitions));
  EXPECT_TRUE(ScoreAllowedRowsExactly(source, allowing(80), 1000));
  VectorSource unassigned = source;
  unassigned.fragments.clear();
  EXPECT_FALSE(ScoreAllowedRowsExactly(unassigned, allowing(0), 2));
}

}  // namespace
}  // namespace tessera::query::vector_segment_search_test
