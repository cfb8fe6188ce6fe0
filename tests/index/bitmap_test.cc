// The BITMAP family: for every supported column type, the leaves it answers (=, IN, ranges,
// IS NULL, a boolean column) equal the scan's TRUE rows exactly; a merge answers like one build
// over the union; bad definitions, too many distinct values and damaged files fail with
// precise errors.
#include "tessera/index/scalar/bitmap_family.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/initialize.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/damaged_segment_files.h"
#include "support/exact_answer_checks.h"
#include "support/ipc_file_surgery.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "support/type_names.h"
#include "tessera/index/scalar/bitmap_segment_reader.h"
#include "tessera/index/scalar/posting_segment.h"
#include "tessera/index/segment_meta.h"
#include "tessera/io/storage.h"
#include "tessera/status.h"

namespace tessera::index::scalar::bitmap_test {
namespace {

using testing::BuiltSegment;
using testing::ColumnDataset;
using testing::TempDirectory;

constexpr int kDomain = 12;  // values are drawn from kDomain distinct ones
const char* kWords[kDomain] = {"",  "a",  "ab", "b", "B",  "\xc3\xa9",
                               "z", "za", "zz", "m", "mm", " "};

// Value `k` of the domain as filter text for a column of `type`.
std::string Literal(const arrow::DataType& type, int k) {
  char buffer[64];
  switch (type.id()) {
    case arrow::Type::BOOL:
      return k % 2 ? "TRUE" : "FALSE";
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
      return std::to_string(k - 6);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return k < kDomain ? "'" + std::string(kWords[k]) + "'" : "'absent'";
    case arrow::Type::DATE32:
      std::snprintf(buffer, sizeof(buffer), "DATE '2024-01-%02d'", k + 1);
      return buffer;
    case arrow::Type::TIMESTAMP:
      std::snprintf(buffer, sizeof(buffer), "TIMESTAMP '2024-01-01 00:00:%02d'", k);
      return buffer;
    default:
      return std::to_string(k);  // unsigned
  }
}

// `rows` values of the domain (k in [0, kDomain)), about 10% null.
std::shared_ptr<arrow::Array> RandomValues(const std::shared_ptr<arrow::DataType>& type,
                                           int64_t rows, uint64_t seed, int domain = kDomain) {
  std::mt19937_64 random(seed);
  std::vector<int> draws;
  std::vector<bool> valid;
  for (int64_t i = 0; i < rows; ++i) {
    valid.push_back(random() % 10 != 0);
    draws.push_back(static_cast<int>(random() % static_cast<uint64_t>(domain)));
  }
  if (type->id() == arrow::Type::STRING || type->id() == arrow::Type::LARGE_STRING) {
    std::unique_ptr<arrow::ArrayBuilder> builder = arrow::MakeBuilder(type).ValueOrDie();
    for (int64_t i = 0; i < rows; ++i) {
      const std::string word =
          draws[i] < kDomain ? kWords[draws[i]] : "w" + std::to_string(draws[i]);
      arrow::Status status =
          !valid[i] ? builder->AppendNull()
          : type->id() == arrow::Type::STRING
              ? static_cast<arrow::StringBuilder*>(builder.get())->Append(word)
              : static_cast<arrow::LargeStringBuilder*>(builder.get())->Append(word);
      EXPECT_TRUE(status.ok());
    }
    return builder->Finish().ValueOrDie();
  }
  arrow::Int64Builder numbers;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t value = draws[i];
    switch (type->id()) {
      case arrow::Type::BOOL:
        value = draws[i] % 2;
        break;
      case arrow::Type::INT8:
      case arrow::Type::INT16:
      case arrow::Type::INT32:
      case arrow::Type::INT64:
        value = draws[i] - 6;
        break;
      case arrow::Type::DATE32:
        value = 19723 + draws[i];  // 2024-01-01 + k days
        break;
      case arrow::Type::TIMESTAMP:
        value = int64_t{1704067200} * 1000000 + int64_t{draws[i]} * 1000000;
        break;
      default:
        break;
    }
    EXPECT_TRUE((valid[i] ? numbers.Append(value) : numbers.AppendNull()).ok());
  }
  auto array = numbers.Finish().ValueOrDie();
  if (type->id() == arrow::Type::DATE32) {
    array = arrow::compute::Cast(*array, arrow::int32()).ValueOrDie();
  }
  return arrow::compute::Cast(*array, type).ValueOrDie();
}

// Random leaves on `v` of the shapes BITMAP answers, with values in and out of the domain.
std::vector<std::string> RandomLeaves(const arrow::DataType& type, uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  const auto any = [&]() { return Literal(type, static_cast<int>(random() % (kDomain + 2))); };
  std::vector<std::string> leaves = {"v IS NULL"};
  if (type.id() == arrow::Type::BOOL) leaves.push_back("v");
  const char* ops[] = {"=", "<", "<=", ">", ">="};
  for (int i = 0; i < count; ++i) {
    switch (random() % 4) {
      case 0:
        leaves.push_back("v " + std::string(ops[random() % 5]) + " " + any());
        break;
      case 1:
        leaves.push_back("v IN (" + any() + ", " + any() + (random() % 2 ? ", NULL)" : ")"));
        break;
      case 2:
        leaves.push_back("v BETWEEN " + any() + " AND " + any());
        break;
      default:
        leaves.push_back("v = " + any());
        break;
    }
  }
  return leaves;
}

std::unique_ptr<BitmapSegmentReader> OpenBitmap(const BuiltSegment& segment) {
  auto opened = MakeBitmapFamily()->Open(segment.meta, segment.directory);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return nullptr;
  return std::unique_ptr<BitmapSegmentReader>(static_cast<BitmapSegmentReader*>(opened->release()));
}

// Every leaf the segment accepts is exact and equals the scan, and costs the rows it answers
// (IS NULL aside); returns how many it answered.
int ExpectAnswersEqualScan(const ColumnDataset& data, const BuiltSegment& segment,
                           const std::vector<std::string>& leaves) {
  auto reader = OpenBitmap(segment);
  if (reader == nullptr) return 0;
  return testing::ExpectExactAnswersEqualScan(
      *reader, data, segment.meta, leaves,
      [](const std::string& text, const expr::Node& leaf, const Capability& capability,
         const RowAddressSet& answer) {
        if (leaf.kind() != expr::NodeKind::kIsNull) {
          EXPECT_EQ(capability.cost, static_cast<double>(answer.rows.size())) << text;
        }
      });
}

class BitmapTypes : public testing::ColumnTypeTest {};

TEST_P(BitmapTypes, AnswersEqualTheScan) {
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomValues(GetParam(), 300, 1), 80);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  EXPECT_EQ(segment.meta.num_rows(), 300u);
  const auto leaves = RandomLeaves(*GetParam(), 2, 40);
  EXPECT_GT(ExpectAnswersEqualScan(data, segment, leaves), 25);
}

