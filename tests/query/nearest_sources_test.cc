// AssignSources: which segment, or the exact tail, serves each fragment of a version, and the
// metric of the search — over in-memory segments (support/fake_vector_segment.h).
#include "tessera/query/nearest_sources.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/fake_vector_segment.h"

namespace tessera::query::nearest_sources_test {
namespace {

using index::vector::Metric;
using testing::FakeVectorSegment;

constexpr int kDim = 4;

format::Manifest FiveFragments() {
  format::Manifest manifest;
  for (uint32_t id : {10u, 11u, 12u, 13u, 14u}) {
    auto* fragment = manifest.add_fragments();
    fragment->set_id(id);
    fragment->set_physical_rows(100);
  }
  return manifest;
}

format::IndexDef Definition(const std::string& name) {
  format::IndexDef definition;
  definition.set_name(name);
  definition.set_family("IVF_FLAT");
  return definition;
}

OpenedVectorSegment Opened(const std::string& uuid, Metric metric, int dim,
                           std::vector<uint32_t> fragments) {
  OpenedVectorSegment segment;
  segment.reader = std::make_shared<FakeVectorSegment>(uuid, metric, dim, 4,
                                                       std::vector<FakeVectorSegment::Row>{});
  for (uint32_t id : fragments) segment.live_fragments.add(id);
  return segment;
}

ColumnVectorIndex Index(const format::IndexDef& definition, Metric metric,
                        std::vector<OpenedVectorSegment> segments) {
  ColumnVectorIndex index;
  index.definition = &definition;
  index.metric = metric;
  index.segments = std::move(segments);
  return index;
}

bool HasNote(const NearestSources& sources, const std::string& text) {
  for (const auto& note : sources.notes) {
    if (note == text) return true;
  }
  return false;
}

class AssignSourcesTest : public ::testing::Test {
 protected:
  // a (l2): segment a1 over 10, 11 and segment a2 of another dimension over 12; b (cosine) over
  // 13; c (l2) over 11 and 14.
  std::vector<ColumnVectorIndex> Indexes() {
    std::vector<ColumnVectorIndex> indexes;
    std::vector<OpenedVectorSegment> a;
    a.push_back(Opened("aaaaaaaa-1", Metric::kL2, kDim, {10, 11}));
    a.push_back(Opened("aaaaaaaa-2", Metric::kL2, kDim + 1, {12}));
    indexes.push_back(Index(a_, Metric::kL2, std::move(a)));
    std::vector<OpenedVectorSegment> b;
    b.push_back(Opened("bbbbbbbb-1", Metric::kCosine, kDim, {13}));
    indexes.push_back(Index(b_, Metric::kCosine, std::move(b)));
    std::vector<OpenedVectorSegment> c;
    c.push_back(Opened("cccccccc-1", Metric::kL2, kDim, {11, 14}));
    indexes.push_back(Index(c_, Metric::kL2, std::move(c)));
    return indexes;
  }

