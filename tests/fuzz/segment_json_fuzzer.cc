// Fuzz target: segment metadata JSON, as `tessera index build-segment` / `merge-segments` print
// it and `commit-segments` reads it (index/segment_meta.h). The input is parsed with
// SegmentsFromJson; whatever parses must print and parse back to the same segments; then the
// segments are committed to the template dataset as a new index (CommitSegments, with the
// parameters the first segment names, as the CLI does without --param), described and opened.
#include <google/protobuf/util/message_differencer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fuzz_support.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/query/segment_cache.h"
#include "tessera/query/snapshot.h"

namespace {

using namespace tessera;

void CheckRoundTrip(const std::vector<format::SegmentMeta>& segments) {
  const std::string printed = index::SegmentsToJson(segments);
  auto reparsed = index::SegmentsFromJson(printed);
  bool same = reparsed.ok() && reparsed->size() == segments.size();
  for (size_t i = 0; same && i < segments.size(); ++i) {
    same = google::protobuf::util::MessageDifferencer::Equals(segments[i], (*reparsed)[i]);
  }
  if (!same) {
    std::cerr << "segment JSON does not round-trip: " << printed << "\n"
              << (reparsed.ok() ? std::string("parsed back differently")
                                : reparsed.status().ToString())
              << std::endl;
    std::abort();
  }
}

std::string ColumnOf(const dataset::Dataset& snapshot, int32_t field_id) {
  const auto& ids = snapshot.field_ids();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == field_id) return snapshot.schema()->field(static_cast<int>(i))->name();
  }
  return "vector";
}

void CommitAndOpen(const std::vector<format::SegmentMeta>& segments) {
  const auto& snapshot = *fuzz::Template().dataset;
  index::IndexSpec spec;
  spec.name = "fuzzed_index";
  spec.family = segments[0].family();
  spec.column = ColumnOf(snapshot, segments[0].field_id());
  spec.params = index::Params(segments[0].params().begin(), segments[0].params().end());
  auto committed = index::CommitSegments(snapshot, spec, segments);
  if (committed.ok()) {
    fuzz::Ignore(index::DescribeIndex(**committed, spec.name));
    // A cache of its own: every run reuses the template's directory and segment uuids.
    query::SegmentCache cache(uint64_t{1} << 30);
    auto opened = query::Snapshot::Make(*committed, &cache);
    const auto& indexes = (*committed)->manifest().indexes();
    for (int position = 0; position < indexes.size(); ++position) {
      if (indexes[position].name() == spec.name) fuzz::Ignore(opened->Index(position));
    }
  }
  fuzz::ResetTemplate();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::InitializeWithTemplate(); }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto segments = index::SegmentsFromJson(fuzz::BytesOf(data, size));
  if (!segments.ok() || segments->empty()) return 0;
  CheckRoundTrip(*segments);
  for (const auto& segment : *segments) fuzz::Ignore(index::DecodeFragmentBitmap(segment));
  CommitAndOpen(*segments);
  return 0;
}
