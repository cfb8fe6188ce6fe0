// The BTREE family: for every supported column type, random predicates answered by a segment
// equal Arrow compute's evaluation of the same predicate on the raw column (the unindexed
// scan's semantics, NaN and nulls included); a merge of segments answers like one build over
// the same fragments and reads no table rows; a point lookup decodes O(1) pages; bad
// definitions and bad segments fail with precise errors.
#include "tessera/index/scalar/btree_family.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/initialize.h>
#include <arrow/util/float16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/status_assertions.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/scalar/btree_segment_reader.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar {
namespace {

namespace compute = arrow::compute;
using dataset::Dataset;
using testing::TempDirectory;

template <typename T>
T Check(arrow::Result<T> result) {
  if (!result.ok()) throw std::runtime_error(result.status().ToString());
  return std::move(result).ValueUnsafe();
}

void Check(const arrow::Status& status) {
  if (!status.ok()) throw std::runtime_error(status.ToString());
}

// ---------------------------------------------------------------------------------------------
// Random columns with nulls, duplicates, extremes and (floats) NaN, ±0 and ±Inf.

class ValueGenerator {
 public:
  explicit ValueGenerator(uint64_t seed) : random_(seed) {}

  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  int64_t Uniform(int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random_);
  }

  std::shared_ptr<arrow::Array> Array(const std::shared_ptr<arrow::DataType>& type, int64_t rows,
                                      double null_fraction) {
    auto builder = Check(arrow::MakeBuilder(type));
    for (int64_t i = 0; i < rows; ++i) {
      if (Chance(null_fraction)) {
        Check(builder->AppendNull());
      } else {
        Append(type, builder.get());
      }
    }
    return Check(builder->Finish());
  }

 private:
  template <typename Limits>
  int64_t Signed() {
    if (Chance(0.05)) return std::numeric_limits<Limits>::min();
    if (Chance(0.05)) return std::numeric_limits<Limits>::max();
    return Uniform(-40, 40);
  }
  template <typename Limits>
  uint64_t Unsigned() {
    if (Chance(0.05)) return std::numeric_limits<Limits>::max();
    return static_cast<uint64_t>(Uniform(0, 80));
  }
  double Real() {
    if (Chance(0.06)) return std::nan("");
    if (Chance(0.04)) return -0.0;
    if (Chance(0.04)) return 0.0;
    if (Chance(0.02)) return std::numeric_limits<double>::infinity();
    if (Chance(0.02)) return -std::numeric_limits<double>::infinity();
    return static_cast<double>(Uniform(-40, 40)) / 4;
  }
  std::string Text(bool binary) {
    static const char* kUtf8Pieces[] = {"a", "b", "ab", "\xc3\xa9", "z", "A", " "};
    static const char* kBinaryPieces[] = {"a", "\x7f", "\x80", "\xff", "b"};
    std::string text;
    const int64_t length = Uniform(0, 3);
    for (int64_t i = 0; i < length; ++i) {
      text += binary ? std::string(kBinaryPieces[Uniform(0, 4)]) : kUtf8Pieces[Uniform(0, 6)];
    }
    if (binary && Chance(0.1)) text.push_back('\0');
    return text;
  }