TEST_P(BitmapTypes, MergeAnswersLikeOneBuild) {
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomValues(GetParam(), 300, 3), 60);
  auto family = MakeBitmapFamily();
  const auto fragments = testing::AllFragments(*data.dataset);
  ASSERT_GE(fragments.size(), 4u);
  ASSERT_OK_AND_ASSIGN(auto parts,
                       testing::BuildSegmentsOfGroups(*family, *data.dataset, fragments, 2));
  ASSERT_OK_AND_ASSIGN(auto merged, testing::MergeSegments(*family, *data.dataset, parts));
  ASSERT_OK_AND_ASSIGN(auto whole, testing::BuildSegment(*family, *data.dataset, fragments, {}));
  EXPECT_EQ(merged.meta.num_rows(), whole.meta.num_rows());
  EXPECT_EQ(merged.meta.fragment_bitmap(), whole.meta.fragment_bitmap());
  for (const char* key : {"num_keys", "num_postings", "num_nulls", "key_type", "max_cardinality"}) {
    EXPECT_EQ(merged.meta.details().at(key), whole.meta.details().at(key)) << key;
  }
  EXPECT_GT(ExpectAnswersEqualScan(data, merged, RandomLeaves(*GetParam(), 4, 25)), 15);
  // Part segments answer for their own fragments only.
  ExpectAnswersEqualScan(data, parts[1], RandomLeaves(*GetParam(), 5, 6));
}

