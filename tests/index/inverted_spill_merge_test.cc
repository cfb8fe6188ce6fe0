// The INVERTED family's bounded memory and merge (index/text/inverted_segment_writer.h,
// inverted_family.h): a build whose postings exceed memory_limit many times over spills sorted
// runs, keeps its accounted bytes under the limit plus the documented slack, removes its runs,
// and writes files byte for byte equal to an unspilled build; a merge of segments over
// interleaved fragment subsets writes the files of one build over their union; inputs built
// with different analyzers or positions are not merged.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>

#include "support/checked.h"
#include "support/inverted_testing.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/index/segment_meta.h"
#include "tessera/index/text/inverted_family.h"
#include "tessera/index/text/inverted_files.h"
#include "tessera/index/text/inverted_segment_reader.h"
#include "tessera/index/text/inverted_segment_writer.h"
#include "tessera/status.h"

namespace tessera::index::text::inverted_spill_merge_test {
namespace {

using testing::AllFragments;
using testing::BuiltSegment;
using testing::Check;
using testing::TempDirectory;

uint64_t Detail(const BuiltSegment& segment, std::string_view key) {
  return std::stoull(segment.meta.details().at(std::string(key)));
}

// Expects the two segments' files to be equal byte for byte.
void ExpectSameFiles(const BuiltSegment& a, const BuiltSegment& b) {
  for (std::string_view name : InvertedFileNames()) {
    auto left = Check(a.directory.storage->ReadFile(a.directory.path + "/" + std::string(name)));
    auto right = Check(b.directory.storage->ReadFile(b.directory.path + "/" + std::string(name)));
    EXPECT_TRUE(left->Equals(*right)) << name << ": " << left->size() << " vs " << right->size();
  }
}

std::vector<std::string> SegmentFileNames(const BuiltSegment& segment) {
  std::vector<std::string> names;
  for (const auto& entry : Check(segment.directory.storage->List(segment.directory.path))) {
    names.push_back(entry.path.substr(entry.path.rfind('/') + 1));
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(InvertedSpill, BoundedBuildSpillsAndEqualsUnspilledBuild) {
  std::mt19937_64 random(5);
  TempDirectory directory;
  auto data = testing::MakeColumnDataset(
      directory, testing::RandomTextColumn(random, 32000, 40000, 24, false), 8000);
  auto family = MakeInvertedFamily();
  const auto fragments = AllFragments(*data.dataset);
  const int64_t limit = kMinMemoryLimit;
  const auto unbounded = Check(testing::BuildSegment(*family, *data.dataset, fragments, {}));
  const auto bounded = Check(testing::BuildSegment(*family, *data.dataset, fragments,
                                                   {{"memory_limit", std::to_string(limit)}}));
  // The postings need at least ten times the limit; the bounded build held at most the limit
  // plus the documented slack, in several runs.
  EXPECT_EQ(Detail(unbounded, kDetailSpillRuns), 0u);
  EXPECT_GE(Detail(unbounded, kDetailPeakMemory), 10u * limit);
  EXPECT_GT(Detail(bounded, kDetailSpillRuns), 1u);
  EXPECT_LE(Detail(bounded, kDetailPeakMemory), limit + kSpillSlackBytes);
  ExpectSameFiles(bounded, unbounded);
  // The runs are gone and are no segment file.
  EXPECT_EQ(SegmentFileNames(bounded), SegmentFileNames(unbounded));
  for (const auto& name : family->RequiredFiles(bounded.meta)) {
    EXPECT_EQ(name.find("spill"), std::string::npos) << name;
  }
}

TEST(InvertedSpill, WriterAccountsEveryTermAndSpillsBeforePassingTheLimit) {
  // Long distinct terms only: the accounted bytes must grow with the term strings, and the
  // writer spills before any growth that would pass the limit.
  TempDirectory directory;
  auto storage = Check(io::Storage::Open(directory.Child("w")));
  Check(storage->CreateDirectory("seg"));
  SegmentDirectory out{storage, "seg", "00000000-0000-0000-0000-000000000000"};
  AnalyzerOptions options;
  options.tokenizer = TokenizerKind::kWhitespace;
  options.stem = false;
  options.remove_stop_words = false;
  options.max_token_length = 1000;
  InvertedWriterOptions writer_options;
  writer_options.memory_limit = 1 << 20;
  InvertedSegmentWriter writer(out, writer_options, Check(Analyzer::Make(options)));
  const uint32_t rows = 3000;
  Check(writer.BeginFragment(0, rows));
  uint64_t previous = writer.accounted_bytes();
  for (uint32_t row = 0; row < rows; ++row) {
    writer.BeginDocument();
    Check(writer.AddValue(std::string(900, 'a') + std::to_string(row)));
    writer.EndDocument();
    if (writer.spill_runs() == 0) {
      EXPECT_GE(writer.accounted_bytes(), previous + 900) << row;
      previous = writer.accounted_bytes();
    }
    ASSERT_LE(writer.accounted_bytes(), writer_options.memory_limit);
  }
  auto stats = Check(writer.Finish());
  EXPECT_EQ(stats.num_terms, rows);
  EXPECT_GT(writer.spill_runs(), 1u);
  EXPECT_LE(writer.peak_accounted_bytes(), writer_options.memory_limit);
}

TEST(InvertedSpill, DocumentCutBetweenRunsIsJoined) {
  // A limit far below one document's postings: runs cut documents in the middle, and the final
  // merge joins each document's frequencies and positions again.
  TempDirectory directory;
  auto storage = Check(io::Storage::Open(directory.Child("w")));
  Check(storage->CreateDirectory("seg"));
  SegmentDirectory out{storage, "seg", "00000000-0000-0000-0000-000000000001"};
  InvertedWriterOptions writer_options;
  writer_options.memory_limit = 2048;
  AnalyzerOptions options;
  options.stem = false;
  options.remove_stop_words = false;
  InvertedSegmentWriter writer(out, writer_options, Check(Analyzer::Make(options)));
  const uint32_t words = 3000;
  std::string text;
  for (uint32_t i = 0; i < words; ++i) text += i % 2 == 0 ? "x " : "y ";
  Check(writer.BeginFragment(7, 2));
  for (int doc = 0; doc < 2; ++doc) {
    writer.BeginDocument();
    Check(writer.AddValue(text));
    writer.EndDocument();
  }
  auto stats = Check(writer.Finish());
  EXPECT_GT(writer.spill_runs(), 10u);
  EXPECT_EQ(stats.num_terms, 2u);
  format::SegmentMeta meta;
  meta.set_uuid(out.uuid);
  meta.set_family("INVERTED");
  meta.set_num_rows(2);
  Roaring fragments;
  fragments.add(7);
  meta.set_fragment_bitmap(EncodeFragmentBitmap(fragments));
  auto reader = Check(InvertedSegmentReader::Open(meta, out));
  ASSERT_OK(reader->CheckAll());
  auto x = Check(reader->FindTerm("x"));
  ASSERT_TRUE(x.has_value());
  auto cursor = Check(reader->OpenPostings(*x));
  std::vector<uint32_t> even;
  for (uint32_t i = 0; i < words; i += 2) even.push_back(i);
  for (uint32_t doc = 0; doc < 2; ++doc) {
    ASSERT_EQ(cursor->doc(), doc);
    EXPECT_EQ(cursor->term_frequency(), words / 2);
    EXPECT_EQ(Check(cursor->Positions()), even);
    Check(cursor->Next());
  }
  EXPECT_EQ(cursor->doc(), PostingCursor::kEnd);
  EXPECT_EQ(reader->document_length(1), words);
  // The runs are gone.
  EXPECT_EQ(Check(storage->List("seg")).size(), 8u);  // four files and their checksums
}

TEST(InvertedMerge, EqualsOneBuildOverTheUnion) {
  for (bool lists : {false, true}) {
    std::mt19937_64 random(lists ? 3 : 4);
    TempDirectory directory;
    auto data = testing::MakeColumnDataset(
        directory, testing::RandomTextColumn(random, 1200, 200, 10, lists), 200);
    auto family = MakeInvertedFamily();
    const auto fragments = AllFragments(*data.dataset);
    ASSERT_EQ(fragments.size(), 6u);
    const Params params = {};
    // Interleaved fragment subsets: documents of the inputs alternate in the merged order.
    const auto a =
        Check(testing::BuildSegment(*family, *data.dataset, {fragments[3], fragments[0]}, params));
    const auto b = Check(testing::BuildSegment(*family, *data.dataset, {fragments[1]}, params));
    const auto c = Check(testing::BuildSegment(*family, *data.dataset,
                                               {fragments[5], fragments[2], fragments[4]}, params));
    const auto whole = Check(testing::BuildSegment(*family, *data.dataset, fragments, params));
    const auto merged = Check(testing::MergeSegments(*family, *data.dataset, {c, a, b}));
    EXPECT_EQ(merged.meta.num_rows(), whole.meta.num_rows());
    EXPECT_EQ(Detail(merged, kDetailNumTerms), Detail(whole, kDetailNumTerms));
    ExpectSameFiles(merged, whole);
    auto reader = Check(testing::OpenSegment(*family, merged));
    testing::ExpectReaderEquals(*reader->AsText(),
                                testing::BuildNaiveIndex(data, fragments, params), true);
    EXPECT_OK(
        family->Verify(testing::InputOf(*data.dataset, {}, params), merged.meta, merged.directory));
  }
}

TEST(InvertedMerge, RefusesInputsOfDifferentAnalyzersOrPositions) {
  std::mt19937_64 random(9);
  TempDirectory directory;
  auto data = testing::MakeColumnDataset(directory,
                                         testing::RandomTextColumn(random, 300, 50, 6, false), 100);
  auto family = MakeInvertedFamily();
  const auto fragments = AllFragments(*data.dataset);
  const auto a = Check(testing::BuildSegment(*family, *data.dataset, {fragments[0]}, {}));
  const auto b = Check(
      testing::BuildSegment(*family, *data.dataset, {fragments[1]}, {{"with_position", "false"}}));
  const auto c = Check(
      testing::BuildSegment(*family, *data.dataset, {fragments[2]}, {{"max_token_length", "7"}}));
  for (const auto* other : {&b, &c}) {
    auto merged = testing::MergeSegments(*family, *data.dataset, {a, *other});
    ASSERT_FALSE(merged.ok());
    EXPECT_EQ(KindOf(merged.status()), ErrorKind::kInvalidArgument) << merged.status();
    EXPECT_NE(merged.status().message().find(other->meta.uuid()), std::string::npos)
        << merged.status();
  }
}

}  // namespace
}  // namespace tessera::index::text::inverted_spill_merge_test
