// The planner uses a family it has never heard of: MINMAX (tests/support/minmax_family.h), a
// zone map registered by the tests only, answers supersets through the capability interface,
// and every read, count and delete still equals the unindexed path.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "support/minmax_family.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/manifest_store.h"
#include "tessera/expr/ast.h"
#include "tessera/expr/filter.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace tessera::query::minmax_family_test {
namespace {

using testing::ReaderOf;
using testing::TempDirectory;

// id = 0, 1, ...; f: cycles through values with nulls, NaN, -0.0 and 0.0; i: id % 10.
std::shared_ptr<arrow::RecordBatch> ZoneBatch(int64_t first, int64_t rows) {
  arrow::Int64Builder id, small;
  arrow::DoubleBuilder f;
  for (int64_t row = first; row < first + rows; ++row) {
    EXPECT_OK(id.Append(row));
    EXPECT_OK(small.Append(row % 10));
    switch (row % 9) {
      case 0:
        EXPECT_OK(f.AppendNull());
        break;
      case 1:
        EXPECT_OK(f.Append(std::nan("")));
        break;
      case 2:
        EXPECT_OK(f.Append(-0.0));
        break;
      case 3:
        EXPECT_OK(f.Append(0.0));
        break;
      default:
        EXPECT_OK(f.Append(static_cast<double>(row) * 0.5));
        break;
    }
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("f", arrow::float64()),
                     arrow::field("i", arrow::int64())});
  return arrow::RecordBatch::Make(
      schema, rows,
      {id.Finish().ValueOrDie(), f.Finish().ValueOrDie(), small.Finish().ValueOrDie()});
}

dataset::WriteOptions Files() {
  dataset::WriteOptions options;
  options.max_rows_per_file = 200;
  options.rows_per_batch = 50;
  return options;
}

// Whether one line of `text` contains every one of `parts`.
bool SomeLineHas(const std::string& text, const std::vector<std::string>& parts) {
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    bool all = true;
    for (const auto& part : parts) all = all && line.find(part) != std::string::npos;
    if (all) return true;
    begin = end + 1;
  }
  return false;
}

class QueryMinMaxFamily : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(testing::RegisterMinMaxFamily());
    ASSERT_OK_AND_ASSIGN(data_, dataset::Dataset::Create(directory_.Child("zones"),
                                                         ReaderOf(ZoneBatch(0, 600)), Files()));
    ForgetStatistics();
  }

  // These tests are about the capability interface. The planner asks fragment statistics
  // before any index, and on these ascending ids they decide most leaves on whole fragments
  // (tests/dataset/fragment_statistics_test.cc covers that): a version without them, as a
  // dataset written before statistics has, lets the family answer.
  void ForgetStatistics() {
    format::Manifest manifest = data_->manifest();
    manifest.set_version(data_->version() + 1);
    for (auto& fragment : *manifest.mutable_fragments()) fragment.clear_statistics();
    ASSERT_OK_AND_ASSIGN(bool published, dataset::TryPublishManifest(*data_->storage(), manifest));
    ASSERT_TRUE(published);
    ASSERT_OK_AND_ASSIGN(data_, dataset::Dataset::Open(data_->uri()));
  }

  void CreateIndex(const std::string& name, const std::string& column, const std::string& family,
                   index::Params params = {}) {
    index::IndexSpec spec{name, column, family, std::move(params)};
    ASSERT_OK_AND_ASSIGN(data_, index::CreateIndex(*data_, spec));
  }

  // Read (collected), Count and the unindexed scan and count agree on `filter`; returns the
  // explain of the read.
  std::string ExpectSameAsScan(const std::string& filter) {
    auto snapshot = Snapshot::Make(data_);
    dataset::ScanOptions options;
    options.filter = filter;
    options.with_row_address = true;
    Explain explain;
    auto reader = Read(snapshot, options, &explain);
    EXPECT_TRUE(reader.ok()) << filter << ": " << reader.status().ToString();
    if (!reader.ok()) return "";
    auto table = (*reader)->ToTable();
    EXPECT_TRUE(table.ok()) << filter << ": " << table.status().ToString();
    auto expected = data_->ScanToTable(options);
    EXPECT_TRUE(expected.ok()) << expected.status().ToString();
    if (!table.ok() || !expected.ok()) return "";
    EXPECT_TRUE((*table)->Equals(**expected, arrow::EqualOptions::Defaults().nans_equal(true)))
        << filter << "\n"
        << explain.ToString() << "\nindexed:\n"
        << (*table)->ToString() << "\nplain:\n"
        << (*expected)->ToString();
    auto counted = Count(*snapshot, filter);
    auto plain_count = data_->CountRows(filter);
    EXPECT_TRUE(counted.ok() && plain_count.ok()) << filter;
    if (counted.ok() && plain_count.ok()) {
      EXPECT_EQ(*counted, *plain_count) << filter;
    }
    return explain.ToString();
  }

  // The only scalar reader of index `position` (its one segment).
  const index::ScalarSegmentReader* Reader(const Snapshot& snapshot, int position) {
    auto opened = snapshot.Index(position);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok() || (*opened)->segments.size() != 1) return nullptr;
    return (*opened)->segments[0].reader->AsScalar();
  }

  TempDirectory directory_;
  std::shared_ptr<dataset::Dataset> data_;
};

