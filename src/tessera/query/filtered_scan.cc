#include "tessera/query/filtered_scan.h"

#include "tessera/query/snapshot.h"

namespace tessera::query {

namespace {

// A snapshot of a dataset the caller keeps alive for the call.
std::shared_ptr<const Snapshot> SnapshotOf(const dataset::Dataset& dataset) {
  return Snapshot::Make(
      std::shared_ptr<const dataset::Dataset>(std::shared_ptr<const dataset::Dataset>(), &dataset));
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Table>> Scan(const dataset::Dataset& dataset,
                                                  const dataset::ScanOptions& options,
                                                  Explain* explain) {
  ARROW_ASSIGN_OR_RAISE(auto reader, Read(SnapshotOf(dataset), options, explain));
  return reader->ToTable();
}

arrow::Result<RowsByFragment> FindMatchingRows(const dataset::Dataset& dataset,
                                               const expr::Filter& filter, Explain* explain,
                                               std::string_view explain_prefix) {
  return FindMatchingRows(*SnapshotOf(dataset), filter, explain, explain_prefix);
}

}  // namespace tessera::query
