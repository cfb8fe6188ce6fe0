// The ZONEMAP family: for every supported column type, a segment's answer to a random predicate
// is a superset of the rows Arrow compute selects on the raw column (nulls, NaN, -0.0 and
// extremes included), so the planner's recheck gives exactly the scan's rows; answers narrow on
// sorted data; a merge answers like one build over the same fragments and reads no table;
// through the planner, reads and counts equal the unindexed scan before and after optimize;
// bad definitions and damaged or inconsistent zone files fail with precise errors.
#include "tessera/index/scalar/zonemap_family.h"

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/checked.h"
#include "support/ipc_file_surgery.h"
#include "support/mixed_filters.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/type_names.h"
#include "support/zone_index_testing.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/expr/ast.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/scalar/zonemap_segment_reader.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar::zonemap_test {
namespace {

using testing::BuiltSegment;
using testing::TempDirectory;

using testing::Check;

std::unique_ptr<ZoneMapSegmentReader> OpenZoneMap(const BuiltSegment& segment) {
  return testing::OpenZoneReader<ZoneMapSegmentReader>(segment);
}

using testing::ZoneAnswerOf;

class ZoneMapTypes : public testing::ColumnTypeTest {};

TEST_P(ZoneMapTypes, AnswersAreSupersetsOfTheScanAndNarrowOnSortedData) {
  const auto type = GetParam();
  auto family = MakeZoneMapFamily();
  std::mt19937_64 random(11);
  const auto values = testing::RandomValues(type, 1500, 0.1, random);
  const auto others = testing::RandomValues(type, 200, 0.0, random);
  for (bool sorted : {false, true}) {
    SCOPED_TRACE(sorted ? "sorted" : "random");
    TempDirectory directory;
    const auto table = testing::MakeColumnDataset(
        directory, sorted ? testing::SortedValues(values) : values, /*rows_per_file=*/400);
    ASSERT_EQ(table.dataset->manifest().fragments_size(), 4);
    const BuiltSegment segment = testing::BuildSegmentOf(
        *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "50"}});
    EXPECT_EQ(segment.meta.family(), "ZONEMAP");
    EXPECT_EQ(segment.meta.num_rows(), 1500u);
    EXPECT_EQ(segment.meta.details().at("num_zones"), "30");  // 400 + 400 + 400 + 300 rows
    auto reader = OpenZoneMap(segment);
    uint64_t equality_rows = 0;
    int equalities = 0;
    for (int i = 0; i < 200; ++i) {
      const ScalarQuery query = testing::RandomQuery(table.column, others, random, true);
      const auto expected = testing::ReferenceRows(table, query);
      const auto answer = ZoneAnswerOf(*reader, query);
      ASSERT_TRUE(std::is_sorted(answer.begin(), answer.end()));
      ASSERT_TRUE(std::adjacent_find(answer.begin(), answer.end()) == answer.end());
      ASSERT_TRUE(testing::Includes(answer, expected))
          << "query " << i << ": v " << testing::Describe(query) << " misses rows";
      if (query.kind == ScalarQuery::Kind::kEquals) {
        equality_rows += answer.size();
        ++equalities;
      }
    }
    // Sorted, an equality selects the zones of one run of equal values (a zone or two), not a
    // large share of the 1500 rows.
    if (sorted) {
      EXPECT_LT(equality_rows, equalities * 1500u / 5) << equalities << " equalities";
    }
  }
}

