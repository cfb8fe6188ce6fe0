#include "tessera/dataset/row_matcher.h"

#include <algorithm>

#include "tessera/dataset/deletion_vector.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::vector<int>> FilterColumns(const arrow::Schema& schema,
                                              const expr::Filter& filter) {
  std::vector<int> columns;
  for (const auto& name : filter.referenced_columns()) {
    const int index = schema.GetFieldIndex(name);
    if (index < 0) return Error(ErrorKind::kInternal, "filter column ", name, " vanished");
    columns.push_back(index);
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  return columns;
}

arrow::Result<Roaring> FindMatchingRows(const io::Storage& storage,
                                        const format::Fragment& fragment,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        const expr::Filter& filter, const Roaring& deleted) {
  ARROW_ASSIGN_OR_RAISE(auto columns, FilterColumns(*schema, filter));
  // A constant predicate reads no column; decode the narrowest one to learn the row count.
  if (columns.empty()) columns.push_back(0);
  // The caller's vector, borrowed for the call, so that the reader does not load it again.
  std::shared_ptr<const Roaring> borrowed(std::shared_ptr<const Roaring>(), &deleted);
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        FragmentReader::Open(storage, fragment, schema, columns, borrowed));
  Roaring matches;
  for (int index = 0; index < reader->num_batches(); ++index) {
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(index));
    GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
    const auto first =
        static_cast<uint32_t>(static_cast<uint64_t>(index) * reader->rows_per_batch());
    // Deleted rows are not evaluated at all (Filter::Select), so they cannot fail a filter.
    ARROW_ASSIGN_OR_RAISE(auto live, LiveRows(deleted, first, batch->num_rows()));
    ARROW_ASSIGN_OR_RAISE(auto selected, filter.Select(*batch, live.get()));
    for (int64_t row = 0; row < selected->length(); ++row) {
      const uint32_t offset = first + static_cast<uint32_t>(row);
      if (selected->IsValid(row) && selected->Value(row) && !deleted.contains(offset))
        matches.add(offset);
    }
  }
  return matches;
}

}  // namespace tessera::dataset