  void Append(const std::shared_ptr<arrow::DataType>& type, arrow::ArrayBuilder* builder) {
    switch (type->id()) {
      case arrow::Type::INT8:
        return Check(static_cast<arrow::Int8Builder*>(builder)->Append(
            static_cast<int8_t>(Signed<int8_t>())));
      case arrow::Type::INT16:
        return Check(static_cast<arrow::Int16Builder*>(builder)->Append(
            static_cast<int16_t>(Signed<int16_t>())));
      case arrow::Type::INT32:
        return Check(static_cast<arrow::Int32Builder*>(builder)->Append(
            static_cast<int32_t>(Signed<int32_t>())));
      case arrow::Type::INT64:
        return Check(static_cast<arrow::Int64Builder*>(builder)->Append(Signed<int64_t>()));
      case arrow::Type::UINT8:
        return Check(static_cast<arrow::UInt8Builder*>(builder)->Append(
            static_cast<uint8_t>(Unsigned<uint8_t>())));
      case arrow::Type::UINT16:
        return Check(static_cast<arrow::UInt16Builder*>(builder)->Append(
            static_cast<uint16_t>(Unsigned<uint16_t>())));
      case arrow::Type::UINT32:
        return Check(static_cast<arrow::UInt32Builder*>(builder)->Append(
            static_cast<uint32_t>(Unsigned<uint32_t>())));
      case arrow::Type::UINT64:
        return Check(static_cast<arrow::UInt64Builder*>(builder)->Append(Unsigned<uint64_t>()));
      case arrow::Type::HALF_FLOAT:
        return Check(static_cast<arrow::HalfFloatBuilder*>(builder)->Append(
            arrow::util::Float16::FromDouble(Real()).bits()));
      case arrow::Type::FLOAT:
        return Check(
            static_cast<arrow::FloatBuilder*>(builder)->Append(static_cast<float>(Real())));
      case arrow::Type::DOUBLE:
        return Check(static_cast<arrow::DoubleBuilder*>(builder)->Append(Real()));
      case arrow::Type::BOOL:
        return Check(static_cast<arrow::BooleanBuilder*>(builder)->Append(Chance(0.5)));
      case arrow::Type::STRING:
        return Check(static_cast<arrow::StringBuilder*>(builder)->Append(Text(false)));
      case arrow::Type::LARGE_STRING:
        return Check(static_cast<arrow::LargeStringBuilder*>(builder)->Append(Text(false)));
      case arrow::Type::BINARY:
        return Check(static_cast<arrow::BinaryBuilder*>(builder)->Append(Text(true)));
      case arrow::Type::LARGE_BINARY:
        return Check(static_cast<arrow::LargeBinaryBuilder*>(builder)->Append(Text(true)));
      case arrow::Type::DATE32:
        return Check(static_cast<arrow::Date32Builder*>(builder)->Append(
            static_cast<int32_t>(Signed<int32_t>())));
      case arrow::Type::TIMESTAMP:
        return Check(static_cast<arrow::TimestampBuilder*>(builder)->Append(
            Chance(0.1) ? Signed<int64_t>() : Uniform(-40, 40) * 1000));
      default:
        throw std::runtime_error("no generator for " + type->ToString());
    }
  }

  std::mt19937_64 random_;
};

// ---------------------------------------------------------------------------------------------
// The reference: the predicate evaluated with Arrow compute on the raw column, as the unindexed
// scan evaluates it (float16 widened to float32 first, IN as `= ANY`: an OR of equalities).

std::shared_ptr<arrow::DataType> KernelType(const std::shared_ptr<arrow::DataType>& type) {
  return type->id() == arrow::Type::HALF_FLOAT ? arrow::float32() : type;
}

std::shared_ptr<arrow::Scalar> KernelScalar(const std::shared_ptr<arrow::Scalar>& value) {
  if (value->type->id() != arrow::Type::HALF_FLOAT) return value;
  if (!value->is_valid) return arrow::MakeNullScalar(arrow::float32());
  const auto bits = static_cast<const arrow::HalfFloatScalar&>(*value).value;
  return std::make_shared<arrow::FloatScalar>(arrow::util::Float16::FromBits(bits).ToFloat());
}