TEST_P(ZoneMapTypes, MergeOfThreeSegmentsAnswersLikeOneBuild) {
  const auto type = GetParam();
  auto family = MakeZoneMapFamily();
  std::mt19937_64 random(5);
  TempDirectory directory;
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(type, 1200, 0.1, random), /*rows_per_file=*/200);
  const auto fragments = testing::AllFragments(*table.dataset);
  ASSERT_EQ(fragments.size(), 6u);
  const Params params = {{"rows_per_zone", "64"}};
  const BuiltSegment whole = testing::BuildSegmentOf(*family, *table.dataset, fragments, params);
  const std::vector<BuiltSegment> parts = {
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[4], fragments[0]}, params),
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[1], fragments[5]}, params),
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[3], fragments[2]}, params)};
  const auto scanned = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment merged = testing::MergeSegmentsOf(*family, *table.dataset, parts);
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), scanned);

  EXPECT_EQ(merged.meta.num_rows(), whole.meta.num_rows());
  EXPECT_EQ(Check(DecodeFragmentBitmap(merged.meta)), Check(DecodeFragmentBitmap(whole.meta)));
  EXPECT_EQ(merged.meta.index_name(), "v_idx");
  using Details = std::map<std::string, std::string>;
  EXPECT_EQ(Details(merged.meta.details().begin(), merged.meta.details().end()),
            Details(whole.meta.details().begin(), whole.meta.details().end()));
  auto merged_reader = OpenZoneMap(merged);
  auto whole_reader = OpenZoneMap(whole);
  const auto others = testing::RandomValues(type, 100, 0.0, random);
  for (int i = 0; i < 200; ++i) {
    const ScalarQuery query = testing::RandomQuery(table.column, others, random, true);
    ASSERT_EQ(ZoneAnswerOf(*merged_reader, query), ZoneAnswerOf(*whole_reader, query))
        << "query " << i << ": v " << testing::Describe(query);
  }
}

INSTANTIATE_TEST_SUITE_P(ZoneMapAllTypes, ZoneMapTypes,
                         ::testing::Values(arrow::int8(), arrow::int16(), arrow::int32(),
                                           arrow::int64(), arrow::uint8(), arrow::uint16(),
                                           arrow::uint32(), arrow::uint64(), arrow::float16(),
                                           arrow::float32(), arrow::float64(), arrow::utf8(),
                                           arrow::large_utf8(), arrow::date32(),
                                           arrow::timestamp(arrow::TimeUnit::MILLI, "UTC"),
                                           arrow::timestamp(arrow::TimeUnit::NANO)),
                         testing::TypeName);

// ---------------------------------------------------------------------------------------------
// Hand-written cases that document the semantics.

std::shared_ptr<arrow::Scalar> Double(double value) {
  return std::make_shared<arrow::DoubleScalar>(value);
}

ScalarQuery Query(ScalarQuery::Kind kind, std::vector<std::shared_ptr<arrow::Scalar>> values = {}) {
  ScalarQuery query;
  query.kind = kind;
  query.values = std::move(values);
  return query;
}

ScalarQuery Range(std::optional<ScalarBound> lower, std::optional<ScalarBound> upper) {
  ScalarQuery query = Query(ScalarQuery::Kind::kRange);
  query.lower = std::move(lower);
  query.upper = std::move(upper);
  return query;
}

TEST(ZoneMapSemantics, NanNullsAndSignedZeroFollowTheScan) {
  TempDirectory directory;
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  // Zones of two rows: [NaN, NaN] [-0.0, 1] [null, null] [inf, 2.5] [NaN, null]
  arrow::DoubleBuilder builder;
  ASSERT_OK(builder.AppendValues({nan, nan, -0.0, 1.0}));
  ASSERT_OK(builder.AppendNulls(2));
  ASSERT_OK(builder.AppendValues({inf, 2.5, nan}));
  ASSERT_OK(builder.AppendNull());
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  auto family = MakeZoneMapFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "2"}});
  EXPECT_EQ(segment.meta.details().at("num_nulls"), "3");
  auto reader = OpenZoneMap(segment);
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  const auto zones = [&](std::vector<uint32_t> firsts) {
    std::vector<uint64_t> rows;
    for (uint32_t first : firsts) {
      rows.push_back(dataset::MakeRowAddress(fragment, first));
      rows.push_back(dataset::MakeRowAddress(fragment, first + 1));
    }
    return rows;
  };
  using Kind = ScalarQuery::Kind;
  // NaN equals nothing; 0.0 equals -0.0; IN is `= ANY`.
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kEquals, {Double(nan)})), zones({}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kEquals, {Double(0.0)})), zones({2}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kIn, {Double(nan), Double(-0.0)})), zones({2}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kIn, {arrow::MakeNullScalar(arrow::float64())})),
            zones({}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kIn, {})), zones({}));
  // Ranges never select a zone of NaN and nulls only; NaN or null bounds select nothing.
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(ScalarBound{Double(-inf), true}, std::nullopt)),
            zones({2, 6}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(ScalarBound{Double(1.0), false}, std::nullopt)),
            zones({6}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(std::nullopt, ScalarBound{Double(-0.0), false})),
            zones({}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(std::nullopt, ScalarBound{Double(0.0), true})), zones({2}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(ScalarBound{Double(nan), true}, std::nullopt)), zones({}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Range(ScalarBound{arrow::MakeNullScalar(arrow::float64()), true},
                                        std::nullopt)),
            zones({}));
  EXPECT_EQ(
      ZoneAnswerOf(*reader, Range(ScalarBound{Double(2.0), true}, ScalarBound{Double(1.0), true})),
      zones({}));
  EXPECT_EQ(
      ZoneAnswerOf(*reader, Range(ScalarBound{Double(1.0), true}, ScalarBound{Double(1.0), false})),
      zones({}));
  // Null tests: NaN is not null.
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kIsNull)), zones({4, 8}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(Kind::kIsNotNull)), zones({0, 2, 6, 8}));
  // A value of another type is refused, never silently compared.
  auto refused =
      reader->MatchingZones(Query(Kind::kEquals, {std::make_shared<arrow::FloatScalar>(1.0f)}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidArgument);
}

