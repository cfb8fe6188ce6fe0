// Small text datasets for full-text search tests: a random corpus over a small vocabulary (so
// terms repeat across documents) and a brute-force BM25 reference over a dataset's live rows,
// computed with the default analyzer from the text itself, independent of the query layer.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"

namespace tessera::testing {

// id int64, body utf8 (nullable), title utf8, n int64 (id % 10): `rows` rows from `first_id`,
// words drawn from a fixed English vocabulary (stable under stemming) with a skewed distribution.
std::shared_ptr<arrow::RecordBatch> TextCorpusBatch(int64_t first_id, int64_t rows, uint32_t seed);
// The vocabulary's words, most frequent first.
const std::vector<std::string>& TextCorpusWords();

// BM25 (k1, b) of a match query (operator or) over the live rows of `data`'s column `column`,
// every row scored exactly: row address → score, for rows holding a query term.
std::map<uint64_t, double> ReferenceBm25(const dataset::Dataset& data, const std::string& column,
                                         const std::string& query, double k1 = 1.2,
                                         double b = 0.75);

}  // namespace tessera::testing
