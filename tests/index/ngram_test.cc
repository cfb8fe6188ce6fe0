// The NGRAM family (index/scalar/ngram_family.h): over random strings (nulls, empty strings,
// repeated letters, mixed case, non-ASCII letters, '%', '_' and backslashes in the data), every
// contains / starts_with / LIKE / ILIKE leaf a segment answers is a superset of the rows the
// filter evaluator finds TRUE, holds no null row, and after the recheck equals them; leaves it
// cannot narrow are kNone; a merge answers like one build over the same fragments; bad
// definitions and damaged files fail with precise errors.
#include "tessera/index/scalar/ngram_family.h"

#include <arrow/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/checked.h"
#include "support/damaged_segment_files.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/string_literals.h"
#include "support/table_builders.h"
#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/expr/filter.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/scalar/ngram_segment_reader.h"
#include "tessera/index/scalar_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"
#include "tessera/status.h"

namespace tessera::index::scalar::ngram_test {
namespace {

using dataset::Dataset;
using testing::TempDirectory;

using testing::Check;

// Characters of values and patterns, one code point each.
const std::vector<std::string>& Alphabet() {
  static const std::vector<std::string> alphabet = {
      "a",
      "b",
      "c",
      "A",
      "B",
      "C",
      "k",
      "K",
      "s",
      "S",
      " ",
      "%",
      "_",
      "\\",
      "\xE2\x84\xAA",  // KELVIN SIGN
      "\xC5\xBF",      // LONG S
      "\xC3\xA9",      // é
      "\xC3\x89",      // É
  };
  return alphabet;
}

class TextGenerator {
 public:
  explicit TextGenerator(uint64_t seed) : random_(seed) {}
  int Pick(int n) { return static_cast<int>(random_() % static_cast<uint64_t>(n)); }

  // A value as code points: empty sometimes, a few letters of the alphabet repeated.
  std::vector<std::string> Value() {
    std::vector<std::string> value;
    if (Pick(12) == 0) return value;
    const int length = 1 + Pick(12);
    const int size = static_cast<int>(Alphabet().size());
    const int first = Pick(size);
    const int letters = 1 + Pick(5);
    for (int i = 0; i < length; ++i) {
      value.push_back(Alphabet()[static_cast<size_t>((first + Pick(letters)) % size)]);
    }
    return value;
  }

  // A piece of `value`, sometimes with ASCII letters in the other case.
  std::string Piece(const std::vector<std::string>& value) {
    if (value.empty()) return "";
    const int begin = Pick(static_cast<int>(value.size()));
    const int length = 1 + Pick(std::min(6, static_cast<int>(value.size()) - begin));
    std::string piece;
    for (int i = begin; i < begin + length; ++i) {
      std::string point = value[static_cast<size_t>(i)];
      const unsigned char c = static_cast<unsigned char>(point[0]);
      if (point.size() == 1 && std::isalpha(c) && Pick(4) == 0) {
        point[0] = static_cast<char>(std::isupper(c) ? std::tolower(c) : std::toupper(c));
      }
      piece += point;
    }
    return piece;
  }

  // A pattern: pieces of `value`, % and _ wildcards.
  std::string Pattern(const std::vector<std::string>& value) {
    switch (Pick(6)) {
      case 0:
        return "%" + testing::EscapedForLike(Piece(value)) + "%";
      case 1:
        return testing::EscapedForLike(Piece(value)) + "%";
      default:
        break;
    }
    std::string pattern;
    const int parts = 1 + Pick(4);
    for (int part = 0; part < parts; ++part) {
      const int kind = Pick(5);
      if (kind == 0) {
        pattern += "%";
      } else if (kind == 1) {
        pattern += "_";
      } else {
        pattern += testing::EscapedForLike(Piece(value));
      }
    }
    return pattern;
  }

