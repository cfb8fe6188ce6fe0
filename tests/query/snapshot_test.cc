// Snapshot: a version's indexes are opened lazily, one at a time, once; segments without a live
// fragment are not opened; an index of an unknown family is reported, not an error; deletion
// vectors are shared by every read of the snapshot.
#include "tessera/query/snapshot.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/indexed_dataset.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/dataset/operation.h"
#include "tessera/index/lifecycle.h"
#include "tessera/query/filter_plan.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/segment_cache.h"
#include "tessera/status.h"

namespace tessera::query::snapshot_test {
namespace {

using testing::AddBtree;
using testing::CreateSimpleDataset;
using testing::TempDirectory;

constexpr uint64_t kLargeBudget = uint64_t{1} << 40;

int FieldOf(const dataset::Dataset& dataset, const std::string& name) {
  return dataset.schema()->GetFieldIndex(name);
}

TEST(QuerySnapshot, IndexesOpenLazilyAndOnce) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSimpleDataset(directory.Child("ds"), 2000, 1000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "value_idx", "value"));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_fine", "id", {{"page_rows", "64"}}));
  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data, &cache);
  EXPECT_EQ(snapshot->version(), data->version());
  EXPECT_EQ(snapshot->fragment_ids().cardinality(), 2u);
  EXPECT_EQ(cache.statistics().opens, 0u);  // nothing is opened before it is needed

  EXPECT_EQ(snapshot->IndexesOnField(FieldOf(*data, "id")), (std::vector<int>{0, 2}));
  EXPECT_EQ(snapshot->IndexesOnField(FieldOf(*data, "value")), (std::vector<int>{1}));
  EXPECT_TRUE(snapshot->IndexesOnField(FieldOf(*data, "name")).empty());
  EXPECT_TRUE(snapshot->IndexesOnField(-1).empty());

  ASSERT_OK_AND_ASSIGN(const OpenedIndex* value_index, snapshot->Index(1));
  EXPECT_EQ(cache.statistics().opens, 1u);  // only that index
  EXPECT_EQ(value_index->definition->name(), "value_idx");
  EXPECT_EQ(value_index->field_index, FieldOf(*data, "value"));
  ASSERT_NE(value_index->family, nullptr);
  EXPECT_EQ(value_index->family->name(), "BTREE");
  ASSERT_EQ(value_index->segments.size(), 1u);
  const OpenedSegment& segment = value_index->segments[0];
  EXPECT_EQ(segment.meta, &data->manifest().indexes(1).segments(0));
  EXPECT_NE(segment.reader->AsScalar(), nullptr);
  EXPECT_EQ(segment.fragments.cardinality(), 2u);
  EXPECT_EQ(segment.live_fragments, segment.fragments);

  // Asking again returns the same opened index without asking the cache.
  ASSERT_OK_AND_ASSIGN(const OpenedIndex* again, snapshot->Index(1));
  EXPECT_EQ(again, value_index);
  EXPECT_EQ(cache.statistics().opens + cache.statistics().hits, 1u);

  // A count of one predicate on id opens the first index on id that counts it, not more.
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id < 10"));
  EXPECT_EQ(count, 10u);
  EXPECT_EQ(cache.statistics().opens, 2u);
  // A planned query on id opens the two indexes on id, not more.
  ASSERT_OK_AND_ASSIGN(count, Count(*snapshot, "id < 10 AND id >= 2"));
  EXPECT_EQ(count, 8u);
  EXPECT_EQ(cache.statistics().opens, 3u);

  for (int position : {-1, 3, 100}) {
    auto missing = snapshot->Index(position);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(KindOf(missing.status()), ErrorKind::kInvalidArgument) << missing.status().ToString();
    EXPECT_NE(missing.status().message().find(std::to_string(position)), std::string::npos)
        << missing.status().ToString();
  }
}

// A segment whose fragments have all left the version is not opened; one with some left keeps
// the rest as its live fragments.
TEST(QuerySnapshot, SegmentsWithoutLiveFragmentsAreNotOpened) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSimpleDataset(directory.Child("ds"), 2000, 1000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  ASSERT_OK_AND_ASSIGN(data, testing::AppendSimpleRows(*data, 2000, 1000, 1000));
  index::OptimizeOptions optimize;
  optimize.merge.kind = index::MergePolicy::Kind::kNone;
  ASSERT_OK_AND_ASSIGN(auto optimized, index::OptimizeIndexes(*data, optimize));
  data = optimized.dataset;
  ASSERT_EQ(data->manifest().indexes(0).segments_size(), 2);
  // Every row of the first and the last fragment.
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id < 1000 OR id >= 2000"));
  ASSERT_EQ(data->manifest().fragments_size(), 1);
  ASSERT_EQ(data->manifest().indexes(0).segments_size(), 2);

  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data, &cache);
  ASSERT_OK_AND_ASSIGN(const OpenedIndex* opened, snapshot->Index(0));
  ASSERT_EQ(opened->segments.size(), 1u);
  EXPECT_EQ(opened->segments[0].fragments.cardinality(), 2u);
  EXPECT_EQ(opened->segments[0].live_fragments.cardinality(), 1u);
  EXPECT_TRUE(opened->segments[0].live_fragments.contains(data->manifest().fragments(0).id()));
  EXPECT_EQ(cache.statistics().opens, 1u);
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id >= 1500"));
  EXPECT_EQ(count, 500u);
}

