#include "support/inverted_testing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "support/checked.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/text/analyzer.h"

namespace tessera::testing {

namespace {

std::string RandomText(std::mt19937_64& random, int vocabulary, int words) {
  std::uniform_int_distribution<int> word(0, vocabulary - 1);
  std::uniform_int_distribution<int> count(0, words);
  std::string text;
  const int n = count(random);
  for (int i = 0; i < n; ++i) {
    if (!text.empty()) text += random() % 5 == 0 ? ", " : " ";
    // Skewed: low word numbers are frequent (long posting lists, several blocks).
    int w = word(random);
    if (random() % 2 == 0) w %= 8;
    std::string spelled;
    for (int v = w + 1; v > 0; v /= 26) spelled += static_cast<char>('a' + v % 26);
    if (random() % 13 == 0) spelled[0] = static_cast<char>(spelled[0] - 'a' + 'A');
    text += "w" + spelled;
  }
  return text;
}

}  // namespace

std::shared_ptr<arrow::Array> RandomTextColumn(std::mt19937_64& random, int64_t rows,
                                               int vocabulary, int words_per_text, bool lists) {
  arrow::StringBuilder strings;
  if (!lists) {
    for (int64_t i = 0; i < rows; ++i) {
      const auto kind = random() % 10;
      if (kind == 0) {
        Check(strings.AppendNull());
      } else if (kind == 1) {
        Check(strings.Append(""));
      } else {
        Check(strings.Append(RandomText(random, vocabulary, words_per_text)));
      }
    }
    return Check(strings.Finish());
  }
  auto values = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder list(arrow::default_memory_pool(), values);
  for (int64_t i = 0; i < rows; ++i) {
    if (random() % 10 == 0) {
      Check(list.AppendNull());
      continue;
    }
    Check(list.Append());
    const int elements = static_cast<int>(random() % 4);
    for (int e = 0; e < elements; ++e) {
      if (random() % 8 == 0) {
        Check(values->AppendNull());
      } else {
        Check(values->Append(RandomText(random, vocabulary, words_per_text)));
      }
    }
  }
  return Check(list.Finish());
}

NaiveIndex BuildNaiveIndex(const ColumnDataset& data,
                           const std::vector<format::Fragment>& fragments,
                           const index::Params& params) {
  std::set<uint32_t> covered;
  for (const auto& fragment : fragments) covered.insert(fragment.id());
  std::vector<std::pair<uint64_t, int64_t>> rows;  // address, index into the scan
  for (int64_t i = 0; i < data.addresses->length(); ++i) {
    const uint64_t address = data.addresses->Value(i);
    if (covered.count(dataset::FragmentOf(address)) > 0) rows.emplace_back(address, i);
  }
  std::sort(rows.begin(), rows.end());
  auto options = Check(index::text::ParseAnalyzerOptions(params, "INVERTED"));
  auto analyzer = Check(index::text::Analyzer::Make(options));
  NaiveIndex naive;
  for (const auto& [address, i] : rows) {
    const uint32_t doc = static_cast<uint32_t>(naive.addresses.size());
    naive.addresses.push_back(address);
    std::vector<std::string> values;
    const auto& column = *data.column;
    if (column.IsValid(i)) {
      if (column.type_id() == arrow::Type::STRING) {
        values.emplace_back(static_cast<const arrow::StringArray&>(column).GetView(i));
      } else {
        const auto& list = static_cast<const arrow::ListArray&>(column);
        const auto& strings = static_cast<const arrow::StringArray&>(*list.values());
        for (int64_t j = list.value_offset(i); j < list.value_offset(i) + list.value_length(i);
             ++j) {
          if (strings.IsValid(j)) values.emplace_back(strings.GetView(j));
        }
      }
    }
    uint32_t length = 0;
    uint32_t next = 0;
    for (size_t v = 0; v < values.size(); ++v) {
      const uint32_t first = v == 0 ? next : next + index::kListElementPositionGap;
      next = analyzer->Analyze(values[v], first, [&](const index::text::Token& token) {
        ++length;
        auto& postings = naive.terms[std::string(token.term)];
        if (postings.empty() || postings.back().doc != doc) postings.push_back({doc, 0, {}});
        postings.back().frequency += 1;
        postings.back().positions.push_back(token.position);
      });
    }
    naive.lengths.push_back(length);
  }
  return naive;
}

void ExpectReaderEquals(const index::TextSegmentReader& reader, const NaiveIndex& expected,
                        bool positions) {
  using index::PostingCursor;
  ASSERT_EQ(reader.document_count(), expected.addresses.size());
  ASSERT_EQ(reader.has_positions(), positions);
  uint64_t total = 0;
  for (uint32_t doc = 0; doc < expected.addresses.size(); ++doc) {
    ASSERT_EQ(reader.row_address(doc), expected.addresses[doc]) << doc;
    ASSERT_EQ(reader.document_of(expected.addresses[doc]), doc);
    ASSERT_EQ(reader.document_length(doc), expected.lengths[doc]) << doc;
    total += expected.lengths[doc];
  }
  EXPECT_EQ(reader.total_length(), total);
  if (!expected.addresses.empty()) {
    EXPECT_EQ(reader.document_of(expected.addresses.back() + 1), std::nullopt);
  }
  EXPECT_EQ(reader.document_of(uint64_t{0xfffffff0} << 32), std::nullopt);

  std::vector<std::string> visited;
  Check(reader.VisitTerms("", [&](std::string_view term, const index::TermPostings&) {
    visited.emplace_back(term);
    return true;
  }));
  std::vector<std::string> terms;
  for (const auto& entry : expected.terms) terms.push_back(entry.first);
  ASSERT_EQ(visited, terms);
  EXPECT_EQ(Check(reader.FindTerm("no such term")), std::nullopt);

  std::mt19937_64 random(7);
  for (const auto& [term, postings] : expected.terms) {
    auto found = Check(reader.FindTerm(term));
    ASSERT_TRUE(found.has_value()) << term;
    ASSERT_EQ(found->document_frequency, postings.size()) << term;
    // Every document, frequency and position through Next().
    auto cursor = Check(reader.OpenPostings(*found));
    for (const auto& posting : postings) {
      ASSERT_EQ(cursor->doc(), posting.doc) << term;
      ASSERT_EQ(cursor->term_frequency(), posting.frequency) << term;
      if (positions) {
        ASSERT_EQ(Check(cursor->Positions()), posting.positions) << term;
      }
      Check(cursor->Next());
    }
    ASSERT_EQ(cursor->doc(), PostingCursor::kEnd) << term;
    // Block-max data through ShallowAdvance alone, block by block.
    auto blocks = Check(reader.OpenPostings(*found));
    for (size_t begin = 0; begin < postings.size(); begin += index::kPostingBlockSize) {
      const size_t end = std::min<size_t>(postings.size(), begin + index::kPostingBlockSize);
      uint32_t max_frequency = 0;
      uint32_t min_length = UINT32_MAX;
      for (size_t k = begin; k < end; ++k) {
        max_frequency = std::max(max_frequency, postings[k].frequency);
        min_length = std::min(min_length, expected.lengths[postings[k].doc]);
      }
      Check(blocks->ShallowAdvance(postings[begin].doc));
      ASSERT_EQ(blocks->block_last_doc(), postings[end - 1].doc) << term;
      ASSERT_EQ(blocks->block_max_term_frequency(), max_frequency) << term;
      ASSERT_EQ(blocks->block_min_document_length(), min_length) << term;
      ASSERT_EQ(blocks->doc(), postings[0].doc) << "ShallowAdvance moved the document";
    }
    Check(blocks->ShallowAdvance(postings.back().doc + 1));
    ASSERT_EQ(blocks->block_last_doc(), PostingCursor::kEnd);
    // Advance to random targets, ascending.
    auto advancing = Check(reader.OpenPostings(*found));
    uint32_t target = 0;
    while (true) {
      target += static_cast<uint32_t>(random() % 300);
      Check(advancing->Advance(target));
      auto next = std::lower_bound(postings.begin(), postings.end(), target,
                                   [](const NaivePosting& p, uint32_t t) { return p.doc < t; });
      if (next == postings.end()) {
        ASSERT_EQ(advancing->doc(), PostingCursor::kEnd);
        break;
      }
      ASSERT_EQ(advancing->doc(), next->doc) << term << " target " << target;
      ASSERT_EQ(advancing->term_frequency(), next->frequency);
      if (positions) {
        ASSERT_EQ(Check(advancing->Positions()), next->positions);
      }
      // No move to a target at or before the current document.
      Check(advancing->Advance(target));
      ASSERT_EQ(advancing->doc(), next->doc);
    }
  }
  // Prefix visits are the terms with the prefix, in order; stopping early stops.
  for (std::string prefix : {"w", "wa", "wb", "wzz", "x", "wc"}) {
    std::vector<std::string> want;
    for (const auto& term : terms) {
      if (term.rfind(prefix, 0) == 0) want.push_back(term);
    }
    std::vector<std::string> got;
    Check(reader.VisitTerms(prefix, [&](std::string_view term, const index::TermPostings&) {
      got.emplace_back(term);
      return true;
    }));
    EXPECT_EQ(got, want) << prefix;
    size_t calls = 0;
    Check(reader.VisitTerms(
        prefix, [&](std::string_view, const index::TermPostings&) { return ++calls < 2; }));
    EXPECT_EQ(calls, std::min<size_t>(2, want.size()));
  }
}

}  // namespace tessera::testing
