// Helpers around SegmentMeta (format/manifest.proto): the fragment bitmap, the segment
// directory, and JSON, the form in which a segment built by one process travels to the
// process that commits it (`tessera index build-segment` prints it, `commit-segments` reads it).
//
// A SegmentMeta from outside (JSON, a manifest) is untrusted: its uuid names a directory only
// after it is checked to be a canonical UUID (format/paths.h), which DirectoryOf does.
#pragma once

#include <arrow/result.h>
#include <roaring/roaring.hh>

#include <string>
#include <vector>

#include "tessera/format/manifest.pb.h"
#include "tessera/index/index_family.h"

namespace tessera::index {

// 2: every Arrow IPC file of a segment has block checksums (`<file>.crc32c`) and the segment
// records its dataset's identity. Segments of format 1 are refused at commit with Unsupported.
inline constexpr uint32_t kIndexFormatVersion = 2;

std::string EncodeFragmentBitmap(const Roaring& fragments);
// Corrupt, naming the segment and saying what is wrong, for an empty or malformed bitmap.
arrow::Result<Roaring> DecodeFragmentBitmap(const format::SegmentMeta& segment);
Roaring FragmentIdsOf(const std::vector<format::Fragment>& fragments);

// "_indices/<uuid>"; `uuid` must be canonical (DirectoryOf checks it).
std::string SegmentPath(std::string_view uuid);
// The directory of `segment`; InvalidArgument when its uuid is not a canonical UUID.
arrow::Result<SegmentDirectory> DirectoryOf(const std::shared_ptr<io::Storage>& storage,
                                            const format::SegmentMeta& segment);
// A fresh directory for a new segment (the uuid is new; the directory is created).
arrow::Result<SegmentDirectory> NewSegmentDirectory(const std::shared_ptr<io::Storage>& storage);
// Sum of the sizes of the files in a segment directory.
arrow::Result<uint64_t> SegmentSizeBytes(const SegmentDirectory& directory);

// Fills the fields every family sets the same way: uuid, index name, family, field id,
// fragment bitmap, dataset version, creation time, format version, size.
arrow::Status FillCommonMeta(const BuildInput& input, std::string_view family,
                             const SegmentDirectory& directory, format::SegmentMeta* meta);

// `status`, met reading `file` of existing segment `segment` (to merge it, to load its model),
// as Corrupt naming the segment, its index and the file (when not empty): a segment whose files
// cannot be read is damaged. Failures of the storage itself (IOError, ResourceExhausted) and
// Unsupported (a file a newer tessera wrote) keep their kind.
arrow::Status SegmentFileError(const arrow::Status& status, const format::SegmentMeta& segment,
                               std::string_view file);

std::string SegmentToJson(const format::SegmentMeta& segment);
std::string SegmentsToJson(const std::vector<format::SegmentMeta>& segments);  // JSON array
// Accepts one segment object or an array of them. InvalidArgument for malformed JSON and for
// a segment whose uuid is not a canonical UUID.
arrow::Result<std::vector<format::SegmentMeta>> SegmentsFromJson(std::string_view json);

}  // namespace tessera::index