INSTANTIATE_TEST_SUITE_P(BitmapAllTypes, BitmapTypes,
                         ::testing::Values(arrow::boolean(), arrow::int8(), arrow::int16(),
                                           arrow::int32(), arrow::int64(), arrow::uint8(),
                                           arrow::uint32(), arrow::uint64(), arrow::utf8(),
                                           arrow::large_utf8(), arrow::date32(),
                                           arrow::timestamp(arrow::TimeUnit::MICRO)),
                         testing::TypeName);

TEST(BitmapValidate, NormalizesAndRejects) {
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto defaults, family->Validate(*arrow::field("v", arrow::int32()), {}));
  EXPECT_EQ(defaults, (Params{{"max_cardinality", "4096"}}));
  ASSERT_OK_AND_ASSIGN(
      auto given, family->Validate(*arrow::field("v", arrow::utf8()), {{"max_cardinality", "10"}}));
  EXPECT_EQ(given, (Params{{"max_cardinality", "10"}}));

  for (const auto& type : {arrow::float64(), arrow::binary(), arrow::list(arrow::utf8())}) {
    const auto status = family->Validate(*arrow::field("price", type), {}).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kUnsupported) << status.ToString();
    EXPECT_NE(status.message().find("'price'"), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find("large_string, date32, timestamp"), std::string::npos)
        << status.ToString();
  }
  for (const Params& bad : std::vector<Params>{{{"page_rows", "16"}},
                                               {{"max_cardinality", "0"}},
                                               {{"max_cardinality", "1048577"}},
                                               {{"max_cardinality", "many"}}}) {
    const auto status = family->Validate(*arrow::field("v", arrow::int32()), bad).status();
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find(bad.begin()->first), std::string::npos) << status.ToString();
  }
}

TEST(BitmapBuild, TooManyDistinctValuesFail) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(
      directory, RandomValues(arrow::int64(), 400, 7, /*domain=*/40), 100);
  auto family = MakeBitmapFamily();
  const auto fragments = testing::AllFragments(*data.dataset);
  const auto built =
      testing::BuildSegment(*family, *data.dataset, fragments, {{"max_cardinality", "39"}});
  ASSERT_FALSE(built.ok());
  const auto& status = built.status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
  for (const char* part : {"'v_idx'", "'v'", " 40 ", "max_cardinality=39"}) {
    EXPECT_NE(status.message().find(part), std::string::npos) << part << ": " << status.ToString();
  }
  // At the limit it builds; a merge over the limit fails like a build would.
  ASSERT_OK(testing::BuildSegment(*family, *data.dataset, fragments, {{"max_cardinality", "40"}})
                .status());
  std::vector<BuiltSegment> parts;
  for (const auto& fragment : fragments) {
    auto part =
        testing::BuildSegment(*family, *data.dataset, {fragment}, {{"max_cardinality", "39"}});
    ASSERT_OK(part.status());
    parts.push_back(*part);
  }
  const auto merged = testing::MergeSegments(*family, *data.dataset, parts);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(KindOf(merged.status()), ErrorKind::kInvalidArgument) << merged.status().ToString();
  EXPECT_NE(merged.status().message().find("max_cardinality=39"), std::string::npos);
}

TEST(BitmapBuild, EmptyFragmentListBuildsAnEmptySegment) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomValues(arrow::utf8(), 50, 13), 100);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildSegment(*family, *data.dataset, {}, {}));
  EXPECT_EQ(segment.meta.num_rows(), 0u);
  auto reader = OpenBitmap(segment);
  ASSERT_NE(reader, nullptr);
  for (const char* text : {"v = 'a'", "v IS NULL", "v >= ''"}) {
    std::shared_ptr<const void> holder;
    ASSERT_OK_AND_ASSIGN(auto leaf, testing::ParseLeaf(data, text, &holder));
    EXPECT_EQ(reader->Assess(*leaf).coverage, Coverage::kExact) << text;
    ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer(*leaf));
    EXPECT_TRUE(answer.rows.empty()) << text;
  }
}

TEST(BitmapOpen, DamagedFilesAreCorruptNamingTheFile) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data = testing::MakeColumnDataset(directory, RandomValues(arrow::utf8(), 300, 8), 100);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  std::shared_ptr<const void> holder;
  ASSERT_OK_AND_ASSIGN(auto leaf, testing::ParseLeaf(data, "v IS NULL", &holder));
  testing::ExpectDamagedFilesCorruptNamingThem(
      *family, segment, directory.Child("ds"),
      [&](const ScalarSegmentReader& reader) { return reader.Answer(*leaf).status(); });
  format::SegmentMeta wrong = segment.meta;
  wrong.set_family("BTREE");
  EXPECT_EQ(KindOf(family->Open(wrong, segment.directory).status()), ErrorKind::kInvalidArgument);
}

