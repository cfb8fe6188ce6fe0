#include "tessera/index/column_batches.h"

#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/index/segment_meta.h"
#include "tessera/status.h"
#include "tessera/util/operation_control.h"

namespace tessera::index {

arrow::Status ForEachColumnBatch(const BuildInput& input, std::string_view family,
                                 const ColumnBatchVisitor& visit) {
  if (input.storage == nullptr || input.schema == nullptr || input.column_index < 0 ||
      input.column_index >= input.schema->num_fields()) {
    return InvalidArgument("a ", family, " build of index '", input.index_name,
                           "' needs a storage, a schema and a column of that schema (column ",
                           input.column_index, ")");
  }
  if (FragmentIdsOf(input.fragments).cardinality() != input.fragments.size()) {
    return InvalidArgument("a ", family, " build of index '", input.index_name,
                           "' was given the same fragment more than once");
  }
  const auto& field = input.schema->field(input.column_index);
  for (const auto& fragment : input.fragments) {
    ARROW_ASSIGN_OR_RAISE(auto reader,
                          dataset::FragmentReader::Open(*input.storage, fragment, input.schema,
                                                        {input.column_index}));
    const uint32_t fragment_id = fragment.id();
    uint64_t offset = 0;
    for (int index = 0; index < reader->num_batches(); ++index) {
      ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadBatch(index));
      dataset::GlobalReadStatistics().rows_scanned += static_cast<uint64_t>(batch->num_rows());
      const auto& column = batch->column(0);
      const uint64_t first = static_cast<uint64_t>(index) * reader->rows_per_batch();
      if (first != offset || !column->type()->Equals(*field->type()) ||
          first + static_cast<uint64_t>(batch->num_rows()) > fragment.physical_rows()) {
        return Corrupt("batch ", index, " of fragment ", fragment_id, " of dataset ",
                       input.storage->root(), " does not match the manifest (column '",
                       field->name(), "' of type ", column->type()->ToString(), ", ",
                       batch->num_rows(), " rows at offset ", first, ")");
      }
      ARROW_RETURN_NOT_OK(visit(fragment_id, first, column));
      ARROW_RETURN_NOT_OK(util::AdvanceProgress(static_cast<uint64_t>(batch->num_rows())));
      offset += static_cast<uint64_t>(batch->num_rows());
    }
    if (offset != fragment.physical_rows()) {
      return Corrupt("fragment ", fragment_id, " of dataset ", input.storage->root(), " holds ",
                     offset, " rows; the manifest says ", fragment.physical_rows());
    }
  }
  return arrow::Status::OK();
}

}  // namespace tessera::index
