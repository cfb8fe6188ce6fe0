// The INVERTED family's build and reader (index/text/inverted_family.h): over random text
// columns (strings and lists of strings, nulls, empty values, skewed words so that common terms
// span several posting blocks), a segment over any subset of the fragments holds exactly the
// naive inverted index computed in the test with the same analyzer: documents in row-address
// order, frequencies, positions (lists: a gap between elements), lengths, block-max data, and
// cursor moves.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "support/checked.h"
#include "support/inverted_testing.h"
#include "support/scalar_family_testing.h"
#include "support/status_assertions.h"
#include "support/temp_directory.h"
#include "tessera/index/index_family.h"
#include "tessera/index/text/inverted_family.h"
#include "tessera/index/text_segment.h"
#include "tessera/status.h"

namespace tessera::index::text {
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

}  // namespace
}  // namespace tessera::index::text