 private:
  std::mt19937_64 random_;
};

using testing::FilterLiteral;
using testing::TextOf;

struct TestTable {
  std::shared_ptr<Dataset> dataset;
  std::vector<std::vector<std::string>> values;   // code points of each row (null: empty)
  std::shared_ptr<arrow::RecordBatch> scanned;    // column v and _rowaddr, in scan order
  std::shared_ptr<arrow::UInt64Array> addresses;  // of scanned
};

// A one-column dataset (`v`, of `type`) of random strings, 10% null, over several fragments.
TestTable MakeTable(const TempDirectory& directory, const std::shared_ptr<arrow::DataType>& type,
                    int64_t rows, uint64_t seed, uint64_t rows_per_file = 300) {
  TextGenerator random(seed);
  TestTable table;
  auto builder = Check(arrow::MakeBuilder(type));
  for (int64_t i = 0; i < rows; ++i) {
    if (random.Pick(10) == 0) {
      Check(builder->AppendNull());
      table.values.emplace_back();
      continue;
    }
    table.values.push_back(random.Value());
    const std::string text = TextOf(table.values.back());
    if (type->id() == arrow::Type::LARGE_STRING) {
      Check(static_cast<arrow::LargeStringBuilder*>(builder.get())->Append(text));
    } else {
      Check(static_cast<arrow::StringBuilder*>(builder.get())->Append(text));
    }
  }
  auto values = Check(builder->Finish());
  auto schema = arrow::schema({arrow::field("v", type)});
  dataset::WriteOptions options;
  options.max_rows_per_file = rows_per_file;
  options.rows_per_batch = 128;
  table.dataset = Check(Dataset::Create(
      directory.Child("ds"), testing::ReaderOf(arrow::RecordBatch::Make(schema, rows, {values})),
      options));
  dataset::ScanOptions scan;
  scan.with_row_address = true;
  auto scanned = Check(Check(table.dataset->ScanToTable(scan))->CombineChunks());
  table.scanned = Check(arrow::TableBatchReader(*scanned).Next());
  table.addresses = std::static_pointer_cast<arrow::UInt64Array>(
      table.scanned->GetColumnByName(dataset::kRowAddressColumn));
  return table;
}

using testing::AllFragments;
using testing::BuiltSegment;
using testing::InputOf;

BuiltSegment BuildSegment(const Dataset& dataset, const std::vector<format::Fragment>& fragments,
                          const Params& params) {
  return Check(testing::BuildSegment(*MakeNgramFamily(), dataset, fragments, params));
}

std::unique_ptr<NgramSegmentReader> OpenSegment(const BuiltSegment& segment) {
  auto reader = Check(MakeNgramFamily()->Open(segment.meta, segment.directory));
  return std::unique_ptr<NgramSegmentReader>(static_cast<NgramSegmentReader*>(reader.release()));
}

// A random substring leaf on v, built from the values of `table`.
std::string RandomLeaf(TextGenerator& random, const TestTable& table) {
  const auto& source =
      table.values[static_cast<size_t>(random.Pick(static_cast<int>(table.values.size())))];
  switch (random.Pick(5)) {
    case 0:
      return "contains(v, " + FilterLiteral(random.Piece(source)) + ")";
    case 1:
      return "starts_with(v, " + FilterLiteral(random.Piece(source)) + ")";
    case 2:
      return "v ILIKE " + FilterLiteral(random.Pattern(source));
    default:
      return "v LIKE " + FilterLiteral(random.Pattern(source));
  }
}

struct Outcome {
  std::vector<uint64_t> expected;  // rows where the leaf is TRUE, ascending
  bool answered = false;
  std::vector<uint64_t> candidates;
};

// What the scan says, and what the segment says, for `text` on the rows of `fragments`.
Outcome Evaluate(const TestTable& table, const NgramSegmentReader& reader, const std::string& text,
                 const Roaring& fragments) {
  Outcome outcome;
  auto filter = Check(expr::Filter::Parse(text, table.dataset->schema()));
  auto truth = Check(filter->Evaluate(*table.scanned));
  for (int64_t i = 0; i < truth->length(); ++i) {
    const uint64_t row = table.addresses->Value(i);
    if (truth->IsValid(i) && truth->Value(i) && fragments.contains(dataset::FragmentOf(row))) {
      outcome.expected.push_back(row);
    }
  }
  std::sort(outcome.expected.begin(), outcome.expected.end());
  const expr::Node& leaf = filter->root();
  EXPECT_NE(LeafColumn(leaf), nullptr) << text;
  const Capability capability = reader.Assess(leaf);
  EXPECT_NE(capability.coverage, Coverage::kExact) << text;
  if (capability.coverage == Coverage::kNone) return outcome;
  outcome.answered = true;
  RowAddressSet answer = Check(reader.Answer(leaf));
  EXPECT_FALSE(answer.exact) << text;
  EXPECT_LE(static_cast<double>(answer.rows.size()), capability.cost) << text;
  outcome.candidates = std::move(answer.rows);
  return outcome;
}

// The rows of `table` that are null.
std::set<uint64_t> NullRows(const TestTable& table) {
  std::set<uint64_t> nulls;
  const auto& column = *table.scanned->column(0);
  for (int64_t i = 0; i < column.length(); ++i) {
    if (column.IsNull(i)) nulls.insert(table.addresses->Value(i));
  }
  return nulls;
}

struct SchemeCase {
  std::string name;
  std::shared_ptr<arrow::DataType> type;
  Params params;
  int min_answered = 60;  // long grams answer fewer of the generator's leaves
};

void PrintTo(const SchemeCase& scheme, std::ostream* out) { *out << scheme.name; }

class NgramSchemes : public ::testing::TestWithParam<SchemeCase> {
 protected:
  void SetUp() override { ASSERT_OK(arrow::compute::Initialize()); }
};

TEST_P(NgramSchemes, AnswersAfterRecheckEqualTheScan) {
  const SchemeCase& scheme = GetParam();
  TempDirectory directory;
  const TestTable table = MakeTable(directory, scheme.type, 1200, /*seed=*/31);
  ASSERT_GE(table.dataset->manifest().fragments_size(), 3);
  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  const BuiltSegment segment =
      BuildSegment(*table.dataset, AllFragments(*table.dataset), scheme.params);
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load() - before, 1200u);
  EXPECT_EQ(segment.meta.family(), "NGRAM");
  EXPECT_EQ(segment.meta.num_rows(), 1200u);
  const std::set<uint64_t> nulls = NullRows(table);
  EXPECT_EQ(segment.meta.details().at("num_nulls"), std::to_string(nulls.size()));

