// The BTREE family: for every supported column type, random predicates answered by a segment
// equal Arrow compute's evaluation of the same predicate on the raw column (the unindexed
// scan's semantics, NaN and nulls included); a merge of segments answers like one build over
// the same fragments and reads no table rows; a point lookup decodes O(1) pages; bad
// definitions and bad segments fail with precise errors.
#include "tessera/index/scalar/btree_family.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/checked.h"
#include "support/random_scalar_queries.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "support/type_names.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/scalar/btree_segment_reader.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar::btree_test {
namespace {

using dataset::Dataset;
using testing::TempDirectory;

using testing::Check;

// ---------------------------------------------------------------------------------------------
// Datasets and segments. Random values, queries and their reference answers (Arrow compute on
// the raw column, as the unindexed scan evaluates them) are support/random_scalar_queries.h's.

using testing::AllFragments;
using testing::BuiltSegment;
using testing::ColumnDataset;
using testing::Describe;
using testing::InputOf;

// A one-column dataset (`v`) of `rows` random values (10% null) spread over several fragments.
ColumnDataset MakeTable(const TempDirectory& directory,
                        const std::shared_ptr<arrow::DataType>& type, int64_t rows, uint64_t seed,
                        uint64_t rows_per_file = 400) {
  std::mt19937_64 random(seed);
  return testing::MakeColumnDataset(directory, testing::RandomValues(type, rows, 0.1, random),
                                    rows_per_file);
}

BuiltSegment BuildSegment(const Dataset& dataset, const std::vector<format::Fragment>& fragments,
                          Params params = {{"page_rows", "16"}}) {
  return Check(testing::BuildSegment(*MakeBtreeFamily(), dataset, fragments, params));
}

std::unique_ptr<BtreeSegmentReader> OpenSegment(const BuiltSegment& segment) {
  auto reader = Check(MakeBtreeFamily()->Open(segment.meta, segment.directory));
  return std::unique_ptr<BtreeSegmentReader>(static_cast<BtreeSegmentReader*>(reader.release()));
}

std::vector<uint64_t> Search(const BtreeSegmentReader& reader, const ScalarQuery& query) {
  auto result = reader.Search(query);
  if (!result.ok()) throw std::runtime_error(result.status().ToString());
  if (!result->exact) throw std::runtime_error("BTREE answers must be exact");
  return result->rows;
}

// Restricts reference answers to the rows of some fragments.
std::vector<uint64_t> InFragments(std::vector<uint64_t> rows, const Roaring& fragments) {
  rows.erase(
      std::remove_if(rows.begin(), rows.end(),
                     [&](uint64_t row) { return !fragments.contains(dataset::FragmentOf(row)); }),
      rows.end());
  return rows;
}

class BtreeTypes : public testing::ColumnTypeTest {};

TEST_P(BtreeTypes, RandomQueriesMatchArrowCompute) {
  const auto type = GetParam();
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, type, 1500, /*seed=*/11);
  ASSERT_GE(table.dataset->manifest().fragments_size(), 3);

  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment segment = BuildSegment(*table.dataset, AllFragments(*table.dataset));
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load() - before, 1500u);
  EXPECT_EQ(segment.meta.family(), "BTREE");
  EXPECT_EQ(segment.meta.num_rows(), 1500u);
  EXPECT_GT(std::stoll(segment.meta.details().at("num_pages")), 10);

  auto reader = OpenSegment(segment);
  std::mt19937_64 random(/*seed=*/23);
  const auto others = testing::RandomValues(type, 200, 0.0, random);
  int answered = 0;
  for (int i = 0; i < 400; ++i) {
    const ScalarQuery query = testing::RandomQuery(table.column, others, random, /*ranges=*/true);
    const auto expected = testing::ReferenceRows(table, query);
    ASSERT_EQ(Search(*reader, query), expected) << "query " << i << ": v " << Describe(query);
    answered += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(answered, 200) << "too few queries select rows for the test to mean much";
}

