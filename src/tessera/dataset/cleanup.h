// Cleanup: reclaiming space from old versions and from writes that never committed.
//
// Removes manifests older than the retention, never the latest, then every file under data/,
// _deletions/, _transactions/ and _versions/ (temporary files of crashed commits), and every
// segment directory under _indices/, that no remaining manifest references and that is itself
// older than the retention (a directory's age is that of its newest file). The age test on
// files protects writers in flight: their files are young and not referenced yet.
#pragma once

#include <arrow/result.h>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

arrow::Result<CleanupReport> CleanupDataset(io::Storage& storage, const CleanupOptions& options);

}  // namespace tessera::dataset
