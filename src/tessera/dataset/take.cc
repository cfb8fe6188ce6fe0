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

constexpr uint64_t kDenseFraction = 16;

struct Request {
  uint32_t offset;
  int64_t position;  // index in the caller's address list
};

arrow::Result<std::shared_ptr<arrow::Array>> MakeIndices(const std::vector<uint32_t>& values) {
  arrow::UInt32Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(values));
  return builder.Finish();
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

  std::vector<std::shared_ptr<arrow::RecordBatch>> pieces;
  std::vector<int64_t> piece_positions;  // caller position of each row of the concatenated pieces
  piece_positions.reserve(row_addresses.size());
  for (auto& [fragment_id, requests] : by_fragment) {
    const format::Fragment& fragment = manifest.fragments(fragment_index[fragment_id]);
    ARROW_ASSIGN_OR_RAISE(const FragmentReader* reader, readers(fragment, column_indices));
    std::sort(requests.begin(), requests.end(),
              [](const Request& a, const Request& b) { return a.offset < b.offset; });
    std::vector<uint32_t> offsets;
    offsets.reserve(requests.size());
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
      offsets.push_back(row);
      piece_positions.push_back(request.position);
    }
    ARROW_ASSIGN_OR_RAISE(auto taken, TakeFromFragment(*reader, offsets));
    pieces.push_back(std::move(taken));
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
  size_t next = 0;
  while (next < offsets.size()) {
    const int batch_index = static_cast<int>(offsets[next] / reader.rows_per_batch());
    const uint64_t batch_first = static_cast<uint64_t>(batch_index) * reader.rows_per_batch();
    const uint64_t batch_end = batch_first + reader.rows_per_batch();
    std::vector<uint32_t> local;
    for (; next < offsets.size() && offsets[next] < batch_end; ++next) {
      local.push_back(static_cast<uint32_t>(offsets[next] - batch_first));
    }
    // Verifying a few rows checks only their blocks; beyond a sixteenth of the batch they touch
    // most blocks anyway, and checking the whole batch in a few long ranges is cheaper.
    std::shared_ptr<arrow::RecordBatch> batch;
    if (whole_batches || local.size() * kDenseFraction >= reader.rows_per_batch()) {
      ARROW_ASSIGN_OR_RAISE(batch, reader.ReadBatch(batch_index));
    } else {
      ARROW_ASSIGN_OR_RAISE(batch, reader.ReadRowsOfBatch(batch_index, local));
    }
    ARROW_ASSIGN_OR_RAISE(auto indices, MakeIndices(local));
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
    GlobalReadStatistics().rows_taken += local.size();
    pieces.push_back(taken.record_batch());
  }
  if (pieces.size() == 1) return pieces.front();
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(reader.schema(), pieces));
  return table->CombineChunksToBatch();
}

}  // namespace tessera::dataset