// The acceptance test of the capability interface: a family registered by the tests only,
// created through the ordinary lifecycle, answers the planner, and explain names it.
TEST_F(QueryMinMaxFamily, PlannerUsesATestOnlyFamilyThroughTheCapabilityInterface) {
  CreateIndex("id_zones", "id", "MINMAX", {{"page_rows", "32"}});
  const std::string uuid = data_->manifest().indexes(0).segments(0).uuid().substr(0, 8);

  // Fragment 0 holds ids 0..199 in pages [0, 32), [32, 64), ...: ids 100..139 lie in the pages
  // starting at 96 and 128, so 64 candidates, rechecked; the other fragments read nothing.
  const std::string explain = ExpectSameAsScan("id >= 100 AND id < 140");
  EXPECT_NE(explain.find("fragments [0..2]: MINMAX index 'id_zones' segment " + uuid +
                         " answers 'id >= 100' and 'id < 140'; rows = ('id >= 100' by "
                         "'id_zones' (superset) AND 'id < 140' by 'id_zones' (superset)) "
                         "(64 candidates, rechecked)"),
            std::string::npos)
      << explain;

  // Every leaf shape it answers. A negation needs exact TRUE sets (or exact null sets) to
  // derive its FALSE rows from, which a zone map does not give: those are scanned.
  for (const auto& [filter, answered] : std::vector<std::pair<std::string, bool>>{
           {"id = 7", true},
           {"id IN (3, 250, 599)", true},
           {"id BETWEEN 190 AND 210", true},
           {"id IS NULL", true},
           {"id > 595 OR id < 2", true},
           {"id < 3 AND NOT (i = 4)", true},
           {"id != 4", false},
           {"id NOT IN (1, 2)", false},
           {"id NOT BETWEEN 5 AND 590", false},
           {"NOT (id > 20)", false},
           {"id IS NOT NULL", false},
           {"id < 3 OR i = 4", false},
           // Page boundaries (pages [0, 32), [32, 64), ...): a bound equal to a page's first or
           // last value keeps that page.
           {"id >= 31 AND id < 40", true},
           {"id > 31 AND id <= 32", true},
           {"id < 32", true},
           {"id <= 0", true},
           {"id BETWEEN 63 AND 64", true},
           {"id = 31 OR id = 32 OR id = 199 OR id = 200", true},
           {"id IN (63, 64, 599)", true},
       }) {
    const std::string text = ExpectSameAsScan(filter);
    EXPECT_EQ(text.find("MINMAX index 'id_zones'") != std::string::npos, answered) << filter << "\n"
                                                                                   << text;
  }
}