TEST(ZoneMapSemantics, StringsCompareBytewise) {
  TempDirectory directory;
  arrow::StringBuilder builder;
  ASSERT_OK(builder.AppendValues({"b", "\xc3\xa9", "a", "B", "", "ab"}));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  auto family = MakeZoneMapFamily();
  auto reader = OpenZoneMap(testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "1"}}));
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  // "é" (0xC3 0xA9) sorts after every ASCII string; "" before everything.
  EXPECT_EQ(
      ZoneAnswerOf(*reader, Range(ScalarBound{std::make_shared<arrow::StringScalar>("b"), false},
                                  std::nullopt)),
      std::vector<uint64_t>{dataset::MakeRowAddress(fragment, 1)});
  EXPECT_EQ(
      ZoneAnswerOf(*reader, Range(std::nullopt,
                                  ScalarBound{std::make_shared<arrow::StringScalar>("a"), true})),
      (std::vector<uint64_t>{dataset::MakeRowAddress(fragment, 2),
                             dataset::MakeRowAddress(fragment, 3),
                             dataset::MakeRowAddress(fragment, 4)}));
}

// Leaves as the planner hands them: a superset at a cost of the rows answered, from the zone
// table alone; leaves the zones cannot answer are kNone.
TEST(ZoneMapReader, AssessCostsTheRowsOfTheMatchingZones) {
  TempDirectory directory;
  arrow::Int64Builder builder;
  for (int64_t i = 0; i < 1000; ++i) ASSERT_OK(builder.Append(i));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 500);
  auto family = MakeZoneMapFamily();
  auto reader = OpenZoneMap(testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "100"}}));
  const auto column = std::make_shared<expr::Column>("v", 0, arrow::int64(), 1);
  const auto literal = [](std::shared_ptr<arrow::Scalar> value) {
    return std::make_shared<expr::Literal>(std::move(value), 5);
  };
  const expr::Compare below(expr::CompareOp::kLess, column,
                            literal(std::make_shared<arrow::Int64Scalar>(250)), 1);
  const Capability capability = reader->Assess(below);
  EXPECT_EQ(capability.coverage, Coverage::kSuperset);
  EXPECT_EQ(capability.cost, 300);  // zones [0, 100), [100, 200), [200, 300)
  ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer(below));
  EXPECT_FALSE(answer.exact);
  EXPECT_EQ(answer.size(), 300u);
  // `!=` reaches readers as `=` under a NOT; the NOT itself, and a literal of another type, are
  // not answered.
  const auto equal = std::make_shared<expr::Compare>(
      expr::CompareOp::kEqual, column, literal(std::make_shared<arrow::Int64Scalar>(7)), 1);
  EXPECT_EQ(reader->Assess(*equal).cost, 100);
  EXPECT_EQ(reader->Assess(expr::Not(equal, 1)).coverage, Coverage::kNone);
  const expr::Compare mistyped(expr::CompareOp::kEqual, column,
                               literal(std::make_shared<arrow::Int32Scalar>(7)), 1);
  EXPECT_EQ(reader->Assess(mistyped).coverage, Coverage::kNone);
  EXPECT_EQ(KindOf(reader->Answer(mistyped).status()), ErrorKind::kInvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Through the planner and the lifecycle.

TEST(ZoneMapPlanner, ReadsAndCountsEqualTheScanBeforeAndAfterOptimize) {
  ASSERT_OK(arrow::compute::Initialize());
  std::mt19937_64 random(7);
  testing::PredicateGenerator generator(random);
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(
                                      directory.Child("data"),
                                      testing::ReaderOf(testing::MixedFilterBatch(random, 0, 600)),
                                      testing::SmallFiles()));
  const std::vector<std::string> columns = {"id", "i64", "f64", "s", "ts"};
  for (const auto& column : columns) {
    ASSERT_OK_AND_ASSIGN(
        data,
        CreateIndex(*data, {column + "_zones", column, "zonemap", {{"rows_per_zone", "16"}}}));
  }
  ASSERT_OK_AND_ASSIGN(auto summary, DescribeIndex(*data, "id_zones"));
  EXPECT_EQ(summary.family, "ZONEMAP");
  EXPECT_EQ(summary.params, (Params{{"rows_per_zone", "16"}}));
  int superset = 0;
  int queries = 0;
  const auto check = [&](const std::shared_ptr<dataset::Dataset>& dataset, int count) {
    for (int i = 0; i < count; ++i) {
      const std::string filter = i % 4 == 0 ? generator.Predicate(2)
                                            : generator.LeafOn(columns[random() % columns.size()]);
      std::string explain;
      const std::string problem = testing::PlannerDisagreement(dataset, filter, &explain);
      ASSERT_EQ(problem, "") << filter;
      ++queries;
      if (explain.find("ZONEMAP index '") != std::string::npos) ++superset;
    }
  };
  ASSERT_NO_FATAL_FAILURE(check(data, 120));
  // Appends leave fragments unindexed; optimize builds delta segments and merges them.
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(testing::ReaderOf(testing::MixedFilterBatch(random, 600 + round * 200, 200)),
                     testing::SmallFiles()));
    OptimizeOptions options;
    ASSERT_OK_AND_ASSIGN(options.merge, MergePolicy::Parse(round == 0 ? "none" : "1"));
    ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*data, options));
    data = report.dataset;
    EXPECT_EQ(report.segments_built, 5);
    if (round == 1) {
      EXPECT_EQ(report.segments_merged, 15);
    }
    ASSERT_NO_FATAL_FAILURE(check(data, 60));
  }
  ASSERT_OK_AND_ASSIGN(summary, DescribeIndex(*data, "f64_zones"));
  EXPECT_EQ(summary.num_segments, 1);
  EXPECT_EQ(summary.unindexed_rows, 0u);
  EXPECT_GT(superset, queries / 3) << superset << " of " << queries;
}