TEST_P(BtreeTypes, MergeOfThreeSegmentsAnswersLikeOneBuild) {
  const auto type = GetParam();
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, type, 1200, /*seed=*/5, /*rows_per_file=*/200);
  const auto fragments = AllFragments(*table.dataset);
  ASSERT_EQ(fragments.size(), 6u);

  const BuiltSegment whole = BuildSegment(*table.dataset, fragments);
  std::vector<BuiltSegment> parts = {
      BuildSegment(*table.dataset, {fragments[4], fragments[0]}),
      BuildSegment(*table.dataset, {fragments[1], fragments[5]}),
      BuildSegment(*table.dataset, {fragments[2], fragments[3]}, {{"page_rows", "16"}})};

  const auto scanned_before = dataset::GlobalReadStatistics().rows_scanned.load();
  const auto batches_before = dataset::GlobalReadStatistics().batches_opened.load();
  const BuiltSegment merged =
      Check(testing::MergeSegments(*MakeBtreeFamily(), *table.dataset, parts));
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), scanned_before);
  EXPECT_EQ(dataset::GlobalReadStatistics().batches_opened.load(), batches_before);

  EXPECT_EQ(merged.meta.num_rows(), whole.meta.num_rows());
  EXPECT_EQ(Check(DecodeFragmentBitmap(merged.meta)), Check(DecodeFragmentBitmap(whole.meta)));
  EXPECT_EQ(merged.meta.field_id(), whole.meta.field_id());
  EXPECT_EQ(merged.meta.index_name(), "v_idx");
  using Details = std::map<std::string, std::string>;
  EXPECT_EQ(Details(merged.meta.details().begin(), merged.meta.details().end()),
            Details(whole.meta.details().begin(), whole.meta.details().end()));
  EXPECT_NE(merged.meta.uuid(), whole.meta.uuid());

  auto merged_reader = OpenSegment(merged);
  auto whole_reader = OpenSegment(whole);
  auto part_reader = OpenSegment(parts[1]);
  const Roaring part_fragments = Check(DecodeFragmentBitmap(parts[1].meta));
  std::mt19937_64 random(/*seed=*/29);
  const auto others = testing::RandomValues(type, 100, 0.0, random);
  for (int i = 0; i < 200; ++i) {
    const ScalarQuery query = testing::RandomQuery(table.column, others, random, /*ranges=*/true);
    const auto expected = testing::ReferenceRows(table, query);
    ASSERT_EQ(Search(*merged_reader, query), expected)
        << "query " << i << ": v " << Describe(query);
    ASSERT_EQ(Search(*whole_reader, query), expected) << "query " << i << ": v " << Describe(query);
    ASSERT_EQ(Search(*part_reader, query), InFragments(expected, part_fragments))
        << "query " << i << ": v " << Describe(query);
  }
}

INSTANTIATE_TEST_SUITE_P(BtreeAllTypes, BtreeTypes,
                         ::testing::Values(arrow::int8(), arrow::int16(), arrow::int32(),
                                           arrow::int64(), arrow::uint8(), arrow::uint16(),
                                           arrow::uint32(), arrow::uint64(), arrow::float16(),
                                           arrow::float32(), arrow::float64(), arrow::boolean(),
                                           arrow::utf8(), arrow::large_utf8(), arrow::binary(),
                                           arrow::large_binary(), arrow::date32(),
                                           arrow::timestamp(arrow::TimeUnit::MILLI, "UTC"),
                                           arrow::timestamp(arrow::TimeUnit::NANO)),
                         testing::TypeName);

// ---------------------------------------------------------------------------------------------
// Hand-written cases that document the semantics the planner relies on.

std::shared_ptr<arrow::Scalar> Double(double value) {
  return std::make_shared<arrow::DoubleScalar>(value);
}

ScalarQuery Equals(std::shared_ptr<arrow::Scalar> value) {
  ScalarQuery query;
  query.kind = ScalarQuery::Kind::kEquals;
  query.values = {std::move(value)};
  return query;
}

ScalarQuery In(std::vector<std::shared_ptr<arrow::Scalar>> values) {
  ScalarQuery query;
  query.kind = ScalarQuery::Kind::kIn;
  query.values = std::move(values);
  return query;
}

ScalarQuery Range(std::optional<ScalarBound> lower, std::optional<ScalarBound> upper) {
  ScalarQuery query;
  query.kind = ScalarQuery::Kind::kRange;
  query.lower = std::move(lower);
  query.upper = std::move(upper);
  return query;
}

ScalarQuery OfKind(ScalarQuery::Kind kind) {
  ScalarQuery query;
  query.kind = kind;
  return query;
}