// Assess states superset coverage at the cost of the rows of the pages that may match; leaves
// it cannot answer are kNone, and the planner scans them.
TEST_F(QueryMinMaxFamily, AssessCostsThePagesThatMayMatch) {
  CreateIndex("id_zones", "id", "MINMAX", {{"page_rows", "32"}});
  auto snapshot = Snapshot::Make(data_);
  const index::ScalarSegmentReader* reader = Reader(*snapshot, 0);
  ASSERT_NE(reader, nullptr);
  const auto assess = [&](const std::string& text) {
    auto filter = expr::Filter::Parse(text, snapshot->schema());
    EXPECT_TRUE(filter.ok()) << filter.status().ToString();
    return reader->Assess((*filter)->root());
  };
  auto capability = assess("id = 33");
  EXPECT_EQ(capability.coverage, index::Coverage::kSuperset);
  EXPECT_EQ(capability.cost, 32);
  capability = assess("id < 200");  // the whole of fragment 0: 6 pages of 32 and one of 8
  EXPECT_EQ(capability.coverage, index::Coverage::kSuperset);
  EXPECT_EQ(capability.cost, 200);
  capability = assess("id > 10000");
  EXPECT_EQ(capability.coverage, index::Coverage::kSuperset);
  EXPECT_EQ(capability.cost, 0);
  EXPECT_EQ(assess("id != 3").coverage, index::Coverage::kNone);  // asked as `id = 3` under NOT
  EXPECT_EQ(assess("id < i").coverage, index::Coverage::kNone);

  // `id = 31` is the last value of page [0, 32): that page answers, the next does not.
  EXPECT_EQ(assess("id = 31").cost, 32);

  auto filter = expr::Filter::Parse("id = 33", snapshot->schema());
  ASSERT_TRUE(filter.ok());
  ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer((*filter)->root()));
  EXPECT_FALSE(answer.exact);
  ASSERT_EQ(answer.rows.size(), 32u);
  EXPECT_EQ(answer.rows.front(), dataset::MakeRowAddress(0, 32));
  EXPECT_EQ(answer.rows.back(), dataset::MakeRowAddress(0, 63));
}

// Zone maps over floats keep the scan's semantics: NaN matches no comparison but IN (NaN)...
// (nulls, NaN, -0.0 and 0.0 in every page), and IS NULL selects the pages holding nulls.
TEST_F(QueryMinMaxFamily, FloatZonesKeepTheScanSemantics) {
  CreateIndex("f_zones", "f", "MINMAX", {{"page_rows", "8"}});
  for (const std::string filter :
       {"f = 0", "f = -0.0", "f IN (-0.0)", "f IN (0.0, 3)", "f < 0", "f <= 0", "f > 100",
        "f BETWEEN -0.0 AND 0", "f != 0", "f IS NULL", "f IS NOT NULL", "f NOT IN (0.0)",
        "f >= 290 OR f IS NULL", "NOT (f < 250) AND f < 260"}) {
    const std::string text = ExpectSameAsScan(filter);
    if (filter.find("NOT") == std::string::npos && filter.find("!=") == std::string::npos) {
      EXPECT_NE(text.find("MINMAX index 'f_zones'"), std::string::npos) << filter << "\n" << text;
    }
  }
}

// IN is `= ANY`, so IN (NaN) matches nothing, like `= NaN`. The filter language has no NaN
// literal, so the leaves are built by hand, as a planner of another front end might.
TEST_F(QueryMinMaxFamily, InWithNanMatchesNoPageLikeEqualsNan) {
  CreateIndex("f_zones", "f", "MINMAX", {{"page_rows", "8"}});
  auto snapshot = Snapshot::Make(data_);
  const index::ScalarSegmentReader* reader = Reader(*snapshot, 0);
  ASSERT_NE(reader, nullptr);
  const int field = snapshot->schema()->GetFieldIndex("f");
  auto column = std::make_shared<expr::Column>("f", field, arrow::float64(), 1);
  const expr::InList nan_list(column, {std::make_shared<arrow::DoubleScalar>(std::nan(""))},
                              /*has_null=*/false, 1);
  const expr::Compare nan_equal(
      expr::CompareOp::kEqual, column,
      std::make_shared<expr::Literal>(std::make_shared<arrow::DoubleScalar>(std::nan("")), 1), 1);
  for (const expr::Node* leaf :
       {static_cast<const expr::Node*>(&nan_list), static_cast<const expr::Node*>(&nan_equal)}) {
    EXPECT_EQ(reader->Assess(*leaf).cost, 0) << leaf->ToString();
    ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer(*leaf));
    EXPECT_TRUE(answer.rows.empty()) << leaf->ToString();
  }
}