// An index whose family this process does not know (written by a newer tessera, or by a plugin
// not loaded) has a null family: the snapshot opens none of its segments, the planner notes that
// it is not used, and queries scan.
TEST(QuerySnapshot, AnIndexOfAnUnknownFamilyIsNotUsed) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSimpleDataset(directory.Child("ds"), 2000, 1000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  ASSERT_EQ(index::FindFamily("NO_SUCH_FAMILY"), nullptr);
  dataset::IndexChange change;
  change.name = "mystery";
  change.definition = data->manifest().indexes(0);
  change.definition->set_name("mystery");
  change.definition->set_family("NO_SUCH_FAMILY");
  for (auto& segment : *change.definition->mutable_segments()) {
    segment.set_family("NO_SUCH_FAMILY");
    segment.set_index_name("mystery");
  }
  ASSERT_OK_AND_ASSIGN(data, data->CommitIndexChange(change));
  ASSERT_OK_AND_ASSIGN(data, index::DropIndex(*data, "id_idx"));
  ASSERT_OK_AND_ASSIGN(data, dataset::Dataset::Open(data->uri()));  // as a fresh process would
  ASSERT_EQ(data->manifest().indexes_size(), 1);

  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data, &cache);
  ASSERT_OK_AND_ASSIGN(const OpenedIndex* opened, snapshot->Index(0));
  EXPECT_EQ(opened->family, nullptr);
  EXPECT_TRUE(opened->segments.empty());
  EXPECT_EQ(opened->field_index, FieldOf(*data, "id"));
  EXPECT_EQ(cache.statistics().opens, 0u);

  ASSERT_OK_AND_ASSIGN(auto filter, expr::Filter::Parse("id < 10", data->schema()));
  ASSERT_OK_AND_ASSIGN(FilterPlan plan, PlanFilter(*snapshot, *filter));
  // No index answered (fragment statistics may have: they are no index).
  for (const auto& fragment : plan.fragments) EXPECT_FALSE(fragment.index_used);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_EQ(plan.notes[0], "index 'mystery' not used: unknown index family 'NO_SUCH_FAMILY'");

  Explain explain;
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "id < 10", &explain));
  EXPECT_EQ(count, 10u);
  EXPECT_NE(explain.ToString().find("not used: unknown index family 'NO_SUCH_FAMILY'"),
            std::string::npos)
      << explain.ToString();
  EXPECT_NE(explain.ToString().find("scan"), std::string::npos) << explain.ToString();
}

// Families that answer no predicate (full-text, vector) are not opened to plan a filter on
// their column: the planner asks the family first (IndexFamily::answers_predicates).
TEST(QuerySnapshot, AFilterDoesNotOpenAFullTextIndexOnItsColumn) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSimpleDataset(directory.Child("ds"), 2000, 1000));
  ASSERT_OK_AND_ASSIGN(auto expected, Count(*Snapshot::Make(data), "name = 'name3'"));
  ASSERT_OK_AND_ASSIGN(
      data, index::CreateIndex(*data, index::IndexSpec{"name_text", "name", "INVERTED", {}}));
  SegmentCache cache(kLargeBudget);
  auto snapshot = Snapshot::Make(data, &cache);
  Explain explain;
  ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, "name = 'name3'", &explain));
  EXPECT_EQ(count, expected);
  EXPECT_EQ(cache.statistics().opens, 0u);
  EXPECT_NE(explain.ToString().find("scan"), std::string::npos) << explain.ToString();
}

// The snapshot's deletion vectors are loaded once and shared by every read of it.
TEST(QuerySnapshot, DeletionVectorsAreSharedByItsReads) {
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, CreateSimpleDataset(directory.Child("ds"), 3000, 1000));
  ASSERT_OK_AND_ASSIGN(data, AddBtree(*data, "id_idx", "id"));
  ASSERT_OK_AND_ASSIGN(data, data->Delete("id IN (7, 1007, 2007, 1500)"));
  auto snapshot = Snapshot::Make(data);
  EXPECT_EQ(snapshot->deletions().loaded(), 0u);
  for (const std::string filter : {"id < 2000", "name = 'name1'", "id > 1400 AND id < 1600"}) {
    ASSERT_OK_AND_ASSIGN(uint64_t count, Count(*snapshot, filter));
    ASSERT_OK_AND_ASSIGN(uint64_t expected, data->CountRows(filter));
    EXPECT_EQ(count, expected) << filter;
  }
  EXPECT_EQ(snapshot->deletions().loaded(), 3u);
  const uint32_t fragment = data->manifest().fragments(1).id();
  ASSERT_OK_AND_ASSIGN(auto first, snapshot->deletions().Get(fragment));
  ASSERT_OK_AND_ASSIGN(auto second, snapshot->deletions().Get(data->manifest().fragments(1)));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first->cardinality(), 2u);  // 1007 and 1500
}

}  // namespace
}  // namespace tessera::query::snapshot_test