// ---------------------------------------------------------------------------------------------
// Definitions, builds and files that must fail.

TEST(ZoneMapValidate, NormalizesAndRejectsBadDefinitions) {
  auto family = MakeZoneMapFamily();
  EXPECT_EQ(family->name(), "ZONEMAP");
  const arrow::Field column("v", arrow::int64());
  EXPECT_EQ(Check(family->Validate(column, {})), (Params{{"rows_per_zone", "4096"}}));
  EXPECT_EQ(Check(family->Validate(column, {{"rows_per_zone", "1"}})),
            (Params{{"rows_per_zone", "1"}}));
  EXPECT_EQ(Check(family->Validate(column, {{"rows_per_zone", "1048576"}})),
            (Params{{"rows_per_zone", "1048576"}}));
  for (const char* bad : {"0", "-1", "abc", "1048577", "16x", ""}) {
    auto status = family->Validate(column, {{"rows_per_zone", bad}}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("rows_per_zone"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("ZONEMAP"), std::string::npos) << status.message();
  }
  auto status = family->Validate(column, {{"page_rows", "4"}}).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("page_rows"), std::string::npos) << status.message();
  for (const auto& type :
       {arrow::boolean(), arrow::binary(), arrow::decimal128(10, 2), arrow::list(arrow::int32()),
        arrow::fixed_size_list(arrow::float32(), 4)}) {
    status = family->Validate(arrow::Field("bad_column", type), {}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << type->ToString();
    EXPECT_NE(status.message().find("bad_column"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("double, string, large_string"), std::string::npos)
        << status.message();
  }
}

TEST(ZoneMapBuild, EmptyAndIncrementalBuilds) {
  TempDirectory directory;
  std::mt19937_64 random(2);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::int64(), 1000, 0.1, random), 250);
  auto family = MakeZoneMapFamily();
  const BuiltSegment empty = testing::BuildSegmentOf(*family, *table.dataset, {}, {});
  EXPECT_EQ(empty.meta.num_rows(), 0u);
  EXPECT_TRUE(ZoneAnswerOf(*OpenZoneMap(empty), Query(ScalarQuery::Kind::kIsNotNull)).empty());
  const auto fragments = testing::AllFragments(*table.dataset);
  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment last = testing::BuildSegmentOf(*family, *table.dataset, {fragments.back()},
                                                    {{"rows_per_zone", "100"}});
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load() - before, 250u);
  EXPECT_EQ(last.meta.details().at("num_zones"), "3");  // 100 + 100 + 50
  BuildInput twice = testing::InputOf(*table.dataset, {fragments[0], fragments[0]}, {});
  auto out = Check(NewSegmentDirectory(table.dataset->storage()));
  EXPECT_EQ(KindOf(family->Build(twice, nullptr, out).status()), ErrorKind::kInvalidArgument);
}