std::vector<uint64_t> Reference(const std::shared_ptr<arrow::Array>& raw,
                                const arrow::UInt64Array& addresses, const ScalarQuery& query) {
  const auto column = Check(compute::Cast(*raw, KernelType(raw->type())));
  arrow::Datum truth;
  switch (query.kind) {
    case ScalarQuery::Kind::kEquals:
      truth = Check(compute::CallFunction("equal", {column, KernelScalar(query.values[0])}));
      break;
    case ScalarQuery::Kind::kIn: {
      // `= ANY`: an OR of equalities (a null value adds no TRUE row).
      truth = Check(arrow::MakeArrayFromScalar(arrow::BooleanScalar(false), column->length()));
      for (const auto& value : query.values) {
        if (!value->is_valid) continue;
        auto equal = Check(compute::CallFunction("equal", {column, KernelScalar(value)}));
        truth = Check(compute::CallFunction("or_kleene", {truth, equal}));
      }
      break;
    }
    case ScalarQuery::Kind::kRange: {
      truth = Check(compute::CallFunction("is_valid", {column}));
      if (query.lower) {
        auto lower =
            Check(compute::CallFunction(query.lower->inclusive ? "greater_equal" : "greater",
                                        {column, KernelScalar(query.lower->value)}));
        truth = Check(compute::CallFunction("and_kleene", {truth, lower}));
      }
      if (query.upper) {
        auto upper = Check(compute::CallFunction(query.upper->inclusive ? "less_equal" : "less",
                                                 {column, KernelScalar(query.upper->value)}));
        truth = Check(compute::CallFunction("and_kleene", {truth, upper}));
      }
      break;
    }
    case ScalarQuery::Kind::kIsNull:
      truth = Check(compute::CallFunction("is_null", {column}));
      break;
    case ScalarQuery::Kind::kIsNotNull:
      truth = Check(compute::CallFunction("is_valid", {column}));
      break;
  }
  const auto selected = std::static_pointer_cast<arrow::BooleanArray>(truth.make_array());
  std::vector<uint64_t> rows;
  for (int64_t i = 0; i < selected->length(); ++i) {
    if (selected->IsValid(i) && selected->Value(i)) rows.push_back(addresses.Value(i));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string Describe(const ScalarQuery& query) {
  auto text = [](const std::shared_ptr<arrow::Scalar>& value) {
    return value == nullptr ? std::string("<none>") : value->ToString();
  };
  switch (query.kind) {
    case ScalarQuery::Kind::kEquals:
      return "= " + text(query.values[0]);
    case ScalarQuery::Kind::kIn: {
      std::string list;
      for (const auto& value : query.values) list += text(value) + ", ";
      return "IN (" + list + ")";
    }
    case ScalarQuery::Kind::kRange:
      return std::string(query.lower ? (query.lower->inclusive ? "[" : "(") : "(-") +
             (query.lower ? text(query.lower->value) : "") + ", " +
             (query.upper ? text(query.upper->value) : "") +
             (query.upper ? (query.upper->inclusive ? "]" : ")") : "-)");
    case ScalarQuery::Kind::kIsNull:
      return "IS NULL";
    case ScalarQuery::Kind::kIsNotNull:
      return "IS NOT NULL";
  }
  return "?";
}

// Query values: mostly values of the column (so that equalities hit), sometimes other values of
// the type, sometimes null.
class QueryGenerator {
 public:
  QueryGenerator(std::shared_ptr<arrow::Array> column, std::shared_ptr<arrow::Array> others,
                 ValueGenerator* random)
      : column_(std::move(column)), others_(std::move(others)), random_(random) {}

  std::shared_ptr<arrow::Scalar> Value() {
    if (random_->Chance(0.03)) return arrow::MakeNullScalar(column_->type());
    const auto& source = random_->Chance(0.7) ? column_ : others_;
    return Check(source->GetScalar(random_->Uniform(0, source->length() - 1)));
  }

  ScalarBound Bound() { return ScalarBound{Value(), random_->Chance(0.5)}; }

  ScalarQuery Query() {
    ScalarQuery query;
    const int64_t pick = random_->Uniform(0, 99);
    if (pick < 25) {
      query.kind = ScalarQuery::Kind::kEquals;
      query.values.push_back(Value());
    } else if (pick < 45) {
      query.kind = ScalarQuery::Kind::kIn;
      const int64_t count = random_->Uniform(0, 5);
      for (int64_t i = 0; i < count; ++i) query.values.push_back(Value());
    } else if (pick < 85) {
      query.kind = ScalarQuery::Kind::kRange;
      const int64_t sides = random_->Uniform(0, 2);  // lower, upper, both
      if (sides != 1) query.lower = Bound();
      if (sides != 0) query.upper = Bound();
    } else if (pick < 92) {
      query.kind = ScalarQuery::Kind::kIsNull;
    } else {
      query.kind = ScalarQuery::Kind::kIsNotNull;
    }
    return query;
  }

 private:
  std::shared_ptr<arrow::Array> column_;
  std::shared_ptr<arrow::Array> others_;
  ValueGenerator* random_;
};

// ---------------------------------------------------------------------------------------------
// Datasets and segments.

struct TestTable {
  std::shared_ptr<Dataset> dataset;
  std::shared_ptr<arrow::Array> column;           // in scan order
  std::shared_ptr<arrow::UInt64Array> addresses;  // parallel to column
};

// A one-column dataset (`v`) of `rows` random values spread over several fragments.
TestTable MakeTable(const TempDirectory& directory, const std::shared_ptr<arrow::DataType>& type,
                    int64_t rows, uint64_t seed, uint64_t rows_per_file = 400) {
  ValueGenerator random(seed);
  auto values = random.Array(type, rows, 0.1);
  auto schema = arrow::schema({arrow::field("v", type)});
  dataset::WriteOptions options;
  options.max_rows_per_file = rows_per_file;
  options.rows_per_batch = 128;
  TestTable table;
  table.dataset = Check(Dataset::Create(
      directory.Child("ds"), testing::ReaderOf(arrow::RecordBatch::Make(schema, rows, {values})),
      options));
  dataset::ScanOptions scan;
  scan.with_row_address = true;
  auto scanned = Check(Check(table.dataset->ScanToTable(scan))->CombineChunks());
  table.column = scanned->GetColumnByName("v")->chunk(0);
  table.addresses = std::static_pointer_cast<arrow::UInt64Array>(
      scanned->GetColumnByName(dataset::kRowAddressColumn)->chunk(0));
  return table;
}

BuildInput InputOf(const Dataset& dataset, const std::vector<format::Fragment>& fragments,
                   Params params = {}) {
  BuildInput input;
  input.storage = dataset.storage();
  input.schema = dataset.schema();
  input.column_index = 0;
  input.field_id = dataset.field_ids()[0];
  input.dataset_version = dataset.version();
  input.fragments = fragments;
  input.index_name = "v_idx";
  input.params = std::move(params);
  return input;
}

std::vector<format::Fragment> AllFragments(const Dataset& dataset) {
  return {dataset.manifest().fragments().begin(), dataset.manifest().fragments().end()};
}

struct BuiltSegment {
  format::SegmentMeta meta;
  SegmentDirectory directory;
};

BuiltSegment BuildSegment(const Dataset& dataset, const std::vector<format::Fragment>& fragments,
                          Params params = {{"page_rows", "16"}}) {
  auto family = MakeBtreeFamily();
  const BuildInput input = InputOf(dataset, fragments, params);
  const Params normalized = Check(family->Validate(*dataset.schema()->field(0), params));
  BuildInput validated = input;
  validated.params = normalized;
  BuiltSegment built;
  built.directory = Check(NewSegmentDirectory(dataset.storage()));
  built.meta = Check(family->Build(validated, nullptr, built.directory));
  return built;
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

class BtreeTypes : public ::testing::TestWithParam<std::shared_ptr<arrow::DataType>> {
 protected:
  void SetUp() override { ASSERT_OK(compute::Initialize()); }
};

std::string TypeName(const ::testing::TestParamInfo<std::shared_ptr<arrow::DataType>>& info) {
  std::string name;
  for (char c : info.param->ToString()) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

TEST_P(BtreeTypes, RandomQueriesMatchArrowCompute) {
  const auto type = GetParam();
  TempDirectory directory;
  const TestTable table = MakeTable(directory, type, 1500, /*seed=*/11);
  ASSERT_GE(table.dataset->manifest().fragments_size(), 3);

  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment segment = BuildSegment(*table.dataset, AllFragments(*table.dataset));
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load() - before, 1500u);
  EXPECT_EQ(segment.meta.family(), "BTREE");
  EXPECT_EQ(segment.meta.num_rows(), 1500u);
  EXPECT_GT(std::stoll(segment.meta.details().at("num_pages")), 10);

  auto reader = OpenSegment(segment);
  ValueGenerator random(/*seed=*/23);
  QueryGenerator queries(table.column, random.Array(type, 200, 0.0), &random);
  int answered = 0;
  for (int i = 0; i < 400; ++i) {
    const ScalarQuery query = queries.Query();
    const auto expected = Reference(table.column, *table.addresses, query);
    ASSERT_EQ(Search(*reader, query), expected) << "query " << i << ": v " << Describe(query);
    answered += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(answered, 200) << "too few queries select rows for the test to mean much";
}

TEST_P(BtreeTypes, MergeOfThreeSegmentsAnswersLikeOneBuild) {
  const auto type = GetParam();
  TempDirectory directory;
  const TestTable table = MakeTable(directory, type, 1200, /*seed=*/5, /*rows_per_file=*/200);
  const auto fragments = AllFragments(*table.dataset);
  ASSERT_EQ(fragments.size(), 6u);

  const BuiltSegment whole = BuildSegment(*table.dataset, fragments);
  std::vector<BuiltSegment> parts = {
      BuildSegment(*table.dataset, {fragments[4], fragments[0]}),
      BuildSegment(*table.dataset, {fragments[1], fragments[5]}),
      BuildSegment(*table.dataset, {fragments[2], fragments[3]}, {{"page_rows", "16"}})};

  auto family = MakeBtreeFamily();
  std::vector<format::SegmentMeta> metas;
  std::vector<SegmentDirectory> dirs;
  for (const auto& part : parts) {
    metas.push_back(part.meta);
    dirs.push_back(part.directory);
  }
  BuiltSegment merged;
  merged.directory = Check(NewSegmentDirectory(table.dataset->storage()));
  const auto scanned_before = dataset::GlobalReadStatistics().rows_scanned.load();
  const auto batches_before = dataset::GlobalReadStatistics().batches_opened.load();
  merged.meta = Check(family->Merge(metas, dirs, merged.directory));
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
  ValueGenerator random(/*seed=*/29);
  QueryGenerator queries(table.column, random.Array(type, 100, 0.0), &random);
  for (int i = 0; i < 200; ++i) {
    const ScalarQuery query = queries.Query();
    const auto expected = Reference(table.column, *table.addresses, query);
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
                         TypeName);

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
  const TestTable table = MakeTable(directory, arrow::int32(), 100, /*seed=*/3);
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
  const TestTable table = MakeTable(directory, arrow::utf8(), 2000, /*seed=*/8);
  auto reader = OpenSegment(BuildSegment(*table.dataset, AllFragments(*table.dataset)));
  ValueGenerator random(/*seed=*/31);
  QueryGenerator generator(table.column, random.Array(arrow::utf8(), 50, 0.0), &random);
  std::vector<ScalarQuery> queries;
  std::vector<std::vector<uint64_t>> expected;
  for (int i = 0; i < 100; ++i) {
    queries.push_back(generator.Query());
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
  const TestTable table = MakeTable(directory, arrow::utf8(), 50, /*seed=*/1);
  const BuiltSegment segment = BuildSegment(*table.dataset, {});
  EXPECT_EQ(segment.meta.num_rows(), 0u);
  auto reader = OpenSegment(segment);
  EXPECT_TRUE(Search(*reader, Equals(std::make_shared<arrow::StringScalar>("a"))).empty());
  EXPECT_TRUE(Search(*reader, OfKind(ScalarQuery::Kind::kIsNotNull)).empty());
  EXPECT_TRUE(Search(*reader, OfKind(ScalarQuery::Kind::kIsNull)).empty());
}

TEST(BtreeBuild, IncrementalBuildReadsOnlyItsFragments) {
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::int64(), 1000, /*seed=*/2, 250);
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
  const TestTable table = MakeTable(directory, arrow::int64(), 600, /*seed=*/4, 200);
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
  const TestTable table = MakeTable(directory, arrow::utf8(), 300, /*seed=*/6);
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
}  // namespace tessera::index::scalar
