// Finding the rows of a fragment that satisfy a filter: the shared core of Delete and of
// filtered counts.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include "tessera/expr/filter.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// Offsets of rows of `fragment` for which `filter` is true, excluding `deleted` offsets.
// Decodes only the columns the filter reads.
arrow::Result<Roaring> FindMatchingRows(const io::Storage& storage,
                                        const format::Fragment& fragment,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        const expr::Filter& filter, const Roaring& deleted);

// Column indices of `schema` that `filter` reads, ascending.
arrow::Result<std::vector<int>> FilterColumns(const arrow::Schema& schema,
                                              const expr::Filter& filter);

}  // namespace tessera::dataset
