#include "tessera/dataset/commit.h"

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "tessera/dataset/manifest_store.h"
#include "tessera/dataset/new_files.h"
#include "tessera/format/paths.h"
#include "tessera/io/fault_injection.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"

namespace tessera::dataset {

namespace {

// Randomized exponential backoff keeps racing writers from colliding in lockstep.
void BackOff(int attempt) {
  thread_local std::mt19937 generator{std::random_device{}()};
  const int ceiling_us = 200 << std::min(attempt, 8);
  std::uniform_int_distribution<int> pause(0, ceiling_us);
  std::this_thread::sleep_for(std::chrono::microseconds(pause(generator)));
}

// Every transaction committed after `base_version`, oldest first, and the newest manifest.
arrow::Status ReadNewerTransactions(const io::Storage& storage, uint64_t base_version,
                                    std::vector<format::Transaction>* transactions,
                                    std::shared_ptr<const format::Manifest>* latest) {
  ARROW_ASSIGN_OR_RAISE(auto newest, LatestVersionNumber(storage));
  if (!newest || *newest <= base_version) {
    return Error(ErrorKind::kInternal, "version ", base_version + 1, " of dataset ", storage.root(),
                 " exists but is not listed");
  }
  for (uint64_t version = base_version + 1; version <= *newest; ++version) {
    auto manifest = ReadManifest(storage, version);
    if (!manifest.ok() && KindOf(manifest.status()) == ErrorKind::kNotFound) {
      return CommitConflict(/*retryable=*/true, "dataset ", storage.root(), ": version ", version,
                            ", committed after the snapshot (version ", base_version,
                            ") this write started from, was removed by cleanup, so the write "
                            "cannot be checked against it; reopen the dataset and retry");
    }
    ARROW_RETURN_NOT_OK(manifest.status());
    auto transaction = ReadTransaction(storage, (*manifest)->transaction_file());
    if (!transaction.ok() && KindOf(transaction.status()) == ErrorKind::kNotFound) {
      return CommitConflict(/*retryable=*/true, "dataset ", storage.root(), ": version ", version,
                            " was removed by cleanup while this write checked it; reopen the "
                            "dataset and retry");
    }
    ARROW_RETURN_NOT_OK(transaction.status());
    transactions->push_back(std::move(*transaction));
    *latest = std::move(*manifest);
  }
  return arrow::Status::OK();
}

// The attempts of one commit. `outcome_unknown` is set when publishing itself failed: the
// manifest may then be visible, and nothing it may reference can be removed.
arrow::Result<std::shared_ptr<const format::Manifest>> CommitAttempts(
    io::Storage& storage, std::shared_ptr<const format::Manifest> base, Operation& operation,
    const WriteOptions& options, bool* outcome_unknown) {
  // Moves `base` to the newest version if the operation survives what was committed since.
  auto rebase = [&]() -> arrow::Status {
    std::vector<format::Transaction> theirs;
    std::shared_ptr<const format::Manifest> latest;
    ARROW_RETURN_NOT_OK(ReadNewerTransactions(storage, base->version(), &theirs, &latest));
    ARROW_RETURN_NOT_OK(operation.Rebase(theirs, *latest));
    base = std::move(latest);
    return arrow::Status::OK();
  };
  for (int attempt = 0; attempt < options.max_commit_attempts; ++attempt) {
    if (attempt > 0) BackOff(attempt);
    // Publish only on top of the latest version. Cleanup may have removed versions after our
    // base (never the latest), and put-if-absent alone would then succeed into that hole and
    // publish a version below the latest, invisible to readers of the latest. (A window remains
    // if cleanup runs with a retention shorter than this commit takes; see docs/datasets.md.)
    ARROW_ASSIGN_OR_RAISE(auto newest, LatestVersionNumber(storage));
    if (newest && *newest > base->version()) {
      ARROW_RETURN_NOT_OK(rebase());
      continue;
    }
    if (operation.IsNoop()) return base;

    format::Transaction transaction;
    transaction.set_read_version(base->version());
    transaction.set_uuid(io::NewUuid());
    transaction.set_created_at_micros(NowMicros());
    operation.Describe(&transaction);
    const std::string transaction_path =
        format::TransactionPath(base->version(), transaction.uuid());
    ARROW_RETURN_NOT_OK(WriteTransaction(storage, transaction, transaction_path));

    ARROW_ASSIGN_OR_RAISE(format::Manifest manifest, operation.Apply(*base));
    manifest.set_format_version(FormatVersionFor(manifest));
    manifest.set_version(base->version() + 1);
    manifest.set_created_at_micros(transaction.created_at_micros());
    manifest.set_transaction_file(transaction_path);
    manifest.set_operation(std::string(operation.name()));

    io::CrashPoint(io::kCrashBeforeManifest);
    // Last moment before the version becomes visible: everything it adds must be there.
    NewFiles added = operation.new_files();
    added.files.push_back(transaction_path);
    auto present = CheckNewFilesExist(storage, added, operation.name());
    if (!present.ok()) {
      (void)storage.DeleteFile(transaction_path);
      return present;
    }
    auto published = TryPublishManifest(storage, manifest);
    if (!published.ok()) {
      *outcome_unknown = true;
      return published.status();
    }
    if (*published) return std::make_shared<const format::Manifest>(std::move(manifest));
    // Another writer took the version: our transaction file is referenced by nothing.
    (void)storage.DeleteFile(transaction_path);
    ARROW_RETURN_NOT_OK(rebase());
  }
  return CommitConflict(/*retryable=*/true, "dataset ", storage.root(), ": the ", operation.name(),
                        " lost the commit race ", options.max_commit_attempts,
                        " times to concurrent writers; retry it");
}

}  // namespace

arrow::Result<std::shared_ptr<const format::Manifest>> CommitOperation(
    io::Storage& storage, std::shared_ptr<const format::Manifest> base, Operation& operation,
    const WriteOptions& options) {
  io::CrashPoint(io::kCrashAfterDataFiles);
  bool outcome_unknown = false;
  auto committed = CommitAttempts(storage, std::move(base), operation, options, &outcome_unknown);
  // A failed write leaves no orphans for cleanup, unless it may have been published.
  if (!committed.ok() && !outcome_unknown) RemoveNewFiles(storage, operation.new_files());
  return committed;
}

}  // namespace tessera::dataset
