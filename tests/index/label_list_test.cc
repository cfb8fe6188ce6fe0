// The LABEL_LIST family: over lists with nulls, empty lists, null elements and duplicates, its
// answers to array_has_any / array_has_all / array_contains / IS NULL equal the scan's TRUE
// rows exactly, and the scan's FALSE rows of array_has_* are what the planner derives from them
// (non-null lists outside the TRUE set); a merge answers like one build over the union; bad
// definitions and damaged files fail with precise errors.
#include "tessera/index/scalar/label_list_family.h"

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "support/damaged_segment_files.h"
#include "support/exact_answer_checks.h"
#include "support/ipc_file_surgery.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "support/type_names.h"
#include "tessera/index/scalar/label_list_segment_reader.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index::scalar::label_list_test {
namespace {

using testing::BuiltSegment;
using testing::ColumnDataset;
using testing::TempDirectory;

constexpr int kDomain = 8;
const char* kWords[kDomain] = {"red", "blue", "", "green", "Red", "\xc3\xa9", "b", "blue "};

bool IsStringElement(const arrow::DataType& element) {
  return element.id() == arrow::Type::STRING || element.id() == arrow::Type::LARGE_STRING;
}

bool IsSignedElement(const arrow::DataType& element) {
  switch (element.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
      return true;
    default:
      return false;
  }
}

const arrow::DataType& ElementOf(const arrow::DataType& list) { return *list.field(0)->type(); }

// Element `k` of the domain as filter text; k >= kDomain: values in no list (and for small
// integer types, values the type cannot hold).
std::string Literal(const arrow::DataType& element, int k) {
  if (IsStringElement(element)) {
    return k < kDomain ? "'" + std::string(kWords[k]) + "'" : "'absent'";
  }
  if (k >= kDomain) return k % 2 ? "300" : "100";
  return std::to_string(IsSignedElement(element) ? k - 3 : k);
}

// Lists of 0..4 elements of the domain: ~10% null lists, ~10% empty, ~8% null elements,
// duplicates common.
std::shared_ptr<arrow::Array> RandomLists(const std::shared_ptr<arrow::DataType>& type,
                                          int64_t rows, uint64_t seed) {
  std::mt19937_64 random(seed);
  auto builder = arrow::MakeBuilder(type).ValueOrDie();
  const bool large = type->id() == arrow::Type::LARGE_LIST;
  arrow::ArrayBuilder* values =
      large ? static_cast<arrow::LargeListBuilder*>(builder.get())->value_builder()
            : static_cast<arrow::ListBuilder*>(builder.get())->value_builder();
  const auto& element = ElementOf(*type);
  for (int64_t row = 0; row < rows; ++row) {
    const uint64_t draw = random() % 10;
    if (draw == 0) {
      EXPECT_TRUE(builder->AppendNull().ok());
      continue;
    }
    EXPECT_TRUE((large ? static_cast<arrow::LargeListBuilder*>(builder.get())->Append()
                       : static_cast<arrow::ListBuilder*>(builder.get())->Append())
                    .ok());
    const int length = draw == 1 ? 0 : static_cast<int>(1 + random() % 4);
    for (int i = 0; i < length; ++i) {
      if (random() % 12 == 0) {
        EXPECT_TRUE(values->AppendNull().ok());
        continue;
      }
      const int k = static_cast<int>(random() % kDomain);
      arrow::Status status;
      if (IsStringElement(element)) {
        status = element.id() == arrow::Type::STRING
                     ? static_cast<arrow::StringBuilder*>(values)->Append(kWords[k])
                     : static_cast<arrow::LargeStringBuilder*>(values)->Append(kWords[k]);
      } else {
        auto scalar = arrow::MakeScalar(arrow::int64(), IsSignedElement(element) ? k - 3 : k)
                          .ValueOrDie()
                          ->CastTo(element.GetSharedPtr())
                          .ValueOrDie();
        status = values->AppendScalar(*scalar);
      }
      EXPECT_TRUE(status.ok()) << status.ToString();
    }
  }
  return builder->Finish().ValueOrDie();
}

std::vector<std::string> RandomLeaves(const arrow::DataType& type, uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  const auto& element = ElementOf(type);
  const auto any = [&]() { return Literal(element, static_cast<int>(random() % (kDomain + 2))); };
  std::vector<std::string> leaves = {"v IS NULL", "array_contains(v, NULL)", "array_has_any(v, [])",
                                     "array_has_all(v, [])"};
  for (int i = 0; i < count; ++i) {
    std::string array = "[" + any();
    const int more = static_cast<int>(random() % 3);
    for (int j = 0; j < more; ++j) array += ", " + any();
    array += "]";
    switch (random() % 3) {
      case 0:
        leaves.push_back("array_has_any(v, " + array + ")");
        break;
      case 1:
        leaves.push_back("array_has_all(v, " + array + ")");
        break;
      default:
        leaves.push_back("array_contains(v, " + any() + ")");
        break;
    }
  }
  return leaves;
}

std::unique_ptr<LabelListSegmentReader> OpenLabelList(const BuiltSegment& segment) {
  auto opened = MakeLabelListFamily()->Open(segment.meta, segment.directory);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return nullptr;
  return std::unique_ptr<LabelListSegmentReader>(
      static_cast<LabelListSegmentReader*>(opened->release()));
}

std::vector<uint64_t> Minus(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Every leaf the segment accepts is exact and equals the scan; for array_has_*, the scan's
// FALSE rows (NOT leaf) are the segment's rows less its null lists and TRUE rows, which is how
// the planner derives them. Returns how many leaves it answered.
int ExpectAnswersEqualScan(const ColumnDataset& data, const BuiltSegment& segment,
                           const std::vector<std::string>& leaves) {
  auto reader = OpenLabelList(segment);
  if (reader == nullptr) return 0;
  auto every_row = testing::ScanTrueRows(data, "TRUE", &segment.meta);
  EXPECT_TRUE(every_row.ok());
  std::shared_ptr<const void> null_holder;
  auto null_leaf = testing::ParseLeaf(data, "v IS NULL", &null_holder);
  EXPECT_TRUE(null_leaf.ok());
  auto nulls = reader->Answer(**null_leaf);
  EXPECT_TRUE(nulls.ok());
  return testing::ExpectExactAnswersEqualScan(
      *reader, data, segment.meta, leaves,
      [&](const std::string& text, const expr::Node& leaf, const Capability&,
          const RowAddressSet& answer) {
        if (leaf.kind() != expr::NodeKind::kArrayHas) return;
        auto false_rows = testing::ScanTrueRows(data, "NOT " + text, &segment.meta);
        EXPECT_TRUE(false_rows.ok());
        EXPECT_EQ(*false_rows, Minus(Minus(*every_row, nulls->rows), answer.rows)) << text;
      });
}

class LabelListTypes : public testing::ColumnTypeTest {};

TEST_P(LabelListTypes, AnswersEqualTheScan) {
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomLists(GetParam(), 300, 1), 80);
  auto family = MakeLabelListFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  EXPECT_EQ(segment.meta.num_rows(), 300u);
  EXPECT_GT(ExpectAnswersEqualScan(data, segment, RandomLeaves(*GetParam(), 2, 40)), 30);
}

TEST_P(LabelListTypes, MergeAnswersLikeOneBuild) {
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomLists(GetParam(), 300, 3), 60);
  auto family = MakeLabelListFamily();
  const auto fragments = testing::AllFragments(*data.dataset);
  ASSERT_GE(fragments.size(), 4u);
  ASSERT_OK_AND_ASSIGN(auto parts,
                       testing::BuildSegmentsOfGroups(*family, *data.dataset, fragments, 2));
  ASSERT_OK_AND_ASSIGN(auto merged, testing::MergeSegments(*family, *data.dataset, parts));
  ASSERT_OK_AND_ASSIGN(auto whole, testing::BuildSegment(*family, *data.dataset, fragments, {}));
  EXPECT_EQ(merged.meta.num_rows(), whole.meta.num_rows());
  EXPECT_EQ(merged.meta.fragment_bitmap(), whole.meta.fragment_bitmap());
  for (const char* key : {"num_keys", "num_postings", "num_nulls", "key_type"}) {
    EXPECT_EQ(merged.meta.details().at(key), whole.meta.details().at(key)) << key;
  }
  EXPECT_GT(ExpectAnswersEqualScan(data, merged, RandomLeaves(*GetParam(), 4, 25)), 15);
  ExpectAnswersEqualScan(data, parts[1], RandomLeaves(*GetParam(), 5, 6));
}