// Random damage to every file, with its checksums left stale or recomputed (so that the damage
// reaches the checks behind them): never a crash; an error is Corrupt naming the file; with
// stale checksums every answer is what it was.
TEST(BitmapOpen, RandomDamageIsHarmlessOrCorruptNamingTheFile) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomValues(arrow::utf8(), 300, 11), 100);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  const std::vector<std::string> leaves = {"v = 'a'", "v IN ('b', 'zz')", "v >= 'm'", "v IS NULL"};
  const auto answers = [&]() -> arrow::Result<std::vector<std::vector<uint64_t>>> {
    // A fresh storage: blocks verified before the damage are remembered per storage (files
    // never change in place outside this test).
    SegmentDirectory fresh = segment.directory;
    ARROW_ASSIGN_OR_RAISE(fresh.storage, io::Storage::Open(directory.Child("ds")));
    ARROW_ASSIGN_OR_RAISE(auto reader, family->Open(segment.meta, fresh));
    auto* scalar = reader->AsScalar();
    std::vector<std::vector<uint64_t>> all;
    for (const auto& text : leaves) {
      std::shared_ptr<const void> holder;
      ARROW_ASSIGN_OR_RAISE(auto leaf, testing::ParseLeaf(data, text, &holder));
      ARROW_ASSIGN_OR_RAISE(auto answer, scalar->Answer(*leaf));
      all.push_back(answer.rows);
    }
    return all;
  };
  ASSERT_OK_AND_ASSIGN(const auto expected, answers());
  std::mt19937_64 random(12);
  int corrupt = 0;
  for (const std::string& file : family->RequiredFiles(segment.meta)) {
    if (file.find(".crc32c") != std::string::npos) continue;
    const std::string path = directory.Child("ds") + "/" + segment.directory.path + "/" + file;
    const std::string original = testing::ReadBytes(path);
    const std::string checksums = testing::ReadBytes(path + ".crc32c");
    for (int round = 0; round < 24; ++round) {
      std::string damaged = original;
      if (round % 6 == 5) {
        damaged.resize(random() % damaged.size());
      } else {
        for (int flips = 0; flips < 1 + round % 3; ++flips) {
          damaged[random() % damaged.size()] ^= static_cast<char>(1 + random() % 255);
        }
      }
      testing::WriteBytes(path, damaged);
      // Recomputed checksums let a changed row address through unnoticed (no format can tell
      // it from a real one), so only stale checksums promise the old answers.
      const bool rewritten = round % 2 == 1;
      if (rewritten) testing::RewriteChecksums(path);
      const auto result = answers();
      if (result.ok()) {
        if (!rewritten) {
          EXPECT_EQ(*result, expected) << file << " round " << round;
        }
      } else {
        ++corrupt;
        EXPECT_EQ(KindOf(result.status()), ErrorKind::kCorrupt)
            << file << " round " << round << ": " << result.status().ToString();
        EXPECT_NE(result.status().message().find(file), std::string::npos)
            << file << " round " << round << ": " << result.status().ToString();
      }
      testing::WriteBytes(path, original);
      testing::WriteBytes(path + ".crc32c", checksums);
    }
  }
  EXPECT_GT(corrupt, 30);
  ASSERT_OK_AND_ASSIGN(const auto restored, answers());
  EXPECT_EQ(restored, expected);
}

