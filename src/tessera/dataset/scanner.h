// Scanner: a streaming read of one version, fragment by fragment and batch by batch, applying
// deletion vectors, the filter, the projection, the limit and the optional row-address column.
// It decodes only the projected and filtered columns. Without a limit, windows of batches are
// filtered and projected in parallel (util::ParallelFor) and returned in order; the output never
// depends on the thread count.
#pragma once

#include <arrow/record_batch.h>
#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/options.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

class DeletionVectors;
class OpenFragments;

// What a read above the dataset layer (query::Read on a snapshot) lends a scan.
struct ScanContext {
  // The version's deletion vectors, kept loaded by the caller (it must outlive the scanner);
  // null loads each fragment's.
  const DeletionVectors* deletions = nullptr;
  // The version's kept readers (dataset/open_fragments.h; built with the same deletions; must
  // outlive the scanner), through which fragments are read so that a later scan finds them
  // mapped and decoded; null opens each fragment for this scan and releases it when its
  // batches are read.
  const OpenFragments* open_fragments = nullptr;
  // Empty, or one per fragment of the manifest scanned: null, or offsets including every row
  // the filter keeps (an index's answer; it must outlive the scanner), when only the batches
  // holding one are read (dataset/candidate_batches.h).
  std::vector<const Roaring*> candidates;
};

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> MakeScanner(
    std::shared_ptr<io::Storage> storage, std::shared_ptr<const format::Manifest> manifest,
    std::shared_ptr<arrow::Schema> schema, const ScanOptions& options, ScanContext context = {});

// The names of the columns of `schema`, comma-separated: what an error about an unknown column
// lists.
std::string ColumnNames(const arrow::Schema& schema);

// Indices of the named columns of `schema`, in the order named (all columns when empty);
// InvalidArgument listing the columns for an unknown or repeated name.
arrow::Result<std::vector<int>> ResolveColumns(const arrow::Schema& schema,
                                               const std::vector<std::string>& names);

// The output schema of a scan of `schema` with `options` (InvalidArgument for unknown columns):
// the named columns in order, where the name `_rowaddr` is the row-address column, then
// `_rowaddr` when options.with_row_address asks for it and no column named it.
// Indices in `schema` of the data columns the output of a scan with `options` holds, in order.
arrow::Result<std::vector<int>> ProjectedColumns(const arrow::Schema& schema,
                                                 const ScanOptions& options);

arrow::Result<std::shared_ptr<arrow::Schema>> ScanOutputSchema(const arrow::Schema& schema,
                                                               const ScanOptions& options);

}  // namespace tessera::dataset
