// Helpers for the unit tests of scalar index families (tests/index/*_test.cc): a one-column
// dataset of given values spread over fragments, builds of one family's segments over fragment
// subsets, and the scan's answer to a filter, in row addresses, to compare segments against.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_directory.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::testing {

struct ColumnDataset {
  std::shared_ptr<dataset::Dataset> dataset;
  std::shared_ptr<arrow::RecordBatch> scanned;    // column `v` and `_rowaddr`, in scan order
  std::shared_ptr<arrow::Array> column;           // column `v` of `scanned`
  std::shared_ptr<arrow::UInt64Array> addresses;  // `_rowaddr` of `scanned`
};

// A dataset of one column `v` holding `values`, in fragments of `rows_per_file` rows.
ColumnDataset MakeColumnDataset(const TempDirectory& directory,
                                const std::shared_ptr<arrow::Array>& values,
                                uint64_t rows_per_file);

std::vector<format::Fragment> AllFragments(const dataset::Dataset& dataset);

index::BuildInput InputOf(const dataset::Dataset& dataset,
                          const std::vector<format::Fragment>& fragments,
                          index::Params params = {});

struct BuiltSegment {
  format::SegmentMeta meta;
  index::SegmentDirectory directory;
};

// Validates `params` and builds one segment of `family` over `fragments`; the segment records
// the normalized parameters.
arrow::Result<BuiltSegment> BuildSegment(const index::IndexFamily& family,
                                         const dataset::Dataset& dataset,
                                         const std::vector<format::Fragment>& fragments,
                                         const index::Params& params);
// BuildSegment over every fragment of `dataset`.
arrow::Result<BuiltSegment> BuildWholeSegment(const index::IndexFamily& family,
                                              const dataset::Dataset& dataset,
                                              const index::Params& params = {});
// One segment per `group` consecutive fragments of `fragments` (the last group may be smaller):
// the parts a merge test merges.
arrow::Result<std::vector<BuiltSegment>> BuildSegmentsOfGroups(
    const index::IndexFamily& family, const dataset::Dataset& dataset,
    const std::vector<format::Fragment>& fragments, size_t group, const index::Params& params = {});
// Merges `inputs` into one new segment.
arrow::Result<BuiltSegment> MergeSegments(const index::IndexFamily& family,
                                          const dataset::Dataset& dataset,
                                          const std::vector<BuiltSegment>& inputs);

arrow::Result<std::unique_ptr<index::SegmentReader>> OpenSegment(const index::IndexFamily& family,
                                                                 const BuiltSegment& segment);

// The row addresses where `filter` (over `v`) is TRUE in the scan, ascending, restricted to the
// fragments of `segment` when given.
arrow::Result<std::vector<uint64_t>> ScanTrueRows(const ColumnDataset& data,
                                                  const std::string& filter,
                                                  const format::SegmentMeta* segment = nullptr);

// The root of `filter` bound against the dataset's schema (kept alive by `holder`).
arrow::Result<const expr::Node*> ParseLeaf(const ColumnDataset& data, const std::string& filter,
                                           std::shared_ptr<const void>* holder);

}  // namespace tessera::testing
