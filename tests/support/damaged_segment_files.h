// The check of a scalar family's segment files against whole-file damage: each file the family
// requires, replaced by bytes that are no such file, makes opening the segment, or reading rows
// through it, fail Corrupt naming the file (a checksum file's damage may name the file it
// guards); the segment opens again once the file is restored.
#pragma once

#include <functional>
#include <string>

#include "support/scalar_family_testing.h"
#include "tessera/index/index_family.h"
#include "tessera/index/scalar_segment.h"

namespace tessera::testing {

// Reads rows through an opened segment (answers leaves) so that damage behind the open shows.
using SegmentRowsRead = std::function<arrow::Status(const index::ScalarSegmentReader& reader)>;

// For each of family.RequiredFiles(segment.meta) under `dataset_path`: damages it, expects the
// open or `read` Corrupt naming it, and restores it. Then expects the segment to open.
void ExpectDamagedFilesCorruptNamingThem(const index::IndexFamily& family,
                                         const BuiltSegment& segment,
                                         const std::string& dataset_path,
                                         const SegmentRowsRead& read);

}  // namespace tessera::testing
