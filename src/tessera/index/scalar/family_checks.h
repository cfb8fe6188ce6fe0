// Family checks: what every scalar family's Build, Verify and Merge check of their inputs
// before reading a file, and the context their failures carry, worded alike.
//
// Build and Verify read the indexed column from their BuildInput: the field of its schema at
// its column_index, which must exist (InvalidArgument otherwise, naming the build or the
// segment). Verify then compares the type of the values a segment holds with the type the
// family keeps the column's values as, and Merge the types of its inputs: a mismatch is
// InvalidArgument naming the segments and both types. The comparison itself stays with each
// family (Arrow type equality, or the type names a segment records). A build or merge that
// fails later names what failed: the family, the index and the column or segments' index.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type.h>

#include <memory>
#include <string_view>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"

namespace tessera::index::scalar {

// The field `input` builds an index on. `build` names the build in the message ("a BTREE
// build", "an NGRAM build").
arrow::Result<std::shared_ptr<arrow::Field>> ColumnToBuild(const BuildInput& input,
                                                           std::string_view build);

// The field of the index `segment` of `family` is verified against.
arrow::Result<std::shared_ptr<arrow::Field>> ColumnToVerify(const BuildInput& definition,
                                                            std::string_view family,
                                                            const format::SegmentMeta& segment);

// The error for `segment` of `family` holding values of type `held` where `column` `relation`
// `expected` ("is of type" the column's own type, "is indexed as" a storage type).
arrow::Status HeldTypeMismatch(std::string_view family, const format::SegmentMeta& segment,
                               std::string_view held, const arrow::Field& column,
                               std::string_view relation, std::string_view expected);

// The error for merge inputs of `family` holding values of different types: `segment` holds
// `held`, `head` (the first input) `head_held`.
arrow::Status MergedTypeMismatch(std::string_view family, const format::SegmentMeta& segment,
                                 std::string_view held, const format::SegmentMeta& head,
                                 std::string_view head_held);

// `status` (an error) with the context "building <family> index '<index>' on column '<column>'".
arrow::Status WithBuildContext(const arrow::Status& status, std::string_view family,
                               const BuildInput& input, const arrow::Field& column);

// `status` (an error) with the context "merging segments of <family> index '<index>'", the
// index of `head`, the first input.
arrow::Status WithMergeContext(const arrow::Status& status, std::string_view family,
                               const format::SegmentMeta& head);

}  // namespace tessera::index::scalar