TEST(BtreeSemantics, NanNullsAndSignedZeroFollowArrow) {
  TempDirectory directory;
  const double nan = std::nan("");
  arrow::DoubleBuilder builder;
  ASSERT_OK(builder.AppendValues({nan, 0.0, -0.0, 1.0, 0.0, 2.5}));
  ASSERT_OK(builder.AppendNull());
  auto values = Check(builder.Finish());
  auto schema = arrow::schema({arrow::field("v", arrow::float64())});
  auto created = Check(Dataset::Create(
      directory.Child("ds"), testing::ReaderOf(arrow::RecordBatch::Make(schema, 7, {values}))));
  const BuiltSegment segment = BuildSegment(*created, AllFragments(*created));
  EXPECT_EQ(segment.meta.details().at("num_nans"), "1");
  EXPECT_EQ(segment.meta.details().at("num_nulls"), "1");
  auto reader = OpenSegment(segment);
  const uint32_t fragment = created->manifest().fragments(0).id();
  auto rows = [&](std::vector<uint32_t> offsets) {
    std::vector<uint64_t> addresses;
    for (uint32_t offset : offsets) addresses.push_back(dataset::MakeRowAddress(fragment, offset));
    return addresses;
  };
  // `equal`: NaN equals nothing, -0.0 equals 0.0.
  EXPECT_EQ(Search(*reader, Equals(Double(nan))), rows({}));
  EXPECT_EQ(Search(*reader, Equals(Double(-0.0))), rows({1, 2, 4}));
  // IN is `= ANY`: NaN matches nothing, -0.0 matches both zeros.
  EXPECT_EQ(Search(*reader, In({Double(nan), Double(-0.0)})), rows({1, 2, 4}));
  EXPECT_EQ(Search(*reader, In({Double(0.0), arrow::MakeNullScalar(arrow::float64())})),
            rows({1, 2, 4}));
  // Ranges never include NaN; a NaN or null bound matches nothing.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Search(*reader, Range(ScalarBound{Double(-inf), true}, std::nullopt)),
            rows({1, 2, 3, 4, 5}));
  EXPECT_EQ(
      Search(*reader, Range(ScalarBound{Double(0.0), false}, ScalarBound{Double(2.5), false})),
      rows({3}));
  EXPECT_EQ(Search(*reader, Range(ScalarBound{Double(nan), true}, std::nullopt)), rows({}));
  EXPECT_EQ(Search(*reader,
                   Range(std::nullopt, ScalarBound{arrow::MakeNullScalar(arrow::float64()), true})),
            rows({}));
  EXPECT_EQ(Search(*reader, Range(ScalarBound{Double(2.5), true}, ScalarBound{Double(1.0), true})),
            rows({}));
  // Null tests: NaN is not null.
  EXPECT_EQ(Search(*reader, OfKind(ScalarQuery::Kind::kIsNull)), rows({6}));
  EXPECT_EQ(Search(*reader, OfKind(ScalarQuery::Kind::kIsNotNull)), rows({0, 1, 2, 3, 4, 5}));
}

TEST(BtreeSemantics, QueryValuesOfAnotherTypeAreRejected) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::int32(), 100, /*seed=*/3);
  auto reader = OpenSegment(BuildSegment(*table.dataset, AllFragments(*table.dataset)));
  auto result = reader->Search(Equals(std::make_shared<arrow::Int64Scalar>(5)));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidArgument);
  EXPECT_NE(result.status().message().find("int64"), std::string::npos);
  ScalarQuery missing = Equals(nullptr);
  EXPECT_FALSE(reader->Search(missing).ok());
  ScalarQuery two = In({});
  two.kind = ScalarQuery::Kind::kEquals;
  EXPECT_FALSE(reader->Search(two).ok());
}

TEST(BtreeLookup, PointLookupDecodesConstantPages) {
  TempDirectory directory;
  const int64_t rows = 200000;
  arrow::Int64Builder builder;
  for (int64_t i = 0; i < rows; ++i) ASSERT_OK(builder.Append((i * 7919) % rows));
  auto values = Check(builder.Finish());
  auto schema = arrow::schema({arrow::field("v", arrow::int64())});
  dataset::WriteOptions options;
  options.max_rows_per_file = 50000;
  auto created = Check(Dataset::Create(
      directory.Child("ds"), testing::ReaderOf(arrow::RecordBatch::Make(schema, rows, {values})),
      options));
  const BuiltSegment segment =
      BuildSegment(*created, AllFragments(*created), {{"page_rows", "64"}});
  ASSERT_EQ(segment.meta.details().at("num_pages"), std::to_string((rows + 63) / 64));
  auto reader = OpenSegment(segment);
  EXPECT_EQ(reader->pages_read(), 0u);  // opening reads the lookup layer only

  for (int64_t value : std::vector<int64_t>{0, 1, 777, 123456, rows - 1, rows + 5, -3}) {
    const uint64_t before = reader->pages_read();
    const auto found = Search(*reader, Equals(std::make_shared<arrow::Int64Scalar>(value)));
    EXPECT_EQ(found.size(), value >= 0 && value < rows ? 1u : 0u) << value;
    EXPECT_LE(reader->pages_read() - before, 1u) << value;
  }
  // A narrow range and a short IN list also decode only the pages they need.
  uint64_t before = reader->pages_read();
  auto found =
      Search(*reader, Range(ScalarBound{std::make_shared<arrow::Int64Scalar>(1000), true},
                            ScalarBound{std::make_shared<arrow::Int64Scalar>(1100), false}));
  EXPECT_EQ(found.size(), 100u);
  EXPECT_LE(reader->pages_read() - before, 3u);
  before = reader->pages_read();
  found = Search(
      *reader, In({std::make_shared<arrow::Int64Scalar>(5), std::make_shared<arrow::Int64Scalar>(6),
                   std::make_shared<arrow::Int64Scalar>(150000)}));
  EXPECT_EQ(found.size(), 3u);
  EXPECT_LE(reader->pages_read() - before, 2u);
}

