// The BLOOMFILTER family: for every supported column type, a segment's answer to a random
// equality, IN or null test is a superset of the rows Arrow compute selects on the raw column,
// so the planner's recheck gives exactly the scan's rows; lookups of values a zone lacks rarely
// select it (the false positive rate); a merge answers like one build and reads no table;
// through the planner, reads and counts equal the unindexed scan before and after optimize;
// bad definitions and damaged or inconsistent zone files fail with precise errors.
#include "tessera/index/scalar/bloomfilter_family.h"

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <algorithm>
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
#include "tessera/index/scalar/bloomfilter_segment_reader.h"
#include "tessera/index/scalar/zones.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar::bloomfilter_test {
namespace {

using testing::BuiltSegment;
using testing::TempDirectory;

using testing::Check;

std::unique_ptr<BloomFilterSegmentReader> OpenBloom(const BuiltSegment& segment) {
  return testing::OpenZoneReader<BloomFilterSegmentReader>(segment);
}

using testing::ZoneAnswerOf;

ScalarQuery Query(ScalarQuery::Kind kind, std::vector<std::shared_ptr<arrow::Scalar>> values = {}) {
  ScalarQuery query;
  query.kind = kind;
  query.values = std::move(values);
  return query;
}

class BloomFilterTypes : public testing::ColumnTypeTest {};

TEST_P(BloomFilterTypes, AnswersAreSupersetsOfTheScan) {
  const auto type = GetParam();
  auto family = MakeBloomFilterFamily();
  std::mt19937_64 random(11);
  TempDirectory directory;
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(type, 1500, 0.1, random), /*rows_per_file=*/400);
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "20"}});
  EXPECT_EQ(segment.meta.family(), "BLOOMFILTER");
  EXPECT_EQ(segment.meta.num_rows(), 1500u);
  EXPECT_EQ(segment.meta.details().at("num_zones"), "75");
  EXPECT_EQ(segment.meta.details().at("value_type"), type->ToString());
  auto reader = OpenBloom(segment);
  const auto others = testing::RandomValues(type, 200, 0.0, random);
  for (int i = 0; i < 300; ++i) {
    const ScalarQuery query = testing::RandomQuery(table.column, others, random, false);
    const auto expected = testing::ReferenceRows(table, query);
    const auto answer = ZoneAnswerOf(*reader, query);
    ASSERT_TRUE(std::is_sorted(answer.begin(), answer.end()));
    ASSERT_TRUE(testing::Includes(answer, expected))
        << "query " << i << ": v " << testing::Describe(query) << " misses rows";
  }
  // Ranges are not a bloom filter's: refused, so the planner scans.
  ScalarQuery range = Query(ScalarQuery::Kind::kRange);
  range.lower = ScalarBound{Check(table.column->GetScalar(0)), true};
  EXPECT_EQ(KindOf(reader->MatchingZones(range).status()), ErrorKind::kInvalidArgument);
}

TEST_P(BloomFilterTypes, MergeOfThreeSegmentsAnswersLikeOneBuild) {
  const auto type = GetParam();
  auto family = MakeBloomFilterFamily();
  std::mt19937_64 random(5);
  TempDirectory directory;
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(type, 1200, 0.1, random), /*rows_per_file=*/200);
  const auto fragments = testing::AllFragments(*table.dataset);
  ASSERT_EQ(fragments.size(), 6u);
  const Params params = {{"rows_per_zone", "64"}, {"false_positive_rate", "0.05"}};
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
  using Details = std::map<std::string, std::string>;
  EXPECT_EQ(Details(merged.meta.details().begin(), merged.meta.details().end()),
            Details(whole.meta.details().begin(), whole.meta.details().end()));
  auto merged_reader = OpenBloom(merged);
  auto whole_reader = OpenBloom(whole);
  const auto others = testing::RandomValues(type, 100, 0.0, random);
  for (int i = 0; i < 200; ++i) {
    const ScalarQuery query = testing::RandomQuery(table.column, others, random, false);
    ASSERT_EQ(ZoneAnswerOf(*merged_reader, query), ZoneAnswerOf(*whole_reader, query))
        << "query " << i << ": v " << testing::Describe(query);
  }
}

