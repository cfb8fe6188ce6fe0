#include "support/brute_force.h"

#include <arrow/api.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::testing {

std::vector<index::ScoredRow> BruteForceNearest(const dataset::Dataset& data,
                                                const std::string& column,
                                                const std::vector<float>& query,
                                                index::vector::Metric metric,
                                                const std::string& filter) {
  dataset::ScanOptions options;
  options.columns = {column};
  options.filter = filter;
  options.with_row_address = true;
  auto table = data.ScanToTable(options).ValueOrDie()->CombineChunksToBatch().ValueOrDie();
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*table->column(0));
  const auto& addresses = static_cast<const arrow::UInt64Array&>(*table->column(1));
  const auto& values = static_cast<const arrow::FloatArray&>(*vectors.values());
  const int dim = vectors.value_length();
  std::vector<index::ScoredRow> rows;
  for (int64_t row = 0; row < table->num_rows(); ++row) {
    if (vectors.IsNull(row)) continue;
    bool element_null = false;
    for (int i = 0; i < dim; ++i) element_null |= values.IsNull(vectors.value_offset(row) + i);
    if (element_null) continue;
    const float distance = index::vector::Distance(
        metric, query.data(), values.raw_values() + vectors.value_offset(row), dim);
    if (std::isnan(distance)) continue;
    rows.push_back({addresses.Value(row), distance});
  }
  std::sort(rows.begin(), rows.end(), [](const index::ScoredRow& a, const index::ScoredRow& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.row_address < b.row_address);
  });
  return rows;
}

double RecallAt(size_t k, const std::vector<index::ScoredRow>& found,
                const std::vector<index::ScoredRow>& truth) {
  const size_t wanted = std::min(k, truth.size());
  if (wanted == 0) return 1.0;
  std::set<uint64_t> expected;
  for (size_t i = 0; i < wanted; ++i) expected.insert(truth[i].row_address);
  size_t hits = 0;
  for (size_t i = 0; i < std::min(k, found.size()); ++i) {
    hits += expected.count(found[i].row_address);
  }
  return static_cast<double>(hits) / static_cast<double>(wanted);
}

}  // namespace tessera::testing
