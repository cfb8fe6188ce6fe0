// The optimistic commit protocol (docs/design.md, "Commit protocol").
//
//   1. The operation's files are already written (invisible: nothing references them).
//   2. Write the transaction file, then create _versions/<base + 1>.manifest put-if-absent.
//   3. Lost the race: read every transaction committed since our base, let the operation rebase
//      over them (or fail with CommitConflict), back off, and try again on the newest version.
//
// Right before each publication the commit checks that the operation's new files exist
// (dataset/new_files.h), so a version never references a file a concurrent cleanup removed. A
// commit that fails having certainly published nothing removes the operation's new files and
// its transaction files; one that fails while publishing (the outcome is unknown) leaves them.
//
// A crash at any step leaves the previous version intact: the manifest is the only thing that
// makes files visible, and it appears atomically.
#pragma once

#include <arrow/result.h>

#include <memory>

#include "tessera/dataset/operation.h"
#include "tessera/dataset/options.h"
#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// Commits `operation`, planned against `base`, and returns the manifest it published. If the
// operation turns out to be a no-op, publishes nothing and returns the latest manifest.
// CommitConflict (retryable) after options.max_commit_attempts lost races, or when a new file of
// the operation is missing.
arrow::Result<std::shared_ptr<const format::Manifest>> CommitOperation(
    io::Storage& storage, std::shared_ptr<const format::Manifest> base, Operation& operation,
    const WriteOptions& options);

}  // namespace tessera::dataset