TEST(BtreeLookup, StringsCompareBytewise) {
  TempDirectory directory;
  arrow::StringBuilder builder;
  ASSERT_OK(builder.AppendValues({"b", "\xc3\xa9", "a", "B", "", "ab"}));
  auto values = Check(builder.Finish());
  auto schema = arrow::schema({arrow::field("v", arrow::utf8())});
  auto created = Check(Dataset::Create(
      directory.Child("ds"), testing::ReaderOf(arrow::RecordBatch::Make(schema, 6, {values}))));
  auto reader = OpenSegment(BuildSegment(*created, AllFragments(*created)));
  const uint32_t fragment = created->manifest().fragments(0).id();
  // "é" (0xC3 0xA9) sorts after every ASCII string; "" before everything.
  auto found = Search(
      *reader, Range(ScalarBound{std::make_shared<arrow::StringScalar>("b"), false}, std::nullopt));
  EXPECT_EQ(found, std::vector<uint64_t>{dataset::MakeRowAddress(fragment, 1)});
  found = Search(
      *reader, Range(std::nullopt, ScalarBound{std::make_shared<arrow::StringScalar>("a"), true}));
  EXPECT_EQ(found, (std::vector<uint64_t>{dataset::MakeRowAddress(fragment, 2),
                                          dataset::MakeRowAddress(fragment, 3),
                                          dataset::MakeRowAddress(fragment, 4)}));
}

TEST(BtreeLookup, ConcurrentSearchesAgree) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::utf8(), 2000, /*seed=*/8);
  auto reader = OpenSegment(BuildSegment(*table.dataset, AllFragments(*table.dataset)));
  std::mt19937_64 random(/*seed=*/31);
  const auto others = testing::RandomValues(arrow::utf8(), 50, 0.0, random);
  std::vector<ScalarQuery> queries;
  std::vector<std::vector<uint64_t>> expected;
  for (int i = 0; i < 100; ++i) {
    queries.push_back(testing::RandomQuery(table.column, others, random, /*ranges=*/true));
    expected.push_back(Search(*reader, queries.back()));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        for (size_t i = 0; i < queries.size(); ++i) {
          const size_t q = (i * 7 + static_cast<size_t>(t)) % queries.size();
          auto result = reader->Search(queries[q]);
          if (!result.ok() || result->rows != expected[q]) ++mismatches;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// ---------------------------------------------------------------------------------------------
// Definitions, builds and merges that must fail.

TEST(BtreeValidate, NormalizesParameters) {
  auto family = MakeBtreeFamily();
  EXPECT_EQ(family->name(), "BTREE");
  const arrow::Field column("v", arrow::int64());
  EXPECT_EQ(Check(family->Validate(column, {})), (Params{{"page_rows", "4096"}}));
  EXPECT_EQ(Check(family->Validate(column, {{"page_rows", "16"}})), (Params{{"page_rows", "16"}}));
  EXPECT_EQ(Check(family->Validate(column, {{"page_rows", "1048576"}})),
            (Params{{"page_rows", "1048576"}}));
}

TEST(BtreeValidate, RejectsUnsupportedTypesAndBadParameters) {
  auto family = MakeBtreeFamily();
  const arrow::Field vector_column("embedding", arrow::fixed_size_list(arrow::float32(), 4));
  auto status = family->Validate(vector_column, {}).status();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported);
  EXPECT_NE(status.message().find("embedding"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("fixed_size_list"), std::string::npos) << status.message();
  status = family->Validate(arrow::Field("tags", arrow::list(arrow::utf8())), {}).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported);

  const arrow::Field column("v", arrow::utf8());
  for (const char* bad : {"8", "0", "-1", "abc", "1048577", "16x", ""}) {
    status = family->Validate(column, {{"page_rows", bad}}).status();
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("page_rows"), std::string::npos) << status.message();
  }
  status = family->Validate(column, {{"num_partitions", "4"}}).status();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("num_partitions"), std::string::npos) << status.message();
}

