// The files of new index segments, seen from the commit that publishes them
// (dataset/new_files.h): which files a segment needs, which segments a change adds, and who
// removes them when the change fails.
//
// A segment is new to a change when no index of the snapshot the change was planned on lists its
// uuid. Its files are its directory and every file its family's RequiredFiles() names; the commit
// checks they all exist right before it publishes, so no committed index ever lacks a file.
// Segments this process built are removed when their commit fails; segments handed in by the
// caller (`commit-segments`) are left for the caller to commit again.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <string>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"

namespace tessera::index {

enum class SegmentOrigin {
  kBuiltHere,  // written by this operation: removed if its commit fails
  kHandedIn,   // built elsewhere: never removed by this process
};

// The files of `segment` the commit checks: its directory and every file its family needs.
dataset::NewFiles FilesOfSegment(const IndexFamily& family, const format::SegmentMeta& segment);

// Commits `change` on `dataset` after listing, in change.new_files, the files of the segments it
// adds. NotFound for a new segment of an unknown family; CommitConflict (retryable) when a file
// is missing at commit time.
arrow::Result<std::shared_ptr<dataset::Dataset>> CommitIndexChangeWithSegmentFiles(
    const dataset::Dataset& dataset, dataset::IndexChange change, SegmentOrigin origin);

// Removes a segment directory this process wrote and will not commit (best effort: cleanup
// reclaims what this cannot).
void RemoveSegmentDirectory(const SegmentDirectory& directory);

// The segments one multi-step operation (optimize: build a delta, then merge) has built so far.
// Unless handed over to a commit, their directories are removed when this goes out of scope, so
// a step that fails leaves no orphans.
class BuiltSegments {
 public:
  explicit BuiltSegments(std::shared_ptr<io::Storage> storage) : storage_(std::move(storage)) {}
  ~BuiltSegments();
  BuiltSegments(const BuiltSegments&) = delete;
  BuiltSegments& operator=(const BuiltSegments&) = delete;

  void Add(const std::string& uuid) { uuids_.push_back(uuid); }
  // The segments `change` keeps become the commit's (it removes them itself if it fails); the
  // others (merged away again before the commit) are removed now.
  void HandOver(const dataset::IndexChange& change);

 private:
  std::shared_ptr<io::Storage> storage_;
  std::vector<std::string> uuids_;
};

}  // namespace tessera::index