// With a BTREE on the same column the planner prefers the exact answer; MINMAX serves the
// fragments only it covers. Two columns' indexes combine, and explain names both.
TEST_F(QueryMinMaxFamily, CombinesWithBtreeAndPrefersExactAnswers) {
  CreateIndex("id_btree", "id", "BTREE");
  ASSERT_OK_AND_ASSIGN(data_, data_->Append(ReaderOf(ZoneBatch(600, 200)), Files()));
  ForgetStatistics();
  CreateIndex("id_zones", "id", "MINMAX");
  CreateIndex("i_btree", "i", "BTREE");
  std::string explain = ExpectSameAsScan("id >= 150 AND id < 700");
  EXPECT_NE(explain.find("fragments [0..2]: BTREE index 'id_btree'"), std::string::npos) << explain;
  EXPECT_NE(explain.find("fragment 3: MINMAX index 'id_zones'"), std::string::npos) << explain;

  explain = ExpectSameAsScan("id < 100 AND i = 3");
  EXPECT_TRUE(SomeLineHas(explain,
                          {"fragments [0..2]: ", "'id_btree'", "'i_btree'", "; rows = ", "exact)"}))
      << explain;
  EXPECT_TRUE(SomeLineHas(explain, {"fragment 3: ",
                                    "by 'id_zones' (superset) AND 'i = 3' by "
                                    "'i_btree'",
                                    "rechecked)"}))
      << explain;
  explain = ExpectSameAsScan("id >= 700 AND i = 3");
  EXPECT_NE(explain.find("fragment 3: MINMAX index 'id_zones' segment"), std::string::npos)
      << explain;
  EXPECT_NE(explain.find("BTREE index 'i_btree'"), std::string::npos) << explain;
}

// Between two superset indexes on one column the planner takes the cheaper answer, as each
// segment's Assess estimates it: here the finer pages.
TEST_F(QueryMinMaxFamily, PrefersTheCheaperOfTwoSupersetIndexes) {
  CreateIndex("id_coarse", "id", "MINMAX", {{"page_rows", "100"}});
  CreateIndex("id_fine", "id", "MINMAX", {{"page_rows", "10"}});
  std::string explain = ExpectSameAsScan("id = 250");
  EXPECT_TRUE(SomeLineHas(explain, {"MINMAX index 'id_fine'", "(10 candidates, rechecked)"}))
      << explain;
  EXPECT_EQ(explain.find("id_coarse"), std::string::npos) << explain;
  // Per leaf: each leaf goes to the index answering it most cheaply (10 rows versus 100).
  explain = ExpectSameAsScan("id < 5 OR id > 595");
  EXPECT_EQ(explain.find("id_coarse"), std::string::npos) << explain;
}