TEST(ZoneMapMerge, RejectsOverlappingAndMismatchedSegments) {
  TempDirectory directory;
  std::mt19937_64 random(4);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::int64(), 600, 0.1, random), 200);
  const auto fragments = testing::AllFragments(*table.dataset);
  auto family = MakeZoneMapFamily();
  const BuiltSegment a =
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[0], fragments[1]}, {});
  const BuiltSegment b =
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[1], fragments[2]}, {});
  const BuiltSegment c =
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[2]}, {{"rows_per_zone", "7"}});
  auto out = Check(NewSegmentDirectory(table.dataset->storage()));
  EXPECT_EQ(KindOf(family->Merge({a.meta, b.meta}, {a.directory, b.directory}, out).status()),
            ErrorKind::kInvalidArgument);
  auto status = family->Merge({a.meta, c.meta}, {a.directory, c.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("zone sizes"), std::string::npos) << status.message();
  format::SegmentMeta foreign = b.meta;
  foreign.set_family("BTREE");
  EXPECT_EQ(KindOf(family->Merge({a.meta, foreign}, {a.directory, b.directory}, out).status()),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(KindOf(family->Merge({}, {}, out).status()), ErrorKind::kInvalidArgument);
}

TEST(ZoneMapVerify, ChecksValueTypeAndZoneSize) {
  TempDirectory directory;
  std::mt19937_64 random(9);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::int32(), 300, 0.1, random), 100);
  auto family = MakeZoneMapFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "10"}});
  BuildInput definition = testing::InputOf(*table.dataset, {}, {{"rows_per_zone", "10"}});
  EXPECT_OK(family->Verify(definition, segment.meta, segment.directory));
  definition.params = {{"rows_per_zone", "20"}};
  auto status = family->Verify(definition, segment.meta, segment.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("rows_per_zone=20"), std::string::npos) << status.message();
  definition.params = {{"rows_per_zone", "10"}};
  definition.schema = arrow::schema({arrow::field("v", arrow::int64())});
  status = family->Verify(definition, segment.meta, segment.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("int32"), std::string::npos) << status.message();
}

