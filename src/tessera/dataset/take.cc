#include "tessera/dataset/take.h"

#include <arrow/array/concatenate.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <unordered_map>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/dataset/scanner.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

// Up to this many rows a take copies row by row into builders (Gather below) instead of running
// Arrow's take kernel per batch and again to restore the caller's order: each kernel call costs
// microseconds of dispatch (a search's top 10 would pay it a dozen times), a row slice about a
// hundred nanoseconds per column.
constexpr size_t kGatherLimit = 256;

struct Request {
  uint32_t offset;
  int64_t position;  // index in the caller's address list
};

arrow::Result<std::shared_ptr<arrow::Array>> MakeIndices(const std::vector<uint32_t>& values) {
  arrow::UInt32Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(values));
  return builder.Finish();
}

// Batch `batch_index` of `reader`, verified where `local` (rows of it) needs it: a few rows only
// their blocks; beyond a sixteenth of the batch they touch most blocks anyway, and checking the
// whole batch in a few long ranges is cheaper.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadTouchedBatch(
    const FragmentReader& reader, int batch_index, const std::vector<uint32_t>& local,
    bool whole_batches) {
  if (whole_batches || local.size() * kWholeBatchFraction >= reader.rows_per_batch()) {
    return reader.ReadBatch(batch_index);
  }
  return reader.ReadRowsOfBatch(batch_index, local);
}

// Calls visit(batch_index, local, first) for each run of `offsets` (ascending) inside one batch
// of `reader`: `local` holds the run's offsets within the batch, `first` the index in `offsets`
// of the run's first offset. Stops at the first error visit returns.
template <typename Visit>
arrow::Status ForEachBatchRun(const FragmentReader& reader, const std::vector<uint32_t>& offsets,
                              Visit visit) {
  const uint64_t rows_per_batch = reader.rows_per_batch();
  size_t next = 0;
  while (next < offsets.size()) {
    const int batch_index = static_cast<int>(offsets[next] / rows_per_batch);
    const uint64_t batch_first = static_cast<uint64_t>(batch_index) * rows_per_batch;
    const size_t first = next;
    std::vector<uint32_t> local;
    for (; next < offsets.size() && offsets[next] < batch_first + rows_per_batch; ++next) {
      local.push_back(static_cast<uint32_t>(offsets[next] - batch_first));
    }
    ARROW_RETURN_NOT_OK(visit(batch_index, local, first));
  }
  return arrow::Status::OK();
}

// The rows `sources` names, in that order, copied into fresh arrays of `schema`'s columns.
// NotImplemented when a column's builder cannot append slices (the caller then takes instead).
arrow::Result<std::vector<std::shared_ptr<arrow::Array>>> Gather(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const std::vector<RowOfBatches>& sources) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int column = 0; column < schema->num_fields(); ++column) {
    std::vector<arrow::ArraySpan> spans;
    spans.reserve(batches.size());
    for (const auto& batch : batches) spans.emplace_back(*batch->column_data(column));
    ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(schema->field(column)->type()));
    ARROW_RETURN_NOT_OK(builder->Reserve(static_cast<int64_t>(sources.size())));
    for (const RowOfBatches& source : sources) {
      ARROW_RETURN_NOT_OK(builder->AppendArraySlice(spans[source.batch], source.row, 1));
    }
    ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
    columns.push_back(std::move(array));
  }
  return columns;
}

// Rows `rows` of `batch`: copied one by one when few, else through Arrow's take kernel.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> TakeFromBatch(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<uint32_t>& rows) {
  if (rows.size() <= kCopyRowsLimit) {
    auto copied = CopyRows(batch, rows);
    if (copied.ok() || !copied.status().IsNotImplemented()) return copied;
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, MakeIndices(rows));
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
  return taken.record_batch();
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Table>> TakeRows(const io::Storage& storage,
                                                      const format::Manifest& manifest,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::vector<uint64_t>& row_addresses,
                                                      const std::vector<std::string>& columns) {
  std::vector<std::unique_ptr<FragmentReader>> opened;
  auto open = [&](const format::Fragment& fragment,
                  const std::vector<int>& indices) -> arrow::Result<const FragmentReader*> {
    ARROW_ASSIGN_OR_RAISE(auto reader, FragmentReader::Open(storage, fragment, schema, indices));
    opened.push_back(std::move(reader));
    return opened.back().get();
  };
  return TakeRows(storage, manifest, schema, row_addresses, columns, open);
}

