// MergeInputs: the checks every family's Merge() makes on its inputs before reading a file, and
// what they establish (docs/design.md, "Segment contract").
//
// Inputs are segments of one logical index over disjoint fragments: at least one, one directory
// each, all of the merging family, the same indexed field and index name (case-insensitive).
// A violation is InvalidArgument naming the segments; a malformed fragment bitmap is Corrupt.
// The result holds each input's fragments, their union and the BuildInput whose FillCommonMeta
// describes the merged segment (the union of fragments, the newest dataset version).
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <string_view>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"

namespace tessera::index {

struct MergeInputs {
  std::vector<Roaring> covered;  // covered[i]: the fragments of input i
  Roaring fragments;             // their union
  uint64_t dataset_version = 0;  // the newest of the inputs'
  // Index name, field id, dataset version and fragments of the merged segment, for
  // FillCommonMeta (no schema, no column: a merge never reads the table).
  BuildInput merged;
};

arrow::Result<MergeInputs> CheckMergeInputs(std::string_view family,
                                            const std::vector<format::SegmentMeta>& inputs,
                                            const std::vector<SegmentDirectory>& dirs,
                                            const SegmentDirectory& out);

}  // namespace tessera::index