// The list types a dataset stores (dataset/schema_rules.cc).
INSTANTIATE_TEST_SUITE_P(LabelListAllTypes, LabelListTypes,
                         ::testing::Values(arrow::list(arrow::utf8()), arrow::list(arrow::int64())),
                         testing::TypeName);

TEST(LabelListValidate, AcceptsListsOfIntegersAndStringsOnly) {
  auto family = MakeLabelListFamily();
  ASSERT_OK_AND_ASSIGN(auto params,
                       family->Validate(*arrow::field("tags", arrow::list(arrow::utf8())), {}));
  EXPECT_TRUE(params.empty());
  for (const auto& type :
       {arrow::utf8(), arrow::list(arrow::float64()), arrow::fixed_size_list(arrow::float32(), 4),
        arrow::list(arrow::list(arrow::utf8()))}) {
    const auto status = family->Validate(*arrow::field("tags", type), {}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << status.ToString();
    EXPECT_NE(status.message().find("'tags'"), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find("list or large_list of int8"), std::string::npos)
        << status.ToString();
  }
  const auto status =
      family
          ->Validate(*arrow::field("tags", arrow::list(arrow::utf8())), {{"max_cardinality", "10"}})
          .status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("max_cardinality"), std::string::npos) << status.ToString();
}

