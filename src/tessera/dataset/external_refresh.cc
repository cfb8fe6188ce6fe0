#include "tessera/dataset/external_refresh.h"

#include "tessera/dataset/commit.h"
#include "tessera/dataset/external_files.h"
#include "tessera/dataset/external_parquet.h"
#include "tessera/dataset/operation.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<RefreshResult> RefreshExternalFiles(const std::shared_ptr<Dataset>& snapshot,
                                                  const WriteOptions& options) {
  RefreshResult result;
  result.dataset = snapshot;
  std::vector<RewriteOperation::Group> groups;
  for (const auto& fragment : snapshot->manifest().fragments()) {
    if (!IsExternal(fragment)) continue;
    const format::DataFile& file = fragment.files(0);
    const std::string& location = file.external().location();
    auto opened = ExternalParquetFile::Open(location, &file, /*check_footer=*/true);
    if (opened.ok()) continue;
    if (KindOf(opened.status()) != ErrorKind::kStale) return opened.status();
    RewriteOperation::Group group;
    group.old_fragment_ids.push_back(fragment.id());
    // Registered as it was: the same rows per batch, bad vectors read as they were.
    auto registered =
        RegisterExternalFile(*snapshot->storage(), location, snapshot->schema(),
                             file.rows_per_batch(), file.external().bad_vectors_as_null());
    if (registered.ok()) {
      group.new_fragments.push_back(std::move(*registered));
      result.reregistered.push_back(location);
    } else if (KindOf(registered.status()) == ErrorKind::kNotFound) {
      result.removed.push_back(location);
    } else {
      return registered.status();
    }
    groups.push_back(std::move(group));
  }
  if (groups.empty()) return result;
  RewriteOperation operation(std::move(groups), "refresh");
  ARROW_ASSIGN_OR_RAISE(auto manifest,
                        CommitOperation(*snapshot->storage(),
                                        std::make_shared<format::Manifest>(snapshot->manifest()),
                                        operation, options));
  ARROW_ASSIGN_OR_RAISE(result.dataset,
                        Dataset::FromManifest(snapshot->storage(), std::move(manifest)));
  return result;
}

}  // namespace tessera::dataset
