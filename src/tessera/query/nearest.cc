#include "tessera/query/nearest.h"

#include "tessera/query/prepared_nearest.h"
#include "tessera/status.h"

namespace tessera::query {

arrow::Result<std::shared_ptr<arrow::Table>> Nearest(const dataset::Dataset& dataset,
                                                     const NearestOptions& options,
                                                     Explain* explain) {
  ARROW_ASSIGN_OR_RAISE(auto prepared, PreparedNearest::Make(dataset, options, explain));
  if (static_cast<int64_t>(options.query.size()) != prepared->dim()) {
    return InvalidArgument("the query vector has ", options.query.size(),
                           " dimensions, but column '", options.column, "' holds vectors of ",
                           prepared->dim(), " dimensions");
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, prepared->Search(options.query.data(), {}, explain));
  return prepared->Materialize(rows, explain);
}

}  // namespace tessera::query
