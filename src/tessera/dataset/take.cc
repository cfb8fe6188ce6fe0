#include "tessera/dataset/take.h"

#include <algorithm>
#include <unordered_map>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/external_files.h"
#include "tessera/dataset/fragment_reader.h"
#include "tessera/dataset/read_statistics.h"
#include "tessera/dataset/scanner.h"
#include "tessera/io/parallel_reads.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

struct Request {
  uint32_t offset;
  int64_t position;  // index in the caller's address list
};

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
arrow::Result<std::vector<std::shared_ptr<arrow::Array>>> Gather(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const std::vector<RowOfBatches>& sources) {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  std::vector<const arrow::ArrayData*> arrays(batches.size());
  for (int column = 0; column < schema->num_fields(); ++column) {
    for (size_t b = 0; b < batches.size(); ++b) arrays[b] = batches[b]->column_data(column).get();
    ARROW_ASSIGN_OR_RAISE(auto array, GatherRows(schema->field(column)->type(), arrays, sources));
    columns.push_back(std::move(array));
  }
  return columns;
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
  bool remote = false;  // some fragment is read from object storage
  for (auto& [fragment_id, requests] : by_fragment) {
    const format::Fragment& fragment = manifest.fragments(fragment_index[fragment_id]);
    ARROW_ASSIGN_OR_RAISE(const FragmentReader* reader, readers(fragment, column_indices));
    remote = remote || ReadsFromObjectStorage(storage, fragment);
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

  // Each touched batch read once (in parallel: an external file's batches are decoded, not
  // mapped), then the rows copied out in the caller's order.
  struct Run {
    const FragmentTake* take;
    int batch_index;
    std::vector<uint32_t> local;
    size_t first;
  };
  std::vector<Run> runs;
  for (const FragmentTake& take : takes) {
    ARROW_RETURN_NOT_OK(ForEachBatchRun(
        *take.reader, take.offsets,
        [&](int batch_index, const std::vector<uint32_t>& local, size_t first) -> arrow::Status {
          runs.push_back({&take, batch_index, local, first});
          return arrow::Status::OK();
        }));
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches(runs.size());
  const auto read_run = [&](int64_t r) -> arrow::Status {
    const Run& run = runs[static_cast<size_t>(r)];
    ARROW_ASSIGN_OR_RAISE(batches[static_cast<size_t>(r)],
                          ReadTouchedBatch(*run.take->reader, run.batch_index, run.local,
                                           /*whole_batches=*/false));
    return arrow::Status::OK();
  };
  // Reads of object storage wait on the store, not the CPU: more at once than cores.
  ARROW_RETURN_NOT_OK(io::ReadEach(static_cast<int64_t>(runs.size()), remote, read_run));
  std::vector<RowOfBatches> sources(row_addresses.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    for (size_t i = 0; i < run.local.size(); ++i) {
      sources[static_cast<size_t>(run.take->positions[run.first + i])] = {r, run.local[i]};
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto gathered, Gather(output_schema, batches, sources));
  GlobalReadStatistics().rows_taken += row_addresses.size();
  return arrow::Table::Make(output_schema, std::move(gathered),
                            static_cast<int64_t>(sources.size()));
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> TakeFromFragment(
    const FragmentReader& reader, const std::vector<uint32_t>& offsets, bool whole_batches) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  std::vector<RowOfBatches> sources;
  sources.reserve(offsets.size());
  ARROW_RETURN_NOT_OK(ForEachBatchRun(
      reader, offsets,
      [&](int batch_index, const std::vector<uint32_t>& local, size_t) -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(auto batch,
                              ReadTouchedBatch(reader, batch_index, local, whole_batches));
        for (uint32_t row : local) sources.push_back({batches.size(), row});
        batches.push_back(std::move(batch));
        return arrow::Status::OK();
      }));
  GlobalReadStatistics().rows_taken += offsets.size();
  return CopyRows(reader.schema(), batches, sources);
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> CopyRows(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const std::vector<RowOfBatches>& rows) {
  ARROW_ASSIGN_OR_RAISE(auto columns, Gather(schema, batches, rows));
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

}  // namespace tessera::dataset
