// Options of dataset writes and reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::util {
class OperationControl;
}

namespace tessera::dataset {

struct WriteOptions {
  // A fragment (one data file) holds at most this many rows; larger inputs are split.
  uint64_t max_rows_per_file = 1024 * 1024;
  // Rows per record batch inside a data file: the unit a reader decodes at a time.
  uint64_t rows_per_batch = 8192;
  // How often a commit that lost a race to a compatible commit rebases and tries again.
  int max_commit_attempts = 100;
  // Progress reports and cancellation (util/operation_control.h), null for none; must outlive
  // the call. Create, Append, Overwrite and Compact report a "writing" / "rewriting" phase in
  // rows and honour a cancellation until they commit.
  util::OperationControl* control = nullptr;
};

// The name of the virtual column holding row addresses: (fragment_id << 32) | row_offset.
inline constexpr const char* kRowAddressColumn = "_rowaddr";

struct ScanOptions {
  // Columns to return, in this order; empty means all columns of the schema. `_rowaddr` names
  // the row-address column, so {"_rowaddr"} returns only the addresses.
  std::vector<std::string> columns;
  // SQL-like predicate (docs/filters.md); empty means every row.
  std::string filter;
  // Return at most this many rows (after filtering).
  std::optional<uint64_t> limit;
  // Append a uint64 column `_rowaddr` with each row's address.
  bool with_row_address = false;
};

struct CleanupOptions {
  // Manifests created longer ago than this are removed (never the latest, never the newest
  // readable one), and so are the files that only they referenced.
  std::chrono::seconds older_than{std::chrono::hours(24 * 7)};
  // Files and segment directories that no manifest references (a write in flight, or the
  // leftovers of a crash) are removed only once older than both older_than and this: a writer
  // may be about to commit them. See docs/datasets.md, "Cleanup".
  std::chrono::seconds grace_period{std::chrono::hours(1)};
  // Removes unreferenced files by older_than alone, ignoring the grace period. Safe only when no
  // other process writes to the dataset: a concurrent write then loses its files and fails (its
  // commit checks them, so it never publishes a version that lacks them).
  bool delete_unverified = false;
  // Report what would be removed without removing anything.
  bool dry_run = false;
};

}  // namespace tessera::dataset
