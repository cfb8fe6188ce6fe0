// Position deletes: rows of external Parquet files (docs/external.md) named by (file, row
// position), as Iceberg's position-delete files and other lakehouse tools write them, turned
// into the row addresses of a version so that Dataset::DeleteRows deletes them.
//
// The file is Parquet or Arrow (dataset/file_source.cc) with a string column `file_path` and an
// integer column `pos` (0-based row of that file). Each path is matched, made absolute and
// normalized, against the locations of the version's external fragments.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"

namespace tessera::dataset {

// The row addresses `path` names in `dataset`. InvalidArgument naming the file for a missing or
// mistyped column, a null, a path that is not one of the version's external files, or a
// position beyond that file's rows.
arrow::Result<std::vector<uint64_t>> ReadPositionDeletes(const Dataset& dataset,
                                                         const std::string& path);

}  // namespace tessera::dataset