TEST(LabelListOpen, DamagedFilesAreCorruptNamingTheFile) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomLists(arrow::list(arrow::utf8()), 200, 8), 100);
  auto family = MakeLabelListFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  std::shared_ptr<const void> holder;
  ASSERT_OK_AND_ASSIGN(auto leaf,
                       testing::ParseLeaf(data, "array_has_any(v, ['red', 'blue'])", &holder));
  std::shared_ptr<const void> null_holder;
  ASSERT_OK_AND_ASSIGN(auto null_leaf, testing::ParseLeaf(data, "v IS NULL", &null_holder));
  testing::ExpectDamagedFilesCorruptNamingThem(
      *family, segment, directory.Child("ds"), [&](const ScalarSegmentReader& reader) {
        arrow::Status status = reader.Answer(*leaf).status();
        if (status.ok()) status = reader.Answer(*null_leaf).status();
        return status;
      });
  // A BITMAP segment is no LABEL_LIST segment.
  format::SegmentMeta wrong = segment.meta;
  wrong.set_family("BITMAP");
  EXPECT_EQ(KindOf(family->Open(wrong, segment.directory).status()), ErrorKind::kInvalidArgument);
}

TEST(LabelListVerify, ChecksTheElementType) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomLists(arrow::list(arrow::int64()), 200, 9), 100);
  auto family = MakeLabelListFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  BuildInput definition = testing::InputOf(*data.dataset, {}, {});
  EXPECT_OK(family->Verify(definition, segment.meta, segment.directory));
  definition.schema = arrow::schema({arrow::field("v", arrow::large_list(arrow::int64()))});
  EXPECT_OK(family->Verify(definition, segment.meta, segment.directory));  // same elements
  definition.schema = arrow::schema({arrow::field("v", arrow::list(arrow::utf8()))});
  const auto status = family->Verify(definition, segment.meta, segment.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("int64"), std::string::npos) << status.ToString();
}

TEST(LabelListLookup, IntegerValuesOfAnotherTypeCompareMathematically) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomLists(arrow::list(arrow::int64()), 200, 10), 100);
  auto family = MakeLabelListFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  auto reader = OpenLabelList(segment);
  ASSERT_NE(reader, nullptr);
  ASSERT_OK_AND_ASSIGN(auto three, reader->FindElement(arrow::Int64Scalar(3)));
  ASSERT_TRUE(three.has_value());
  ASSERT_OK_AND_ASSIGN(auto narrow, reader->FindElement(arrow::Int8Scalar(3)));
  EXPECT_EQ(narrow, three);
  ASSERT_OK_AND_ASSIGN(auto unsigned_three, reader->FindElement(arrow::UInt64Scalar(3)));
  EXPECT_EQ(unsigned_three, three);
  ASSERT_OK_AND_ASSIGN(auto negative, reader->FindElement(arrow::Int32Scalar(-3)));
  EXPECT_TRUE(negative.has_value());
  // 2^64 - 3 is no int64 (its low bits are those of -3).
  ASSERT_OK_AND_ASSIGN(auto huge, reader->FindElement(arrow::UInt64Scalar(~uint64_t{0} - 2)));
  EXPECT_FALSE(huge.has_value());
  ASSERT_OK_AND_ASSIGN(auto null, reader->FindElement(arrow::Int64Scalar()));
  EXPECT_FALSE(null.has_value());
  EXPECT_EQ(KindOf(reader->FindElement(arrow::DoubleScalar(3)).status()),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(KindOf(reader->FindElement(arrow::StringScalar("3")).status()),
            ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::index::scalar::label_list_test