  const format::Manifest manifest_ = FiveFragments();
  const format::IndexDef a_ = Definition("a");
  const format::IndexDef b_ = Definition("b");
  const format::IndexDef c_ = Definition("c");
};

TEST_F(AssignSourcesTest, FirstUsableSegmentServesEachFragment) {
  const NearestSources sources = AssignSources(manifest_, Indexes(), kDim, std::nullopt, {"x"});
  EXPECT_EQ(sources.metric, Metric::kL2);
  EXPECT_EQ(sources.metric_choice, MetricChoice::kIndex);
  EXPECT_EQ(sources.metric_index, "a");
  ASSERT_EQ(sources.segments.size(), 2u);
  EXPECT_EQ(sources.segments[0].segment_uuid, "aaaaaaaa-1");
  EXPECT_EQ(sources.segments[0].index_name, "a");
  EXPECT_EQ(sources.segments[0].fragments, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(sources.segments[1].segment_uuid, "cccccccc-1");
  EXPECT_EQ(sources.segments[1].fragments, (std::vector<size_t>{4}));  // 11 is a's
  EXPECT_EQ(sources.segment_of, (std::vector<int>{0, 0, -1, -1, 1}));
  EXPECT_EQ(sources.exact_reasons[2].kind, ExactReason::Kind::kUnindexed);  // a2: other dim
  EXPECT_EQ(sources.exact_reasons[3].kind, ExactReason::Kind::kOtherMetric);
  EXPECT_EQ(sources.notes.front(), "x");
  EXPECT_TRUE(HasNote(sources, "index 'b' not used: metric cosine differs from query metric l2"));
  EXPECT_TRUE(HasNote(sources,
                      "segment aaaaaaaa of index 'a' not used: it holds 5-dimensional vectors "
                      "with metric l2"));
  EXPECT_EQ(sources.ExactTail(), (std::vector<size_t>{2, 3}));
}

TEST_F(AssignSourcesTest, AskedMetricUsesOnlyItsIndexes) {
  const NearestSources sources = AssignSources(manifest_, Indexes(), kDim, Metric::kCosine, {});
  EXPECT_EQ(sources.metric, Metric::kCosine);
  EXPECT_EQ(sources.metric_choice, MetricChoice::kAsked);
  ASSERT_EQ(sources.segments.size(), 1u);
  EXPECT_EQ(sources.segments[0].segment_uuid, "bbbbbbbb-1");
  EXPECT_EQ(sources.segment_of, (std::vector<int>{-1, -1, -1, 0, -1}));
  for (size_t position : {0, 1, 2, 4}) {
    EXPECT_EQ(sources.exact_reasons[position].kind, ExactReason::Kind::kOtherMetric) << position;
  }
  EXPECT_TRUE(HasNote(sources, "index 'a' not used: metric l2 differs from query metric cosine"));
  EXPECT_TRUE(HasNote(sources, "index 'c' not used: metric l2 differs from query metric cosine"));
}

TEST_F(AssignSourcesTest, MetricOfAnIndexWithoutSegmentsIsTheDefault) {
  const format::IndexDef empty = Definition("empty");
  std::vector<ColumnVectorIndex> indexes;
  indexes.push_back(Index(empty, Metric::kDot, {}));
  for (auto& index : Indexes()) indexes.push_back(std::move(index));
  const NearestSources sources = AssignSources(manifest_, std::move(indexes), kDim, {}, {});
  EXPECT_EQ(sources.metric, Metric::kDot);
  EXPECT_EQ(sources.metric_index, "empty");
  EXPECT_TRUE(sources.segments.empty());
  EXPECT_EQ(sources.ExactTail().size(), 5u);
}

TEST_F(AssignSourcesTest, NoVectorIndexMeansL2ByDefaultAndAnExactTail) {
  const NearestSources sources = AssignSources(manifest_, {}, kDim, {}, {});
  EXPECT_EQ(sources.metric, Metric::kL2);
  EXPECT_EQ(sources.metric_choice, MetricChoice::kDefault);
  EXPECT_EQ(sources.segment_of, (std::vector<int>(5, -1)));
  EXPECT_TRUE(sources.notes.empty());
}

TEST_F(AssignSourcesTest, MoveToExactTailHandsOverEverySegmentFragment) {
  NearestSources sources = AssignSources(manifest_, Indexes(), kDim, {}, {});
  sources.MoveToExactTail(0, {ExactReason::Kind::kFewPrefilteredRows, "a"});
  EXPECT_TRUE(sources.segments[0].fragments.empty());
  EXPECT_EQ(sources.segment_of, (std::vector<int>{-1, -1, -1, -1, 1}));
  EXPECT_EQ(sources.exact_reasons[1].kind, ExactReason::Kind::kFewPrefilteredRows);
  EXPECT_EQ(sources.exact_reasons[1].index_name, "a");
  EXPECT_EQ(sources.ExactTail(), (std::vector<size_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace tessera::query::nearest_sources_test