INSTANTIATE_TEST_SUITE_P(BloomFilterAllTypes, BloomFilterTypes,
                         ::testing::Values(arrow::int8(), arrow::int16(), arrow::int32(),
                                           arrow::int64(), arrow::uint8(), arrow::uint16(),
                                           arrow::uint32(), arrow::uint64(), arrow::utf8(),
                                           arrow::large_utf8(), arrow::binary(),
                                           arrow::large_binary(), arrow::date32(),
                                           arrow::timestamp(arrow::TimeUnit::MILLI, "UTC"),
                                           arrow::timestamp(arrow::TimeUnit::NANO)),
                         testing::TypeName);

// Unique values in random order: every value is in one zone, which its lookup selects; a value
// no zone holds selects a zone about as often as the false positive rate says.
TEST(BloomFilterLookup, SelectsTheZoneOfAValueAndRarelyAnother) {
  TempDirectory directory;
  std::mt19937_64 random(3);
  std::vector<int64_t> ids(4000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i) * 2;  // even
  std::shuffle(ids.begin(), ids.end(), random);
  arrow::Int64Builder builder;
  ASSERT_OK(builder.AppendValues(ids));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  auto family = MakeBloomFilterFamily();
  const BuiltSegment segment =
      testing::BuildSegmentOf(*family, *table.dataset, testing::AllFragments(*table.dataset),
                              {{"rows_per_zone", "100"}, {"false_positive_rate", "0.01"}});
  auto reader = OpenBloom(segment);
  uint64_t present_rows = 0;
  uint64_t absent_rows = 0;
  for (int64_t value = 0; value < 2000; ++value) {
    const auto rows = ZoneAnswerOf(
        *reader, Query(ScalarQuery::Kind::kEquals, {std::make_shared<arrow::Int64Scalar>(value)}));
    (value % 2 == 0 ? present_rows : absent_rows) += rows.size();
  }
  // 1000 lookups of present values: at least their zone each, rarely more; 1000 of absent
  // values over 40 zones: about 1000 * 40 * 0.01 zones of 100 rows at the nominal rate.
  EXPECT_GE(present_rows, 1000u * 100u);
  EXPECT_LT(present_rows, 1000u * 100u * 2);
  EXPECT_LT(absent_rows, 1000u * 40u * 100u / 20) << "a false positive rate above 5%";
  // IS NULL: no zone holds a null.
  EXPECT_TRUE(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kIsNull)).empty());
}

TEST(BloomFilterLookup, EqualValuesHashEquallyAcrossStringAndBinaryLiterals) {
  TempDirectory directory;
  arrow::StringBuilder builder;
  ASSERT_OK(builder.AppendValues({"apple", "b\xc3\xa9", "", "cherry"}));
  ASSERT_OK(builder.AppendNull());
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  auto family = MakeBloomFilterFamily();
  auto reader = OpenBloom(testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "1"}}));
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  const auto row = [&](uint32_t offset) {
    return std::vector<uint64_t>{dataset::MakeRowAddress(fragment, offset)};
  };
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kEquals,
                                        {std::make_shared<arrow::StringScalar>("b\xc3\xa9")})),
            row(1));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kEquals,
                                        {std::make_shared<arrow::BinaryScalar>(
                                            arrow::Buffer::FromString("cherry"))})),
            row(3));
  EXPECT_EQ(ZoneAnswerOf(*reader,
                         Query(ScalarQuery::Kind::kIn, {std::make_shared<arrow::StringScalar>(""),
                                                        arrow::MakeNullScalar(arrow::utf8())})),
            row(2));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kIsNull)), row(4));
  auto refused = reader->MatchingZones(
      Query(ScalarQuery::Kind::kEquals, {std::make_shared<arrow::Int64Scalar>(1)}));
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidArgument);
}