  auto reader = OpenSegment(segment);
  const Roaring fragments = Check(DecodeFragmentBitmap(segment.meta));
  TextGenerator random(/*seed=*/47);
  int answered = 0;
  int narrowed = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string text = RandomLeaf(random, table);
    const Outcome outcome = Evaluate(table, *reader, text, fragments);
    if (!outcome.answered) continue;
    ++answered;
    const auto& candidates = outcome.candidates;
    ASSERT_TRUE(std::is_sorted(candidates.begin(), candidates.end())) << text;
    ASSERT_EQ(std::adjacent_find(candidates.begin(), candidates.end()), candidates.end()) << text;
    for (uint64_t row : candidates) ASSERT_EQ(nulls.count(row), 0u) << text << " gave a null row";
    ASSERT_TRUE(std::includes(candidates.begin(), candidates.end(), outcome.expected.begin(),
                              outcome.expected.end()))
        << text << ": " << outcome.expected.size() << " rows match, the index gave "
        << candidates.size() << " candidates lacking some";
    // The recheck keeps exactly the candidates the scan keeps.
    std::vector<uint64_t> rechecked;
    std::set_intersection(candidates.begin(), candidates.end(), outcome.expected.begin(),
                          outcome.expected.end(), std::back_inserter(rechecked));
    ASSERT_EQ(rechecked, outcome.expected) << text;
    if (candidates.size() < 1200 - nulls.size()) ++narrowed;
  }
  EXPECT_GT(answered, scheme.min_answered)
      << "the generator must give the segment leaves to answer";
  EXPECT_GT(narrowed, answered / 2);
}

