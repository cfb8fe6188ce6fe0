// Page-level reads of an external Parquet file (docs/external.md, "How the files are read"):
// the rows of one column that a few wanted rows of a row group lie in, decoded from the data
// pages holding them rather than from the whole column chunk.
//
// Parquet decodes a column chunk from its start; the offset index (written by Spark and by
// pyarrow with write_page_index=True) says where each data page starts and which row it starts
// with, so the pages holding the wanted rows can be read alone. Each run of consecutive pages
// becomes a column chunk of its own (the chunk's dictionary page, if any, then the run's pages,
// byte for byte as the file holds them) in a Parquet file assembled in memory with a footer made
// for it, which Arrow's reader then decodes as it decodes the file: the same types, nulls,
// nesting and codecs, without a second decoder to keep right.
//
// It applies to a field of one leaf column (flat columns and lists of a primitive: vectors) with
// an offset index in that row group; otherwise, or when the pages hold more than a given share
// of the row group (decoding the whole chunk is then no dearer), the caller decodes the row
// group.
#pragma once

#include <arrow/array.h>
#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tessera/dataset/external_parquet.h"

namespace tessera::dataset {

// Rows [first_row, first_row + values->length()) of a row group, as Arrow reads the file.
struct PageRun {
  int64_t first_row = 0;
  std::shared_ptr<arrow::Array> values;
};

// The pages of field `field` (a position in file.schema()) of row group `group` that hold
// `rows` (ascending, distinct offsets within the row group), decoded: one PageRun per run of
// consecutive pages, ascending. nullopt when page-level reading does not apply: a field of
// several leaf columns, no offset index for its column in this row group, or pages holding more
// than `max_rows` rows. Corrupt naming the file when the pages do not decode to the rows the
// offset index says they hold. The caller checks first that the file is unchanged
// (ExternalParquetFile::CheckUnchanged), so that neither the offset index nor the pages are read
// through the footer of what the file held before.
arrow::Result<std::optional<std::vector<PageRun>>> ReadPagesHolding(
    const ExternalParquetFile& file, int group, int field, const std::vector<int64_t>& rows,
    int64_t max_rows);

}  // namespace tessera::dataset
