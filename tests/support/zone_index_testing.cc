#include "support/zone_index_testing.h"

#include <algorithm>

#include "support/checked.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/snapshot.h"

namespace tessera::testing {

BuiltSegment BuildSegmentOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                            const std::vector<format::Fragment>& fragments, index::Params params) {
  return Check(BuildSegment(family, dataset, fragments, params));
}

BuiltSegment MergeSegmentsOf(const index::IndexFamily& family, const dataset::Dataset& dataset,
                             const std::vector<BuiltSegment>& parts) {
  return Check(MergeSegments(family, dataset, parts));
}

std::string PlannerDisagreement(const std::shared_ptr<dataset::Dataset>& dataset,
                                const std::string& filter, std::string* explain) {
  dataset::ScanOptions options;
  options.filter = filter;
  options.with_row_address = true;
  const auto snapshot = query::Snapshot::Make(dataset);
  query::Explain read_explain;
  auto reader = query::Read(snapshot, options, &read_explain);
  auto plain = dataset->ScanToTable(options);
  if (!reader.ok() || !plain.ok()) {
    return "read: " + reader.status().ToString() + " vs scan: " + plain.status().ToString();
  }
  auto table = (*reader)->ToTable();
  if (!table.ok()) return "read: " + table.status().ToString();
  if (!(*table)->Equals(**plain, arrow::EqualOptions::Defaults().nans_equal(true))) {
    return "read " + std::to_string((*table)->num_rows()) + " rows, the scan " +
           std::to_string((*plain)->num_rows()) + "; explain:\n" + read_explain.ToString();
  }
  query::Explain count_explain;
  auto counted = query::Count(*snapshot, filter, &count_explain);
  auto expected = dataset->CountRows(filter);
  if (!counted.ok() || !expected.ok() || *counted != *expected) {
    return "count " + (counted.ok() ? std::to_string(*counted) : counted.status().ToString()) +
           " vs " + (expected.ok() ? std::to_string(*expected) : expected.status().ToString()) +
           "; explain:\n" + count_explain.ToString();
  }
  if (explain != nullptr) *explain = count_explain.ToString();
  return "";
}

bool Includes(const std::vector<uint64_t>& answer, const std::vector<uint64_t>& expected) {
  return std::includes(answer.begin(), answer.end(), expected.begin(), expected.end());
}

}  // namespace tessera::testing