INSTANTIATE_TEST_SUITE_P(
    NgramAllSchemes, NgramSchemes,
    ::testing::Values(SchemeCase{"default", arrow::utf8(), {}},
                      SchemeCase{"n1", arrow::utf8(), {{"n", "1"}}},
                      SchemeCase{"n2_large", arrow::large_utf8(), {{"n", "2"}}},
                      SchemeCase{"n3_no_folding", arrow::utf8(), {{"case_folding", "false"}}},
                      SchemeCase{"n4", arrow::large_utf8(), {{"n", "4"}}},
                      SchemeCase{"n8", arrow::utf8(), {{"n", "8"}, {"case_folding", "FALSE"}}, 10}),
    [](const ::testing::TestParamInfo<SchemeCase>& info) { return info.param.name; });

// Leaves without a literal run of n bytes, and ILIKE without folding, are not answered (the
// planner scans), nor are other predicates on the column.
TEST(NgramAssess, TooShortPatternsAndOtherLeavesAreNotAnswered) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::utf8(), 300, /*seed=*/5);
  auto reader = OpenSegment(BuildSegment(*table.dataset, AllFragments(*table.dataset), {}));
  auto no_folding = OpenSegment(
      BuildSegment(*table.dataset, AllFragments(*table.dataset), {{"case_folding", "false"}}));
  const auto coverage = [&](const NgramSegmentReader& segment, const std::string& text) {
    auto filter = Check(expr::Filter::Parse(text, table.dataset->schema()));
    return segment.Assess(filter->root()).coverage;
  };
  for (const char* text :
       {"contains(v, 'ab')", "contains(v, '')", "starts_with(v, 'a')", "v LIKE '%ab%'",
        "v LIKE 'ab_cd'", "v LIKE '%'", "v LIKE '_'", "v LIKE ''", "v LIKE '%\\\\%%'",
        "v ILIKE '%\xC3\xA9\xC3\xA9%'", "ends_with(v, 'abc')", "v = 'abc'", "v IS NULL",
        "v IN ('abc')", "v > 'abc'", "v LIKE v"}) {
    EXPECT_EQ(coverage(*reader, text), Coverage::kNone) << text;
  }
  EXPECT_EQ(coverage(*reader, "v ILIKE '%abc%'"), Coverage::kSuperset);
  EXPECT_EQ(coverage(*no_folding, "v ILIKE '%abc%'"), Coverage::kNone);
  EXPECT_EQ(coverage(*no_folding, "v LIKE '%abc%'"), Coverage::kSuperset);
  EXPECT_EQ(coverage(*reader, "v LIKE '%\\\\%a\\\\_%'"), Coverage::kSuperset);
}

// The cost is the smallest posting among the leaf's grams, read from the keys file alone; a
// gram no row holds costs nothing and answers nothing.
TEST(NgramAssess, CostIsTheSmallestPosting) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  auto schema = arrow::schema({arrow::field("v", arrow::utf8())});
  arrow::StringBuilder builder;
  ASSERT_OK(builder.AppendValues({"abcx", "abcy", "abcz", "xbcd", "ABCD", "", "abc"}));
  std::shared_ptr<arrow::Array> values;
  ASSERT_OK(builder.Finish(&values));
  auto dataset = Check(Dataset::Create(
      directory.Child("ds"),
      testing::ReaderOf(arrow::RecordBatch::Make(schema, values->length(), {values}))));
  auto reader = OpenSegment(BuildSegment(*dataset, AllFragments(*dataset), {}));
  const auto assess = [&](const std::string& text) {
    auto filter = Check(expr::Filter::Parse(text, schema));
    return std::make_pair(reader->Assess(filter->root()), Check(reader->Answer(filter->root())));
  };
  const auto [abc, abc_rows] = assess("contains(v, 'abc')");
  EXPECT_EQ(abc.cost, 5);  // abcx abcy abcz ABCD abc
  EXPECT_EQ(abc_rows.rows.size(), 5u);
  const auto [abcd, abcd_rows] = assess("contains(v, 'abcd')");
  EXPECT_EQ(abcd.cost, 2);  // bcd: xbcd and ABCD (abc: 5)
  EXPECT_EQ(abcd_rows.rows, std::vector<uint64_t>{dataset::MakeRowAddress(0, 4)});
  const auto [missing, missing_rows] = assess("v LIKE '%abq%'");
  EXPECT_EQ(missing.coverage, Coverage::kSuperset);
  EXPECT_EQ(missing.cost, 0);
  EXPECT_TRUE(missing_rows.rows.empty());
}

