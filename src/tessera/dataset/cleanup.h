// Cleanup: reclaiming space from old versions and from writes that never committed.
//
// 1. Manifests created longer ago than the retention (older_than) are removed, except the latest
//    and the newest readable one.
// 2. Every file under data/, _deletions/, _transactions/, the temporary files of crashed commits
//    under _versions/, and every segment directory under _indices/ that no remaining manifest
//    references is a candidate, and falls in one of two classes:
//     - verified: a manifest removed in step 1 (or expired) references it. It belonged to a
//       committed version and no writer can reference it again (writers only build on the latest
//       version, which is kept). Removed once older than the retention.
//     - unverified: no manifest references it. It may be a write in flight, about to commit.
//       Removed once older than the retention *and* the grace period (default 1 hour), or by the
//       retention alone with delete_unverified.
//    A segment directory's age is that of its newest file.
// 3. A manifest that cannot be read (Corrupt) is kept and reported, and while one exists no file
//    at all is removed: nobody knows what that version references.
//
// The grace period is what keeps a concurrent writer safe: a cleanup that lists a writer's file
// and deletes it an instant after the writer checked its files would otherwise win. A commit
// checks its new files right before publishing (dataset/new_files.h), which catches a cleanup
// run with delete_unverified, but cannot close that last window on its own.
#pragma once

#include <arrow/result.h>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

arrow::Result<CleanupReport> CleanupDataset(io::Storage& storage, const CleanupOptions& options);

}  // namespace tessera::dataset