// Leaves as the planner hands them: equality and IN are supersets costed from the filters in
// memory; ranges and literals of another type are kNone.
TEST(BloomFilterReader, AssessAnswersEqualitiesNotRanges) {
  TempDirectory directory;
  arrow::Int64Builder builder;
  for (int64_t i = 0; i < 1000; ++i) ASSERT_OK(builder.Append(i));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 500);
  auto family = MakeBloomFilterFamily();
  auto reader = OpenBloom(
      testing::BuildSegmentOf(*family, *table.dataset, testing::AllFragments(*table.dataset),
                              {{"rows_per_zone", "100"}, {"false_positive_rate", "0.000001"}}));
  const auto column = std::make_shared<expr::Column>("v", 0, arrow::int64(), 1);
  const auto literal = [](std::shared_ptr<arrow::Scalar> value) {
    return std::make_shared<expr::Literal>(std::move(value), 5);
  };
  const expr::Compare equal(expr::CompareOp::kEqual, column,
                            literal(std::make_shared<arrow::Int64Scalar>(555)), 1);
  const Capability capability = reader->Assess(equal);
  EXPECT_EQ(capability.coverage, Coverage::kSuperset);
  EXPECT_EQ(capability.cost, 100);  // the zone [500, 600), at a false positive rate of 1e-6
  ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer(equal));
  EXPECT_FALSE(answer.exact);
  EXPECT_EQ(answer.Addresses().front(),
            dataset::MakeRowAddress(table.dataset->manifest().fragments(1).id(), 0));
  const expr::Compare below(expr::CompareOp::kLess, column,
                            literal(std::make_shared<arrow::Int64Scalar>(5)), 1);
  EXPECT_EQ(reader->Assess(below).coverage, Coverage::kNone);
  EXPECT_EQ(KindOf(reader->Answer(below).status()), ErrorKind::kInvalidArgument);
  const expr::Compare mistyped(expr::CompareOp::kEqual, column,
                               literal(std::make_shared<arrow::StringScalar>("5")), 1);
  EXPECT_EQ(reader->Assess(mistyped).coverage, Coverage::kNone);
}

TEST(BloomFilterPlanner, ReadsAndCountsEqualTheScanBeforeAndAfterOptimize) {
  ASSERT_OK(arrow::compute::Initialize());
  std::mt19937_64 random(17);
  testing::PredicateGenerator generator(random);
  TempDirectory directory;
  ASSERT_OK_AND_ASSIGN(auto data, dataset::Dataset::Create(
                                      directory.Child("data"),
                                      testing::ReaderOf(testing::MixedFilterBatch(random, 0, 600)),
                                      testing::SmallFiles()));
  const std::vector<std::string> columns = {"id", "i64", "s", "ts"};
  for (const auto& column : columns) {
    ASSERT_OK_AND_ASSIGN(
        data,
        CreateIndex(*data, {column + "_bloom", column, "bloomfilter", {{"rows_per_zone", "16"}}}));
  }
  ASSERT_OK_AND_ASSIGN(auto summary, DescribeIndex(*data, "s_bloom"));
  EXPECT_EQ(summary.family, "BLOOMFILTER");
  EXPECT_EQ(summary.params, (Params{{"false_positive_rate", "0.01"}, {"rows_per_zone", "16"}}));
  int answered = 0;
  int queries = 0;
  const auto check = [&](const std::shared_ptr<dataset::Dataset>& dataset, int count) {
    for (int i = 0; i < count; ++i) {
      const std::string column = columns[random() % columns.size()];
      std::string filter;
      switch (i % 4) {
        case 0:
          filter = generator.Predicate(2);
          break;
        case 1:
          filter = column + " = " + generator.Literal(column);
          break;
        case 2:
          filter = column + " IN (" + generator.Literal(column) + ", " + generator.Literal(column) +
                   ", NULL)";
          break;
        default:
          filter = generator.LeafOn(column);
          break;
      }
      std::string explain;
      ASSERT_EQ(testing::PlannerDisagreement(dataset, filter, &explain), "") << filter;
      ++queries;
      if (explain.find("BLOOMFILTER index '") != std::string::npos) ++answered;
    }
  };
  ASSERT_NO_FATAL_FAILURE(check(data, 120));
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK_AND_ASSIGN(
        data,
        data->Append(testing::ReaderOf(testing::MixedFilterBatch(random, 600 + round * 200, 200)),
                     testing::SmallFiles()));
    OptimizeOptions options;
    ASSERT_OK_AND_ASSIGN(options.merge, MergePolicy::Parse(round == 0 ? "none" : "1"));
    ASSERT_OK_AND_ASSIGN(auto report, OptimizeIndexes(*data, options));
    data = report.dataset;
    EXPECT_EQ(report.segments_built, 4);
    ASSERT_NO_FATAL_FAILURE(check(data, 60));
  }
  ASSERT_OK_AND_ASSIGN(summary, DescribeIndex(*data, "id_bloom"));
  EXPECT_EQ(summary.num_segments, 1);
  EXPECT_EQ(summary.unindexed_rows, 0u);
  EXPECT_GT(answered, queries / 3) << answered << " of " << queries;
}