TEST(NgramMerge, MergeOfThreeSegmentsAnswersLikeOneBuild) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::utf8(), 1000, /*seed=*/8, 200);
  const auto fragments = AllFragments(*table.dataset);
  ASSERT_EQ(fragments.size(), 5u);
  const Params params = {{"n", "2"}};
  // Disjoint subsets, given out of order.
  const BuiltSegment a = BuildSegment(*table.dataset, {fragments[3], fragments[0]}, params);
  const BuiltSegment b = BuildSegment(*table.dataset, {fragments[1]}, params);
  const BuiltSegment c = BuildSegment(*table.dataset, {fragments[4], fragments[2]}, params);
  const BuiltSegment whole = BuildSegment(*table.dataset, fragments, params);

  auto family = MakeNgramFamily();
  BuiltSegment merged;
  merged.directory = Check(NewSegmentDirectory(table.dataset->storage()));
  const auto before = dataset::GlobalReadStatistics().rows_scanned.load();
  merged.meta = Check(family->Merge({a.meta, b.meta, c.meta},
                                    {a.directory, b.directory, c.directory}, merged.directory));
  EXPECT_EQ(dataset::GlobalReadStatistics().rows_scanned.load(), before);  // no table read
  EXPECT_EQ(merged.meta.num_rows(), 1000u);
  EXPECT_EQ(Check(DecodeFragmentBitmap(merged.meta)).cardinality(), 5u);
  for (const char* key : {"n", "case_folding", "num_grams", "num_postings", "num_nulls"}) {
    EXPECT_EQ(merged.meta.details().at(key), whole.meta.details().at(key)) << key;
  }
  auto merged_reader = OpenSegment(merged);
  auto whole_reader = OpenSegment(whole);
  TextGenerator random(/*seed=*/9);
  int answered = 0;
  for (int i = 0; i < 150; ++i) {
    const std::string text = RandomLeaf(random, table);
    auto filter = Check(expr::Filter::Parse(text, table.dataset->schema()));
    const Capability merged_capability = merged_reader->Assess(filter->root());
    const Capability whole_capability = whole_reader->Assess(filter->root());
    ASSERT_EQ(merged_capability.coverage, whole_capability.coverage) << text;
    EXPECT_EQ(merged_capability.cost, whole_capability.cost) << text;
    if (merged_capability.coverage == Coverage::kNone) continue;
    ++answered;
    EXPECT_EQ(Check(merged_reader->Answer(filter->root())).rows,
              Check(whole_reader->Answer(filter->root())).rows)
        << text;
  }
  EXPECT_GT(answered, 40);
}

