#include "tessera/query/filtered_scan.h"

#include "tessera/query/snapshot.h"

namespace tessera::query {

arrow::Result<std::shared_ptr<arrow::Table>> Scan(const dataset::Dataset& dataset,
                                                  const dataset::ScanOptions& options,
                                                  Explain* explain) {
  ARROW_ASSIGN_OR_RAISE(auto reader, Read(Snapshot::Borrowing(dataset), options, explain));
  return reader->ToTable();
}

arrow::Result<RowsByFragment> FindMatchingRows(const dataset::Dataset& dataset,
                                               const expr::Filter& filter, Explain* explain,
                                               std::string_view explain_prefix) {
  return FindMatchingRows(*Snapshot::Borrowing(dataset), filter, explain, explain_prefix);
}

}  // namespace tessera::query
