// ForEachColumnBatch: how a build reads its input, the indexed column of each of its fragments,
// batch by batch, each checked against the manifest before the family sees it.
//
// The visitor gets the fragment id, the offset of the batch's first row in its fragment (so row
// i has address BatchRowAddress(fragment, first_offset, i)) and the column, of exactly the
// field's type. A batch of another type, out of sequence or past the fragment's physical rows,
// and a fragment holding fewer rows than the manifest says, are Corrupt naming the fragment and
// the dataset. Every row read counts in GlobalReadStatistics().rows_scanned. A fragment given
// twice is InvalidArgument: its rows would be indexed twice. Each batch visited advances the
// current progress phase (util/operation_control.h) by its rows, and ends the build with
// Cancelled when a cancellation was requested.
#pragma once

#include <arrow/array.h>
#include <arrow/status.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"

namespace tessera::index {

using ColumnBatchVisitor = std::function<arrow::Status(
    uint32_t fragment_id, uint64_t first_offset, const std::shared_ptr<arrow::Array>& column)>;

// The row address of row `i` of a batch whose first row is at `first_offset` of its fragment.
inline uint64_t BatchRowAddress(uint32_t fragment_id, uint64_t first_offset, int64_t i) {
  return dataset::MakeRowAddress(fragment_id,
                                 static_cast<uint32_t>(first_offset + static_cast<uint64_t>(i)));
}

// `family` names the building family in messages.
arrow::Status ForEachColumnBatch(const BuildInput& input, std::string_view family,
                                 const ColumnBatchVisitor& visit);

}  // namespace tessera::index