// ---------------------------------------------------------------------------------------------
// Definitions, builds and files that must fail.

TEST(BloomFilterValidate, NormalizesAndRejectsBadDefinitions) {
  auto family = MakeBloomFilterFamily();
  EXPECT_EQ(family->name(), "BLOOMFILTER");
  const arrow::Field column("v", arrow::utf8());
  EXPECT_EQ(Check(family->Validate(column, {})),
            (Params{{"false_positive_rate", "0.01"}, {"rows_per_zone", "4096"}}));
  EXPECT_EQ(
      Check(family->Validate(column, {{"false_positive_rate", "1e-6"}, {"rows_per_zone", "1"}})),
      (Params{{"false_positive_rate", "1e-06"}, {"rows_per_zone", "1"}}));
  EXPECT_EQ(
      Check(family->Validate(column, {{"false_positive_rate", ".5"}})).at("false_positive_rate"),
      "0.5");
  for (const char* bad : {"0", "0.51", "1e-7", "abc", "nan", "inf", "-0.1", ""}) {
    auto status = family->Validate(column, {{"false_positive_rate", bad}}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("false_positive_rate"), std::string::npos) << status.message();
  }
  for (const char* bad : {"0", "1048577", "x"}) {
    auto status = family->Validate(column, {{"rows_per_zone", bad}}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("rows_per_zone"), std::string::npos) << status.message();
  }
  auto status = family->Validate(column, {{"fpp", "0.1"}}).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("fpp"), std::string::npos) << status.message();
  for (const auto& type :
       {arrow::float64(), arrow::float32(), arrow::boolean(), arrow::list(arrow::utf8())}) {
    status = family->Validate(arrow::Field("bad_column", type), {}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << type->ToString();
    EXPECT_NE(status.message().find("bad_column"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("binary, large_binary, date32"), std::string::npos)
        << status.message();
  }
}

TEST(BloomFilterBuild, EmptySegmentsAndZonesOfNullsOnly) {
  TempDirectory directory;
  arrow::Int32Builder builder;
  ASSERT_OK(builder.AppendNulls(4));
  ASSERT_OK(builder.AppendValues({1, 2}));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  auto family = MakeBloomFilterFamily();
  const BuiltSegment empty = testing::BuildSegmentOf(*family, *table.dataset, {}, {});
  EXPECT_EQ(empty.meta.num_rows(), 0u);
  EXPECT_TRUE(ZoneAnswerOf(*OpenBloom(empty), Query(ScalarQuery::Kind::kIsNotNull)).empty());
  auto reader = OpenBloom(testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "2"}}));
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kEquals,
                                        {std::make_shared<arrow::Int32Scalar>(2)})),
            (std::vector<uint64_t>{dataset::MakeRowAddress(fragment, 4),
                                   dataset::MakeRowAddress(fragment, 5)}));
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kIsNull)).size(), 4u);
  EXPECT_EQ(ZoneAnswerOf(*reader, Query(ScalarQuery::Kind::kIsNotNull)).size(), 2u);
}