TEST(BitmapLookup, ConcurrentAnswersAgree) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  // Enough rows that the postings span several batches, which the threads read in turn.
  const auto data = testing::MakeColumnDataset(
      directory, RandomValues(arrow::int64(), 40000, 14, /*domain=*/6), 20000);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  auto reader = OpenBitmap(segment);
  ASSERT_NE(reader, nullptr);
  std::vector<std::shared_ptr<const void>> holders(6);
  std::vector<const expr::Node*> leaves;
  std::vector<std::vector<uint64_t>> expected;
  for (int k = 0; k < 6; ++k) {
    ASSERT_OK_AND_ASSIGN(auto leaf, testing::ParseLeaf(data, "v = " + std::to_string(k - 6),
                                                       &holders[static_cast<size_t>(k)]));
    leaves.push_back(leaf);
    ASSERT_OK_AND_ASSIGN(auto answer, reader->Answer(*leaf));
    expected.push_back(answer.rows);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t]() {
      for (int i = 0; i < 30; ++i) {
        const size_t k = static_cast<size_t>((t + i) % 6);
        auto answer = reader->Answer(*leaves[k]);
        if (!answer.ok() || answer->rows != expected[k]) ++mismatches;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(BitmapVerify, ChecksTheValueType) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomValues(arrow::int32(), 200, 9), 100);
  auto family = MakeBitmapFamily();
  const auto fragments = testing::AllFragments(*data.dataset);
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildSegment(*family, *data.dataset, fragments, {}));
  BuildInput definition = testing::InputOf(*data.dataset, {}, {});
  EXPECT_OK(family->Verify(definition, segment.meta, segment.directory));
  definition.schema = arrow::schema({arrow::field("v", arrow::int64())});
  const auto status = family->Verify(definition, segment.meta, segment.directory);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("int32"), std::string::npos) << status.ToString();

  // Postings that open (their counts add up) but are out of order: Verify reads them all.
  std::vector<uint64_t> rows;
  {
    auto reader = OpenBitmap(segment);
    ASSERT_NE(reader, nullptr);
    ASSERT_OK(reader->postings().ForEach([&](int64_t, const uint64_t* run, size_t count) {
      rows.insert(rows.end(), run, run + count);
      return arrow::Status::OK();
    }));
  }
  ASSERT_LT(rows.size(), static_cast<size_t>(kPostingBatchRows));
  std::reverse(rows.begin(), rows.end());
  ASSERT_OK_AND_ASSIGN(auto writer,
                       IpcFileWriter::Open(segment.directory, "postings.arrow", AddressSchema()));
  arrow::UInt64Builder builder;
  ASSERT_OK(builder.AppendValues(rows));
  ASSERT_OK_AND_ASSIGN(auto array, builder.Finish());
  ASSERT_OK(writer->Write(*arrow::RecordBatch::Make(AddressSchema(), array->length(), {array})));
  ASSERT_OK(writer->Close());
  SegmentDirectory fresh = segment.directory;
  ASSERT_OK_AND_ASSIGN(fresh.storage, io::Storage::Open(directory.Child("ds")));
  ASSERT_OK(family->Open(segment.meta, fresh).status());
  definition.schema = data.dataset->schema();
  const auto damaged = family->Verify(definition, segment.meta, fresh);
  EXPECT_EQ(KindOf(damaged), ErrorKind::kCorrupt) << damaged.ToString();
  EXPECT_NE(damaged.message().find("postings.arrow"), std::string::npos) << damaged.ToString();
}

TEST(BitmapAssess, CostsFromCountsWithoutReadingPostings) {
  ASSERT_OK(arrow::compute::Initialize());
  TempDirectory directory;
  const auto data =
      testing::MakeColumnDataset(directory, RandomValues(arrow::int64(), 300, 10), 100);
  auto family = MakeBitmapFamily();
  ASSERT_OK_AND_ASSIGN(auto segment, testing::BuildWholeSegment(*family, *data.dataset));
  // With the postings file gone, Assess still costs every leaf (it reads no posting).
  auto reader = OpenBitmap(segment);
  ASSERT_NE(reader, nullptr);
  ASSERT_OK(data.dataset->storage()->WriteFile(segment.directory.path + "/postings.arrow", "x"));
  std::shared_ptr<const void> holder;
  ASSERT_OK_AND_ASSIGN(auto leaf, testing::ParseLeaf(data, "v BETWEEN -2 AND 3", &holder));
  const auto capability = reader->Assess(*leaf);
  EXPECT_EQ(capability.coverage, Coverage::kExact);
  ASSERT_OK_AND_ASSIGN(auto expected, testing::ScanTrueRows(data, "v BETWEEN -2 AND 3"));
  EXPECT_EQ(capability.cost, static_cast<double>(expected.size()));
}

}  // namespace
}  // namespace tessera::index::scalar::bitmap_test
