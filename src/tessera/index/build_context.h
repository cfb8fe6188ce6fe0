// Resolving an IndexSpec against a dataset snapshot: the family, the column, normalized
// parameters and BuildInputs over chosen fragments. Shared by every lifecycle operation so that
// they validate identically.
#pragma once

#include <arrow/result.h>

#include <memory>
#include <vector>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/lifecycle.h"

namespace tessera::index {

struct ResolvedSpec {
  const IndexFamily* family = nullptr;
  int column_index = -1;
  int32_t field_id = -1;
  Params params;  // normalized
};

// NotFound for an unknown family or column (naming the alternatives), InvalidArgument for a
// bad name, and the family's own errors for the column type and parameters.
arrow::Result<ResolvedSpec> ResolveSpec(const dataset::Dataset& dataset, const IndexSpec& spec);

// BuildInput over `fragments` of the snapshot.
BuildInput MakeBuildInput(const dataset::Dataset& dataset, const IndexSpec& spec,
                          const ResolvedSpec& resolved, std::vector<format::Fragment> fragments);

// Builds one segment over `fragments` with `model` (null: the family trains if it needs to).
// The segment's params are set to the normalized parameters, its dataset_uuid to the
// dataset's identity.
arrow::Result<format::SegmentMeta> BuildOneSegment(const dataset::Dataset& dataset,
                                                   const IndexSpec& spec,
                                                   const ResolvedSpec& resolved,
                                                   std::vector<format::Fragment> fragments,
                                                   const Model* model);

// The column name of a field id in the snapshot's schema ("" if the field is gone).
std::string ColumnOfField(const dataset::Dataset& dataset, int32_t field_id);

// An IndexDef for `spec` holding `segments`.
format::IndexDef MakeDefinition(const IndexSpec& spec, const ResolvedSpec& resolved,
                                std::vector<format::SegmentMeta> segments);

}  // namespace tessera::index