arrow::Result<std::shared_ptr<arrow::Table>> TakeRows(const io::Storage& storage,
                                                      const format::Manifest& manifest,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::vector<uint64_t>& row_addresses,
                                                      const std::vector<std::string>& columns,
                                                      const FragmentReaders& readers) {
  ARROW_ASSIGN_OR_RAISE(auto column_indices, ResolveColumns(*schema, columns));
  std::unordered_map<uint32_t, int> fragment_index;
  for (int i = 0; i < manifest.fragments_size(); ++i)
    fragment_index[manifest.fragments(i).id()] = i;

  std::unordered_map<uint32_t, std::vector<Request>> by_fragment;
  for (size_t position = 0; position < row_addresses.size(); ++position) {
    const uint64_t address = row_addresses[position];
    if (fragment_index.count(FragmentOf(address)) == 0) {
      return NotFound("row address ", address, " names fragment ", FragmentOf(address),
                      ", which version ", manifest.version(), " of dataset ", storage.root(),
                      " does not have");
    }
    by_fragment[FragmentOf(address)].push_back({OffsetOf(address), static_cast<int64_t>(position)});
  }

  arrow::FieldVector fields;
  for (int index : column_indices) fields.push_back(schema->field(index));
  auto output_schema = arrow::schema(fields);

  // Checked offsets (ascending) of each fragment, with their callers' positions.
  struct FragmentTake {
    const FragmentReader* reader;
    std::vector<uint32_t> offsets;
    std::vector<int64_t> positions;
  };
  std::vector<FragmentTake> takes;
  for (auto& [fragment_id, requests] : by_fragment) {
    const format::Fragment& fragment = manifest.fragments(fragment_index[fragment_id]);
    ARROW_ASSIGN_OR_RAISE(const FragmentReader* reader, readers(fragment, column_indices));
    std::sort(requests.begin(), requests.end(),
              [](const Request& a, const Request& b) { return a.offset < b.offset; });
    FragmentTake take{reader, {}, {}};
    take.offsets.reserve(requests.size());
    take.positions.reserve(requests.size());
    for (const Request& request : requests) {
      const uint32_t row = request.offset;
      if (row >= reader->physical_rows()) {
        return NotFound("row address ", MakeRowAddress(fragment_id, row), ": fragment ",
                        fragment_id, " has only ", reader->physical_rows(), " rows");
      }
      if (reader->deletions().contains(row)) {
        return NotFound("row address ", MakeRowAddress(fragment_id, row),
                        " was deleted in version ", manifest.version(), " of dataset ",
                        storage.root());
      }
      take.offsets.push_back(row);
      take.positions.push_back(request.position);
    }
    takes.push_back(std::move(take));
  }

  if (row_addresses.size() <= kGatherLimit) {
    // Few rows: read each touched batch once and copy the rows out in the caller's order.
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    std::vector<RowOfBatches> sources(row_addresses.size());
    for (const FragmentTake& take : takes) {
      ARROW_RETURN_NOT_OK(ForEachBatchRun(
          *take.reader, take.offsets,
          [&](int batch_index, const std::vector<uint32_t>& local, size_t first) -> arrow::Status {
            ARROW_ASSIGN_OR_RAISE(auto batch, ReadTouchedBatch(*take.reader, batch_index, local,
                                                               /*whole_batches=*/false));
            for (size_t i = 0; i < local.size(); ++i) {
              sources[static_cast<size_t>(take.positions[first + i])] = {batches.size(), local[i]};
            }
            batches.push_back(std::move(batch));
            return arrow::Status::OK();
          }));
    }
    auto gathered = Gather(output_schema, batches, sources);
    if (gathered.ok()) {
      GlobalReadStatistics().rows_taken += row_addresses.size();
      return arrow::Table::Make(output_schema, std::move(*gathered),
                                static_cast<int64_t>(sources.size()));
    }
    if (!gathered.status().IsNotImplemented()) return gathered.status();
  }

  std::vector<std::shared_ptr<arrow::RecordBatch>> pieces;
  std::vector<int64_t> piece_positions;  // caller position of each row of the concatenated pieces
  piece_positions.reserve(row_addresses.size());
  for (const FragmentTake& take : takes) {
    ARROW_ASSIGN_OR_RAISE(auto taken, TakeFromFragment(*take.reader, take.offsets));
    pieces.push_back(std::move(taken));
    piece_positions.insert(piece_positions.end(), take.positions.begin(), take.positions.end());
  }

  ARROW_ASSIGN_OR_RAISE(auto gathered, arrow::Table::FromRecordBatches(output_schema, pieces));
  // Restore the caller's order: row i of the result is gathered row inverse[i].
  std::vector<uint32_t> inverse(row_addresses.size());
  for (size_t row = 0; row < piece_positions.size(); ++row) {
    inverse[static_cast<size_t>(piece_positions[row])] = static_cast<uint32_t>(row);
  }
  ARROW_ASSIGN_OR_RAISE(auto order, MakeIndices(inverse));
  ARROW_ASSIGN_OR_RAISE(auto ordered, arrow::compute::Take(gathered, order));
  return ordered.table();
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> TakeFromFragment(
    const FragmentReader& reader, const std::vector<uint32_t>& offsets, bool whole_batches) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> pieces;
  ARROW_RETURN_NOT_OK(ForEachBatchRun(
      reader, offsets,
      [&](int batch_index, const std::vector<uint32_t>& local, size_t) -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(auto batch,
                              ReadTouchedBatch(reader, batch_index, local, whole_batches));
        ARROW_ASSIGN_OR_RAISE(auto taken, TakeFromBatch(batch, local));
        GlobalReadStatistics().rows_taken += local.size();
        pieces.push_back(std::move(taken));
        return arrow::Status::OK();
      }));
  if (pieces.size() == 1) return pieces.front();
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(reader.schema(), pieces));
  return table->CombineChunksToBatch();
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> CopyRows(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const std::vector<RowOfBatches>& rows) {
  ARROW_ASSIGN_OR_RAISE(auto columns, Gather(schema, batches, rows));
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> CopyRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<uint32_t>& rows) {
  std::vector<RowOfBatches> sources;
  sources.reserve(rows.size());
  for (uint32_t row : rows) sources.push_back({0, row});
  return CopyRows(batch->schema(), {batch}, sources);
}

}  // namespace tessera::dataset
