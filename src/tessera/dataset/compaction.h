// Compaction: rewrites small fragments and fragments with many deleted rows into new
// fragments, in one commit (a RewriteOperation, dataset/operation.h; docs/datasets.md,
// "Compaction").
//
// Planning walks the fragments in the manifest's order. A fragment is a candidate when it holds
// fewer than target_rows_per_fragment live rows or more than max_deleted_fraction of its rows
// are deleted. Runs of consecutive candidates are cut into groups of at most
// target_rows_per_fragment live rows; a group is rewritten when it merges two or more fragments,
// or when its single fragment is over the deleted fraction (the rewrite drops its deleted
// rows). Anything else would rewrite rows to get the same fragments back: it is left alone, so
// a compaction with nothing to do writes nothing and commits nothing.
//
// A rewritten group's live rows are streamed, in order, into new fragments of at most
// target_rows_per_fragment rows (memory: one batch at a time). The new fragments get new ids,
// so row addresses of rewritten rows change; older versions keep reading their own files until
// cleanup removes them. Index segments never answer for fragments that no longer exist, so the
// rewritten rows are unindexed until `index optimize` indexes them (every family: remapping a
// segment's row addresses costs what building it does); a segment left with no live fragment
// leaves its index in the same commit.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/dataset/options.h"

namespace tessera::dataset {

inline constexpr uint64_t kDefaultTargetRowsPerFragment = 1024 * 1024;
inline constexpr double kDefaultMaxDeletedFraction = 0.1;

struct CompactionOptions {
  // In [1, 2^32 - 1]: a fragment's rows are addressed by a 32-bit offset.
  uint64_t target_rows_per_fragment = kDefaultTargetRowsPerFragment;
  // In [0, 1]: a fragment with a larger share of deleted rows is rewritten even when large.
  double max_deleted_fraction = kDefaultMaxDeletedFraction;
};

struct CompactionGroup {
  std::vector<uint32_t> fragment_ids;  // consecutive in the manifest's order
  uint64_t live_rows = 0;
  uint64_t deleted_rows = 0;
};

struct CompactionPlan {
  uint64_t version = 0;  // the version it was planned on
  std::vector<CompactionGroup> groups;
  uint64_t fragments() const;
  uint64_t live_rows() const;
  uint64_t deleted_rows() const;
};

// InvalidArgument for options out of range, naming the option and its range.
arrow::Status ValidateCompactionOptions(const CompactionOptions& options);

// What Compact would rewrite on `dataset`; reads nothing but the manifest.
arrow::Result<CompactionPlan> PlanCompaction(const Dataset& dataset,
                                             const CompactionOptions& options);

struct CompactionResult {
  CompactionPlan plan;
  uint64_t fragments_written = 0;
  std::shared_ptr<Dataset> dataset;  // the version committed (the input when nothing to do)
};

// Plans, rewrites and commits. CommitConflict (retryable) when a concurrent commit deleted rows
// from, compacted or overwrote the fragments it rewrites; its files are then removed.
arrow::Result<CompactionResult> Compact(const std::shared_ptr<Dataset>& dataset,
                                        const CompactionOptions& options,
                                        const WriteOptions& write_options = {});

}  // namespace tessera::dataset