TEST(NgramMerge, RejectsSegmentsOfOtherSchemesOverlapsAndForeignFamilies) {
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::utf8(), 600, /*seed=*/4, 200);
  const auto fragments = AllFragments(*table.dataset);
  const BuiltSegment a = BuildSegment(*table.dataset, {fragments[0]}, {});
  const BuiltSegment b = BuildSegment(*table.dataset, {fragments[1]}, {{"n", "2"}});
  const BuiltSegment c = BuildSegment(*table.dataset, {fragments[2]}, {{"case_folding", "false"}});
  const BuiltSegment overlapping = BuildSegment(*table.dataset, {fragments[0], fragments[1]}, {});
  auto family = MakeNgramFamily();
  auto out = Check(NewSegmentDirectory(table.dataset->storage()));
  for (const BuiltSegment* other : {&b, &c}) {
    auto status =
        family->Merge({a.meta, other->meta}, {a.directory, other->directory}, out).status();
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find("different grams"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find(other->meta.uuid()), std::string::npos) << status.message();
  }
  auto status =
      family->Merge({a.meta, overlapping.meta}, {a.directory, overlapping.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
  format::SegmentMeta foreign = b.meta;
  foreign.set_family("BTREE");
  status = family->Merge({a.meta, foreign}, {a.directory, b.directory}, out).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
}

TEST(NgramValidate, NormalizesParameters) {
  auto family = MakeNgramFamily();
  EXPECT_EQ(family->name(), "NGRAM");
  const arrow::Field column("s", arrow::utf8());
  EXPECT_EQ(Check(family->Validate(column, {})), (Params{{"case_folding", "true"}, {"n", "3"}}));
  EXPECT_EQ(Check(family->Validate(arrow::Field("s", arrow::large_utf8()),
                                   {{"n", "8"}, {"case_folding", "False"}})),
            (Params{{"case_folding", "false"}, {"n", "8"}}));
  EXPECT_EQ(Check(family->Validate(column, {{"n", "1"}})),
            (Params{{"case_folding", "true"}, {"n", "1"}}));
}

TEST(NgramValidate, RejectsUnsupportedTypesAndBadParameters) {
  auto family = MakeNgramFamily();
  for (const auto& type : {arrow::int64(), arrow::binary(), arrow::list(arrow::utf8())}) {
    auto status = family->Validate(arrow::Field("title", type), {}).status();
    ASSERT_FALSE(status.ok()) << type->ToString();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << status.ToString();
    for (const std::string& part :
         std::vector<std::string>{"NGRAM", "title", type->ToString(), "string", "large_string"}) {
      EXPECT_NE(status.message().find(part), std::string::npos) << status.message();
    }
  }
  const arrow::Field column("s", arrow::utf8());
  for (const char* bad : {"0", "9", "-1", "abc", "3x", ""}) {
    auto status = family->Validate(column, {{"n", bad}}).status();
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find("'n' of NGRAM must be an integer in [1, 8]"), std::string::npos)
        << status.message();
  }
  auto status = family->Validate(column, {{"case_folding", "yes"}}).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("case_folding"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("true, false"), std::string::npos) << status.message();
  status = family->Validate(column, {{"page_rows", "16"}}).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("page_rows"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("case_folding"), std::string::npos) << status.message();
}

TEST(NgramBuild, RejectsUnsupportedColumnsAndBuildsEmptySegments) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  auto created = Check(Dataset::Create(directory.Child("ds"), testing::SimpleReader(0, 100)));
  auto family = MakeNgramFamily();
  BuildInput input = InputOf(*created, AllFragments(*created), {});
  input.column_index = 0;  // id, int64
  auto out = Check(NewSegmentDirectory(created->storage()));
  EXPECT_EQ(KindOf(family->Build(input, nullptr, out).status()), ErrorKind::kUnsupported);

  TempDirectory other;
  const TestTable table = MakeTable(other, arrow::utf8(), 50, /*seed=*/1);
  const BuiltSegment empty = BuildSegment(*table.dataset, {}, {});
  EXPECT_EQ(empty.meta.num_rows(), 0u);
  auto reader = OpenSegment(empty);
  auto filter = Check(expr::Filter::Parse("contains(v, 'abc')", table.dataset->schema()));
  EXPECT_EQ(reader->Assess(filter->root()).coverage, Coverage::kSuperset);
  EXPECT_TRUE(Check(reader->Answer(filter->root())).rows.empty());
}

// Verify, before a commit of segments built elsewhere: the segment's grams must be the index's.
TEST(NgramVerify, SegmentsOfAnotherSchemeAreRejected) {
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::utf8(), 200, /*seed=*/2);
  const BuiltSegment segment =
      BuildSegment(*table.dataset, AllFragments(*table.dataset), {{"n", "2"}});
  auto family = MakeNgramFamily();
  const BuildInput same = InputOf(*table.dataset, {}, {{"n", "2"}});
  EXPECT_OK(family->Verify(same, segment.meta, segment.directory));
  for (const Params& other : {Params{}, Params{{"n", "2"}, {"case_folding", "false"}}}) {
    auto status =
        family->Verify(InputOf(*table.dataset, {}, other), segment.meta, segment.directory);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find("was built with case_folding=true, n=2"), std::string::npos)
        << status.message();
  }
  // A segment whose details lost its scheme cannot be read.
  format::SegmentMeta lost = segment.meta;
  lost.mutable_details()->erase("n");
  auto opened = family->Open(lost, segment.directory);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("'n' is missing"), std::string::npos)
      << opened.status().message();
}

