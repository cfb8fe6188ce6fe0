// Deletion vectors: the set of deleted row offsets of one fragment, as a roaring bitmap.
//
// A delete never rewrites data files or indexes; it writes a new deletion vector for each
// fragment it touches (the union of the old one and the newly deleted offsets) and the next
// manifest points the fragment at it. Readers subtract it at read time.
#pragma once

#include <arrow/array.h>

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <cstdint>
#include <memory>

#include "tessera/format/manifest.pb.h"
#include "tessera/io/storage.h"

namespace tessera::dataset {

// The fragment's deleted offsets; empty when it has no deletion file. Corrupt (naming the file
// and the fragment) when the file is damaged: a bad frame, a malformed bitmap
// (io/roaring_check.h), a count other than the manifest's, or an offset past the fragment's rows.
arrow::Result<std::shared_ptr<const Roaring>> LoadDeletionVector(const io::Storage& storage,
                                                                 const format::Fragment& fragment);

// Writes `deleted` durably as a new deletion file of `fragment_id` and describes it.
arrow::Result<format::DeletionFile> WriteDeletionVector(io::Storage& storage, uint32_t fragment_id,
                                                        uint64_t version, const Roaring& deleted);

// Mask of the live rows of a batch of `rows` rows starting at offset `first`; null when nothing
// is deleted there.
arrow::Result<std::shared_ptr<arrow::BooleanArray>> LiveRows(const Roaring& deleted, uint64_t first,
                                                             int64_t rows);

}  // namespace tessera::dataset
