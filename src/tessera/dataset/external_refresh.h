// Refresh: records what changed external files (docs/external.md) hold now.
//
// An external fragment whose file no longer matches its fingerprint is replaced, in one commit,
// by a new fragment over the file as it is (registered again, external_files.h), or removed
// when the file is gone. The new fragment has a new id, so its rows are no index's until
// `index optimize` indexes them (the segments that covered the old fragment no longer answer
// for anything), and the old fragment's deleted rows do not carry over: they were rows of the
// old content. Unchanged files are left alone; with nothing changed nothing is committed.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"

namespace tessera::dataset {

struct RefreshResult {
  std::vector<std::string> reregistered;  // locations registered again
  std::vector<std::string> removed;       // locations that no longer exist
  std::shared_ptr<Dataset> dataset;       // the version committed (the input when unchanged)
};

// `snapshot` may be opened without checking its external files (Dataset::Open). Errors of
// registering a changed file again (another schema, a bad row) name it; nothing is committed.
arrow::Result<RefreshResult> RefreshExternalFiles(const std::shared_ptr<Dataset>& snapshot,
                                                  const WriteOptions& options = {});

}  // namespace tessera::dataset