TEST(ZoneMapOpen, DamagedFilesAreCorruptNamingTheFile) {
  TempDirectory directory;
  std::mt19937_64 random(6);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::utf8(), 300, 0.1, random), 100);
  auto family = MakeZoneMapFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "10"}});
  EXPECT_EQ(family->RequiredFiles(segment.meta),
            (std::vector<std::string>{"zones.arrow", "zones.arrow.crc32c"}));
  const std::string path = table.dataset->uri() + "/" + segment.directory.path + "/zones.arrow";
  const std::string original = testing::ReadBytes(path);
  // Garbage, and one flipped byte in the middle: the checksums catch both.
  for (size_t at : {size_t{0}, original.size() / 2}) {
    std::string damaged = at == 0 ? std::string("not an arrow file") : original;
    if (at != 0) damaged[at] = static_cast<char>(damaged[at] ^ 0x40);
    testing::WriteBytes(path, damaged);
    auto opened = family->Open(segment.meta, segment.directory);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("zones.arrow"), std::string::npos)
        << opened.status().ToString();
  }
  testing::WriteBytes(path, original);
  EXPECT_OK(family->Open(segment.meta, segment.directory).status());
  // A segment claiming more rows than its zones hold would drop rows: refused.
  format::SegmentMeta more = segment.meta;
  more.set_num_rows(more.num_rows() + 1);
  EXPECT_EQ(KindOf(family->Open(more, segment.directory).status()), ErrorKind::kCorrupt);
  format::SegmentMeta wrong = segment.meta;
  wrong.set_family("BTREE");
  EXPECT_EQ(KindOf(family->Open(wrong, segment.directory).status()), ErrorKind::kInvalidArgument);
}

// Zone files that pass their checksums but break the zone table's invariants.
TEST(ZoneMapOpen, InconsistentZoneTablesAreCorrupt) {
  TempDirectory directory;
  std::mt19937_64 random(8);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::int64(), 40, 0.0, random), 100);
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  struct Case {
    std::string name;
    std::vector<Zone> zones;
    int64_t min;
    int64_t max;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"gap",
       {{fragment, 0, 10, 0}, {fragment, 20, 10, 0}, {fragment, 30, 10, 0}, {fragment, 40, 10, 0}},
       1,
       2,
       "does not follow"},
      {"overlap",
       {{fragment, 0, 10, 0}, {fragment, 5, 10, 0}, {fragment, 15, 10, 0}, {fragment, 25, 15, 0}},
       1,
       2,
       "does not follow"},
      {"late start",
       {{fragment, 10, 10, 0}, {fragment, 20, 10, 0}, {fragment, 30, 10, 0}, {fragment, 40, 10, 0}},
       1,
       2,
       "row 0"},
      {"foreign fragment",
       {{fragment + 1, 0, 10, 0},
        {fragment + 1, 10, 10, 0},
        {fragment + 1, 20, 10, 0},
        {fragment + 1, 30, 10, 0}},
       1,
       2,
       "does not cover"},
      {"too many nulls",
       {{fragment, 0, 10, 11}, {fragment, 10, 10, 0}, {fragment, 20, 10, 0}, {fragment, 30, 10, 0}},
       1,
       2,
       "inconsistent counts"},
      {"short zone first",
       {{fragment, 0, 5, 0}, {fragment, 5, 10, 0}, {fragment, 15, 10, 0}, {fragment, 25, 15, 0}},
       1,
       2,
       "shorter than rows_per_zone"},
      {"missing rows",
       {{fragment, 0, 10, 0}, {fragment, 10, 10, 0}, {fragment, 20, 10, 0}},
       1,
       2,
       "the segment has 40"},
      {"minimum above maximum",
       {{fragment, 0, 10, 0}, {fragment, 10, 10, 0}, {fragment, 20, 10, 0}, {fragment, 30, 10, 0}},
       5,
       2,
       "minimum"},
  };
  auto family = MakeZoneMapFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "10"}});
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.name);
    auto out = Check(NewSegmentDirectory(table.dataset->storage()));
    auto writer = Check(ZoneFileWriter::Open(out, "ZONEMAP", 10, ZoneMapFields(arrow::int64())));
    for (const Zone& zone : bad.zones) {
      ASSERT_OK(static_cast<arrow::UInt32Builder*>(writer->family_builder(0))->Append(0));
      ASSERT_OK(static_cast<arrow::Int64Builder*>(writer->family_builder(1))->Append(bad.min));
      ASSERT_OK(static_cast<arrow::Int64Builder*>(writer->family_builder(2))->Append(bad.max));
      ASSERT_OK(writer->Append(zone));
    }
    ASSERT_OK(writer->Finish().status());
    format::SegmentMeta meta = segment.meta;
    meta.set_uuid(out.uuid);
    auto opened = family->Open(meta, out);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("zones.arrow"), std::string::npos)
        << opened.status().ToString();
    EXPECT_NE(opened.status().message().find(bad.message), std::string::npos)
        << opened.status().ToString();
  }
}

}  // namespace
}  // namespace tessera::index::scalar::zonemap_test