TEST(NgramOpen, DamagedFilesAreCorruptNamingTheFile) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const TestTable table = MakeTable(directory, arrow::utf8(), 300, /*seed=*/6);
  const BuiltSegment segment = BuildSegment(*table.dataset, AllFragments(*table.dataset), {});
  auto family = MakeNgramFamily();
  const auto& required = family->RequiredFiles(segment.meta);
  EXPECT_EQ(required.size(), 6u);
  auto filter = Check(expr::Filter::Parse("v LIKE '%abc%' OR v LIKE '%a a%' OR v LIKE '%aaa%'",
                                          table.dataset->schema()));
  for (const char* file : {"keys.arrow", "postings.arrow", "nulls.arrow"}) {
    EXPECT_NE(std::find(required.begin(), required.end(), file), required.end()) << file;
  }
  // Postings are read on lookup: the first answer that needs them fails.
  testing::ExpectDamagedFilesCorruptNamingThem(
      *family, segment, directory.Child("ds"), [&](const ScalarSegmentReader& reader) {
        for (const auto& leaf : static_cast<const expr::Or&>(filter->root()).children()) {
          if (reader.Assess(*leaf).coverage == Coverage::kNone) continue;
          ARROW_RETURN_NOT_OK(reader.Answer(*leaf).status());
        }
        return arrow::Status::OK();
      });
}

// On a large segment, a leaf whose rarest gram most rows hold costs more than a scan: the
// planner scans and explain says why; a leaf with a rare gram goes through the index. Both
// count what the unindexed path counts.
TEST(NgramPlanner, FrequentGramsOnLargeSegmentsFallBackToTheScan) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  constexpr int64_t kRows = 70000;
  arrow::StringBuilder builder;
  for (int64_t i = 0; i < kRows; ++i) {
    ASSERT_OK(builder.Append(i % 500 == 0 ? "zzq" + std::to_string(i % 7)
                                          : "abc" + std::to_string(i % 1000)));
  }
  std::shared_ptr<arrow::Array> values;
  ASSERT_OK(builder.Finish(&values));
  auto schema = arrow::schema({arrow::field("v", arrow::utf8())});
  dataset::WriteOptions options;
  options.max_rows_per_file = static_cast<uint64_t>(kRows);
  ASSERT_OK_AND_ASSIGN(
      auto data,
      Dataset::Create(directory.Child("ds"),
                      testing::ReaderOf(arrow::RecordBatch::Make(schema, kRows, {values})),
                      options));
  ASSERT_OK_AND_ASSIGN(data, CreateIndex(*data, IndexSpec{"v_ngram", "v", "NGRAM", {}}));
  const auto snapshot = query::Snapshot::Make(data);
  const auto count = [&](const std::string& filter, std::string* explained) -> uint64_t {
    query::Explain explain;
    auto counted = query::Count(*snapshot, filter, &explain);
    EXPECT_TRUE(counted.ok()) << filter << ": " << counted.status().ToString();
    *explained = explain.ToString();
    auto expected = data->CountRows(filter);
    EXPECT_TRUE(expected.ok()) << expected.status().ToString();
    EXPECT_EQ(*counted, *expected) << filter;
    return counted.ok() ? *counted : 0;
  };
  std::string explained;
  // abc1, abc10..abc19, abc100..abc199: 111 values, 70 rows each; bc1 holds 7770 rows.
  EXPECT_EQ(count("contains(v, 'abc1')", &explained), 7770u);
  EXPECT_NE(explained.find("index 'v_ngram' not used for 'contains(v, 'abc1')'"), std::string::npos)
      << explained;
  EXPECT_NE(explained.find("scan"), std::string::npos) << explained;
  EXPECT_EQ(count("v LIKE '%zzq%'", &explained), 140u);
  EXPECT_NE(explained.find("NGRAM index 'v_ngram' segment "), std::string::npos) << explained;
  EXPECT_NE(explained.find("(140 candidates, rechecked)"), std::string::npos) << explained;
}

}  // namespace
}  // namespace tessera::index::scalar::ngram_test