// The lifecycle works for it unchanged: optimize builds deltas and merges them (by
// concatenation), replace rebuilds, and a delete through the index equals the plain delete.
TEST_F(QueryMinMaxFamily, LifecycleBuildsMergesAndDeletesThroughIt) {
  CreateIndex("id_zones", "id", "MINMAX", {{"page_rows", "16"}});
  for (int64_t first : {600, 700, 800}) {
    ASSERT_OK_AND_ASSIGN(data_, data_->Append(ReaderOf(ZoneBatch(first, 100)), Files()));
    index::OptimizeOptions deltas;
    deltas.merge.kind = index::MergePolicy::Kind::kNone;
    ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*data_, deltas));
    data_ = report.dataset;
  }
  ASSERT_EQ(data_->manifest().indexes(0).segments_size(), 4);
  ExpectSameAsScan("id BETWEEN 590 AND 805");
  index::OptimizeOptions merge;
  ASSERT_OK_AND_ASSIGN(merge.merge, index::MergePolicy::Parse("1"));
  ASSERT_OK_AND_ASSIGN(auto report, index::OptimizeIndexes(*data_, merge));
  data_ = report.dataset;
  EXPECT_EQ(report.segments_merged, 4);
  ASSERT_EQ(data_->manifest().indexes(0).segments_size(), 1);
  EXPECT_EQ(data_->manifest().indexes(0).segments(0).num_rows(), 900u);
  std::string explain = ExpectSameAsScan("id BETWEEN 590 AND 805");
  EXPECT_NE(explain.find("MINMAX index 'id_zones'"), std::string::npos) << explain;

  // The files it names are the files it writes.
  const auto& segment = data_->manifest().indexes(0).segments(0);
  std::set<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(data_->uri()) / index::SegmentPath(segment.uuid()))) {
    written.insert(entry.path().filename().string());
  }
  const auto* family = index::FindFamily("minmax");
  ASSERT_NE(family, nullptr);
  const auto required = family->RequiredFiles(segment);
  EXPECT_EQ(std::set<std::string>(required.begin(), required.end()), written);

  index::CreateIndexOptions replace;
  replace.replace = true;
  ASSERT_OK_AND_ASSIGN(
      data_,
      index::CreateIndex(*data_, {"id_zones", "id", "MINMAX", {{"page_rows", "100"}}}, replace));
  explain = ExpectSameAsScan("id = 250");
  EXPECT_NE(explain.find("(100 candidates, rechecked)"), std::string::npos) << explain;

  // Delete through the index: the same live rows as the unindexed delete of a copy.
  const std::string copy = directory_.Child("copy");
  std::filesystem::copy(data_->uri(), copy, std::filesystem::copy_options::recursive);
  ASSERT_OK_AND_ASSIGN(auto plain, dataset::Dataset::Open(copy));
  Explain delete_explain;
  ASSERT_OK_AND_ASSIGN(auto deleted,
                       Delete(*Snapshot::Make(data_), "id < 300 AND f > 10", {}, &delete_explain));
  EXPECT_NE(delete_explain.ToString().find("MINMAX index 'id_zones'"), std::string::npos)
      << delete_explain.ToString();
  ASSERT_OK_AND_ASSIGN(plain, plain->Delete("id < 300 AND f > 10"));
  dataset::ScanOptions ids;
  ids.columns = {"id"};
  ids.with_row_address = true;
  ASSERT_OK_AND_ASSIGN(auto left, deleted->ScanToTable(ids));
  ASSERT_OK_AND_ASSIGN(auto right, plain->ScanToTable(ids));
  EXPECT_TRUE(left->Equals(*right));
  EXPECT_LT(left->num_rows(), 900);
}

TEST_F(QueryMinMaxFamily, ValidatesColumnsParametersAndFiles) {
  auto batch = testing::SimpleBatch(0, 50);
  ASSERT_OK_AND_ASSIGN(auto simple,
                       dataset::Dataset::Create(directory_.Child("simple"), ReaderOf(batch)));
  auto created = index::CreateIndex(*simple, {"name_zones", "name", "MINMAX", {}});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kUnsupported) << created.status().ToString();
  created = index::CreateIndex(*simple, {"id_zones", "id", "MINMAX", {{"pages", "3"}}});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kInvalidArgument) << created.status().ToString();
  created = index::CreateIndex(*simple, {"id_zones", "id", "MINMAX", {{"page_rows", "0"}}});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kInvalidArgument) << created.status().ToString();

  // A damaged zone file is Corrupt, naming the segment, when a query opens it.
  CreateIndex("id_zones", "id", "MINMAX");
  const auto& segment = data_->manifest().indexes(0).segments(0);
  const auto path = std::filesystem::path(data_->uri()) / index::SegmentPath(segment.uuid()) /
                    std::string(testing::kMinMaxFile);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(40);
    file.put('\x7f');
  }
  dataset::ScanOptions options;
  options.filter = "id = 5";
  auto read = Read(Snapshot::Make(data_), options);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(KindOf(read.status()), ErrorKind::kCorrupt) << read.status().ToString();
  EXPECT_NE(read.status().message().find(segment.uuid()), std::string::npos)
      << read.status().ToString();
}

}  // namespace
}  // namespace tessera::query::minmax_family_test