TEST(BloomFilterMergeAndVerify, RejectMismatchedSegments) {
  TempDirectory directory;
  std::mt19937_64 random(4);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::int32(), 600, 0.1, random), 200);
  const auto fragments = testing::AllFragments(*table.dataset);
  auto family = MakeBloomFilterFamily();
  const BuiltSegment a =
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[0]}, {{"rows_per_zone", "10"}});
  const BuiltSegment b =
      testing::BuildSegmentOf(*family, *table.dataset, {fragments[1]}, {{"rows_per_zone", "7"}});
  auto out = Check(NewSegmentDirectory(table.dataset->storage()));
  auto status = family->Merge({a.meta, b.meta}, {a.directory, b.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("zone sizes"), std::string::npos) << status.message();
  EXPECT_EQ(KindOf(family->Merge({a.meta, a.meta}, {a.directory, a.directory}, out).status()),
            ErrorKind::kInvalidArgument);

  BuildInput definition = testing::InputOf(*table.dataset, {}, {{"rows_per_zone", "10"}});
  EXPECT_OK(family->Verify(definition, a.meta, a.directory));
  status = family->Verify(definition, b.meta, b.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("rows_per_zone=10"), std::string::npos) << status.message();
  definition.schema = arrow::schema({arrow::field("v", arrow::int64())});
  status = family->Verify(definition, a.meta, a.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("int32"), std::string::npos) << status.message();
}

// Damaged filter bytes never drop rows: the checksums refuse the file.
TEST(BloomFilterOpen, DamagedFilterBytesAreCorruptNamingTheFile) {
  TempDirectory directory;
  std::mt19937_64 random(6);
  const auto table = testing::MakeColumnDataset(
      directory, testing::RandomValues(arrow::utf8(), 300, 0.1, random), 100);
  auto family = MakeBloomFilterFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "10"}});
  EXPECT_EQ(family->RequiredFiles(segment.meta),
            (std::vector<std::string>{"zones.arrow", "zones.arrow.crc32c"}));
  const std::string path = table.dataset->uri() + "/" + segment.directory.path + "/zones.arrow";
  const std::string original = testing::ReadBytes(path);
  const auto ranges = testing::BufferRanges(
      path, 2,
      [](const std::string& name, const arrow::ArrayData&) { return name == "bloom_filter"; });
  ASSERT_FALSE(ranges.empty());
  for (size_t i = 0; i < 4; ++i) {
    std::string damaged = original;
    const auto& range = ranges[i % ranges.size()];
    ASSERT_GT(range.length, 0u);
    const size_t at = range.offset + (i * 7919) % range.length;
    damaged[at] = static_cast<char>(damaged[at] ^ (1 << (i % 8)));
    testing::WriteBytes(path, damaged);
    auto opened = family->Open(segment.meta, segment.directory);
    ASSERT_FALSE(opened.ok()) << "damage at byte " << at;
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    EXPECT_NE(opened.status().message().find("zones.arrow"), std::string::npos)
        << opened.status().ToString();
  }
  testing::WriteBytes(path, original);
  EXPECT_OK(family->Open(segment.meta, segment.directory).status());
}

TEST(BloomFilterOpen, InconsistentFiltersAreCorrupt) {
  TempDirectory directory;
  arrow::Int64Builder builder;
  ASSERT_OK(builder.AppendValues({1, 2, 3, 4}));
  const auto table = testing::MakeColumnDataset(directory, Check(builder.Finish()), 1000);
  const uint32_t fragment = table.dataset->manifest().fragments(0).id();
  auto family = MakeBloomFilterFamily();
  const BuiltSegment segment = testing::BuildSegmentOf(
      *family, *table.dataset, testing::AllFragments(*table.dataset), {{"rows_per_zone", "2"}});
  struct Case {
    std::string name;
    std::optional<std::string> filter;  // of both zones
    std::string domain;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no filter for values", std::nullopt, "signed", "has no bloom filter"},
      {"filter of 33 bytes", std::string(33, '\xff'), "signed", "33 bytes"},
      {"filter of 16 bytes", std::string(16, '\xff'), "signed", "16 bytes"},
      {"unknown key domain", std::string(32, '\xff'), "float", "unexpected schema"},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.name);
    auto out = Check(NewSegmentDirectory(table.dataset->storage()));
    auto writer =
        Check(ZoneFileWriter::Open(out, "BLOOMFILTER", 2, BloomFilterFields(),
                                   {{"value_type", "int64"}, {"key_domain", bad.domain}}));
    for (uint32_t first : {0u, 2u}) {
      auto* filters = static_cast<arrow::LargeBinaryBuilder*>(writer->family_builder(0));
      ASSERT_OK(bad.filter ? filters->Append(*bad.filter) : filters->AppendNull());
      ASSERT_OK(writer->Append(Zone{fragment, first, 2, 0}));
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
}  // namespace tessera::index::scalar::bloomfilter_test
