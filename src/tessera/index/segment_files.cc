#include "tessera/index/segment_files.h"

#include <set>

#include "tessera/index/segment_meta.h"
#include "tessera/status.h"

namespace tessera::index {

namespace {

std::set<std::string> ListedSegments(const format::Manifest& manifest) {
  std::set<std::string> uuids;
  for (const auto& index : manifest.indexes()) {
    for (const auto& segment : index.segments()) uuids.insert(segment.uuid());
  }
  return uuids;
}

}  // namespace

dataset::NewFiles FilesOfSegment(const IndexFamily& family, const format::SegmentMeta& segment) {
  dataset::NewFiles files;
  const std::string directory = SegmentPath(segment.uuid());
  files.directories.push_back(directory);
  for (const auto& file : family.RequiredFiles(segment)) {
    files.files.push_back(directory + "/" + file);
  }
  return files;
}

arrow::Result<std::shared_ptr<dataset::Dataset>> CommitIndexChangeWithSegmentFiles(
    const dataset::Dataset& dataset, dataset::IndexChange change, SegmentOrigin origin) {
  change.new_files = {};
  change.new_files.remove_on_failure = origin == SegmentOrigin::kBuiltHere;
  if (change.definition) {
    const std::set<std::string> listed = ListedSegments(dataset.manifest());
    for (const auto& segment : change.definition->segments()) {
      if (listed.count(segment.uuid()) > 0) continue;
      ARROW_ASSIGN_OR_RAISE(const IndexFamily* family, GetFamily(segment.family()));
      dataset::NewFiles files = FilesOfSegment(*family, segment);
      auto& added = change.new_files;
      added.directories.insert(added.directories.end(), files.directories.begin(),
                               files.directories.end());
      added.files.insert(added.files.end(), files.files.begin(), files.files.end());
    }
  }
  return dataset.CommitIndexChange(std::move(change));
}

void RemoveSegmentDirectory(const SegmentDirectory& directory) {
  (void)directory.storage->DeleteDirectory(directory.path);
}

BuiltSegments::~BuiltSegments() {
  for (const auto& uuid : uuids_) (void)storage_->DeleteDirectory(SegmentPath(uuid));
}

void BuiltSegments::HandOver(const dataset::IndexChange& change) {
  std::set<std::string> kept;
  if (change.definition) {
    for (const auto& segment : change.definition->segments()) kept.insert(segment.uuid());
  }
  for (const auto& uuid : uuids_) {
    if (kept.count(uuid) == 0) (void)storage_->DeleteDirectory(SegmentPath(uuid));
  }
  uuids_.clear();
}

}  // namespace tessera::index
