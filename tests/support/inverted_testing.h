// Helpers for the INVERTED family's tests: random text columns (strings or lists of strings,
// with nulls and empty values) spread over fragments, and a naive inverted index computed
// in the test from the same analyzer, which a segment's reader must equal exactly (documents,
// frequencies, positions, lengths, block-max data, cursor moves).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/scalar_family_testing.h"
#include "tessera/index/params.h"
#include "tessera/index/text_segment.h"

namespace tessera::testing {

// `rows` random texts of words drawn from a vocabulary of `vocabulary` words (some repeated
// within a text), with nulls and empty strings; as lists of up to 3 texts (null elements
// included) when `lists`.
std::shared_ptr<arrow::Array> RandomTextColumn(std::mt19937_64& random, int64_t rows,
                                               int vocabulary, int words_per_text, bool lists);

struct NaivePosting {
  uint32_t doc = 0;
  uint32_t frequency = 0;
  std::vector<uint32_t> positions;
};

struct NaiveIndex {
  std::vector<uint64_t> addresses;  // per document, ascending
  std::vector<uint32_t> lengths;
  std::map<std::string, std::vector<NaivePosting>> terms;
};

// The index a segment over `fragments` of `data` with the analyzer of `params` must hold.
NaiveIndex BuildNaiveIndex(const ColumnDataset& data,
                           const std::vector<format::Fragment>& fragments,
                           const index::Params& params);

// Expects `reader` to hold exactly `expected` (gtest failures otherwise); `positions`: whether
// the segment was built with them.
void ExpectReaderEquals(const index::TextSegmentReader& reader, const NaiveIndex& expected,
                        bool positions);

}  // namespace tessera::testing
