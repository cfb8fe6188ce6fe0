// The INVERTED family's build and reader (index/text/inverted_family.h): over random text
// columns (strings and lists of strings, nulls, empty values, skewed words so that common terms
// span several posting blocks), a segment over any subset of the fragments holds exactly the
// naive inverted index computed in the test with the same analyzer: documents in row-address
// order, frequencies, positions (lists: a gap between elements), lengths, block-max data, and
// cursor moves. One reader serves several threads at once; a build over no fragment opens
// empty.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "support/checked.h"
#include "support/inverted_testing.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/index/index_family.h"
#include "tessera/index/text/inverted_family.h"
#include "tessera/index/text_segment.h"
#include "tessera/status.h"

namespace tessera::index::text::inverted_build_test {
namespace {

using testing::AllFragments;
using testing::Check;
using testing::TempDirectory;

TEST(InvertedBuild, EqualsNaiveIndexOverRandomFragmentSubsets) {
  for (bool lists : {false, true}) {
    for (bool positions : {true, false}) {
      SCOPED_TRACE(std::string(lists ? "lists" : "strings") + (positions ? " with" : " without") +
                   " positions");
      std::mt19937_64 random(lists * 2 + positions + 11);
      TempDirectory directory;
      auto data = testing::MakeColumnDataset(
          directory, testing::RandomTextColumn(random, 1500, 300, 12, lists), 200);
      const auto fragments = AllFragments(*data.dataset);
      const Params params = {{"with_position", positions ? "true" : "false"}};
      auto family = MakeInvertedFamily();
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<format::Fragment> subset;
        for (const auto& fragment : fragments) {
          if (trial == 0 || random() % 2 == 0) subset.push_back(fragment);
        }
        std::shuffle(subset.begin(), subset.end(), random);  // a build sorts them itself
        if (subset.empty()) subset.push_back(fragments.back());
        auto segment = Check(testing::BuildSegment(*family, *data.dataset, subset, params));
        auto reader = Check(testing::OpenSegment(*family, segment));
        ASSERT_NE(reader->AsText(), nullptr);
        EXPECT_EQ(reader->AsScalar(), nullptr);
        EXPECT_EQ(reader->AsVector(), nullptr);
        testing::ExpectReaderEquals(*reader->AsText(),
                                    testing::BuildNaiveIndex(data, subset, params), positions);
      }
    }
  }
}

TEST(InvertedReader, ThreadsShareOneReader) {
  // Cursors of one reader on several threads at once (each verifying blocks the others may be
  // verifying) read the same postings.
  std::mt19937_64 random(31);
  TempDirectory directory;
  auto data = testing::MakeColumnDataset(
      directory, testing::RandomTextColumn(random, 800, 150, 10, false), 200);
  auto family = MakeInvertedFamily();
  const auto segment = Check(testing::BuildWholeSegment(*family, *data.dataset));
  auto reader = Check(testing::OpenSegment(*family, segment));
  const TextSegmentReader& text = *reader->AsText();
  const auto digest = [&text]() {
    uint64_t sum = 0;
    std::vector<TermPostings> terms;
    Check(text.VisitTerms("", [&](std::string_view, const TermPostings& postings) {
      terms.push_back(postings);
      return true;
    }));
    for (const auto& postings : terms) {
      auto cursor = Check(text.OpenPostings(postings));
      for (; cursor->doc() != PostingCursor::kEnd; Check(cursor->Next())) {
        sum = sum * 31 + cursor->doc() * 7 + cursor->term_frequency();
        for (uint32_t position : Check(cursor->Positions())) sum = sum * 3 + position;
      }
    }
    return sum;
  };
  std::vector<uint64_t> sums(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < sums.size(); ++t) {
    threads.emplace_back([&, t] { sums[t] = digest(); });
  }
  for (auto& thread : threads) thread.join();
  const uint64_t alone = digest();
  for (uint64_t sum : sums) EXPECT_EQ(sum, alone);
}

TEST(InvertedBuild, EmptyBuildOpensWithNoDocuments) {
  std::mt19937_64 random(1);
  TempDirectory directory;
  auto data = testing::MakeColumnDataset(directory,
                                         testing::RandomTextColumn(random, 50, 10, 4, false), 50);
  auto family = MakeInvertedFamily();
  const auto empty = Check(testing::BuildSegment(*family, *data.dataset, {}, {}));
  EXPECT_EQ(empty.meta.num_rows(), 0u);
  auto reader = Check(testing::OpenSegment(*family, empty));
  const TextSegmentReader& text = *reader->AsText();
  EXPECT_EQ(text.document_count(), 0u);
  EXPECT_EQ(text.total_length(), 0u);
  EXPECT_EQ(Check(text.FindTerm("wa")), std::nullopt);
  size_t visited = 0;
  Check(text.VisitTerms("", [&](std::string_view, const TermPostings&) { return ++visited > 0; }));
  EXPECT_EQ(visited, 0u);
}

}  // namespace
}  // namespace tessera::index::text::inverted_build_test