TEST(BtreeBuild, RejectsUnsupportedColumnsAndDuplicateFragments) {
  TempDirectory directory;
  auto created = Check(Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 100)));
  auto family = MakeBtreeFamily();
  BuildInput input = InputOf(*created, AllFragments(*created));
  input.column_index = 3;  // the vector column
  auto out = Check(NewSegmentDirectory(created->storage()));
  auto status = family->Build(input, nullptr, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported);
  input.column_index = 0;
  input.fragments.push_back(input.fragments.front());
  status = family->Build(input, nullptr, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
}

TEST(BtreeBuild, EmptyFragmentListBuildsAnEmptySegment) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::utf8(), 50, /*seed=*/1);
  const BuiltSegment segment = BuildSegment(*table.dataset, {});
  EXPECT_EQ(segment.meta.num_rows(), 0u);
  auto reader = OpenSegment(segment);
  EXPECT_TRUE(Search(*reader, Equals(std::make_shared<arrow::StringScalar>("a"))).empty());
  EXPECT_TRUE(Search(*reader, OfKind(ScalarQuery::Kind::kIsNotNull)).empty());
  EXPECT_TRUE(Search(*reader, OfKind(ScalarQuery::Kind::kIsNull)).empty());
}

TEST(BtreeBuild, IncrementalBuildReadsOnlyItsFragments) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::int64(), 1000, /*seed=*/2, 250);
  const auto fragments = AllFragments(*table.dataset);
  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment segment = BuildSegment(*table.dataset, {fragments.back()});
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load() - before,
            fragments.back().physical_rows());
  EXPECT_EQ(Check(DecodeFragmentBitmap(segment.meta)).cardinality(), 1u);
  EXPECT_EQ(segment.meta.dataset_version(), table.dataset->version());
}

TEST(BtreeMerge, RejectsOverlappingOrForeignSegments) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::int64(), 600, /*seed=*/4, 200);
  const auto fragments = AllFragments(*table.dataset);
  const BuiltSegment a = BuildSegment(*table.dataset, {fragments[0], fragments[1]});
  const BuiltSegment b = BuildSegment(*table.dataset, {fragments[1], fragments[2]});
  auto family = MakeBtreeFamily();
  auto out = Check(NewSegmentDirectory(table.dataset->storage()));
  auto status = family->Merge({a.meta, b.meta}, {a.directory, b.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);

  format::SegmentMeta foreign = b.meta;
  foreign.set_family("IVF_FLAT");
  status = family->Merge({a.meta, foreign}, {a.directory, b.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  format::SegmentMeta other_field = b.meta;
  other_field.set_field_id(a.meta.field_id() + 1);
  status = family->Merge({a.meta, other_field}, {a.directory, b.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  status = family->Merge({}, {}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
}

TEST(BtreeOpen, DamagedFilesAreCorruptNotFatal) {
  TempDirectory directory;
  const ColumnDataset table = MakeTable(directory, arrow::utf8(), 300, /*seed=*/6);
  const BuiltSegment segment = BuildSegment(*table.dataset, AllFragments(*table.dataset));
  auto family = MakeBtreeFamily();
  for (const char* file : {"pages.arrow", "lookup.arrow", "nulls.arrow"}) {
    const std::string path = segment.directory.path + "/" + file;
    const std::string original = Check(table.dataset->storage()->ReadFile(path))->ToString();
    ASSERT_OK(table.dataset->storage()->WriteFile(path, "not an arrow file"));
    auto opened = family->Open(segment.meta, segment.directory);
    ASSERT_FALSE(opened.ok()) << file;
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kCorrupt) << opened.status().ToString();
    ASSERT_OK(table.dataset->storage()->WriteFile(path, original));
  }
  EXPECT_TRUE(family->Open(segment.meta, segment.directory).ok());
  format::SegmentMeta wrong = segment.meta;
  wrong.set_family("IVF_FLAT");
  EXPECT_EQ(KindOf(family->Open(wrong, segment.directory).status()), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::index::scalar::btree_test
