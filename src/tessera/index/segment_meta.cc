#include "tessera/index/segment_meta.h"

#include <google/protobuf/util/json_util.h>

#include <stdexcept>

#include "tessera/dataset/manifest_store.h"
#include "tessera/format/paths.h"
#include "tessera/io/roaring_check.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"

namespace tessera::index {

std::string EncodeFragmentBitmap(const Roaring& fragments) {
  Roaring compact = fragments;
  compact.runOptimize();
  std::string bytes(compact.getSizeInBytes(/*portable=*/true), '\0');
  compact.write(bytes.data(), /*portable=*/true);
  return bytes;
}

arrow::Result<Roaring> DecodeFragmentBitmap(const format::SegmentMeta& segment) {
  const std::string& bytes = segment.fragment_bitmap();
  const std::string where = "segment " + format::Printable(segment.uuid()) + " of index '" +
                            format::Printable(segment.index_name()) + "'";
  if (bytes.empty()) {
    return Corrupt(where,
                   " has an empty fragment bitmap; it must list the fragments the segment covers");
  }
  return io::DecodePortableRoaring(bytes, "the fragment bitmap of " + where);
}

Roaring FragmentIdsOf(const std::vector<format::Fragment>& fragments) {
  Roaring ids;
  for (const auto& fragment : fragments) ids.add(fragment.id());
  return ids;
}

std::string SegmentPath(std::string_view uuid) {
  return std::string(format::kIndicesDir) + "/" + std::string(uuid);
}

arrow::Result<SegmentDirectory> DirectoryOf(const std::shared_ptr<io::Storage>& storage,
                                            const format::SegmentMeta& segment) {
  ARROW_RETURN_NOT_OK(format::CheckUuid(segment.uuid(), "segment uuid"));
  return SegmentDirectory{storage, SegmentPath(segment.uuid()), segment.uuid()};
}

arrow::Result<SegmentDirectory> NewSegmentDirectory(const std::shared_ptr<io::Storage>& storage) {
  SegmentDirectory directory{storage, "", io::NewUuid()};
  directory.path = SegmentPath(directory.uuid);
  ARROW_RETURN_NOT_OK(storage->CreateDirectory(directory.path));
  return directory;
}

arrow::Result<uint64_t> SegmentSizeBytes(const SegmentDirectory& directory) {
  ARROW_ASSIGN_OR_RAISE(auto entries, directory.storage->List(directory.path));
  uint64_t size = 0;
  for (const auto& entry : entries) size += static_cast<uint64_t>(entry.size_bytes);
  return size;
}

arrow::Status SegmentFileError(const arrow::Status& status, const format::SegmentMeta& segment,
                               std::string_view file) {
  std::string context = "segment " + format::Printable(segment.uuid()) + " of index '" +
                        format::Printable(segment.index_name()) + "'";
  if (!file.empty()) {
    context += ", file " + SegmentPath(format::Printable(segment.uuid())) + "/" + std::string(file);
  }
  // A file written by a newer tessera is not damage: it stays Unsupported.
  if (IsStorageOrProcessFailure(status) || KindOf(status) == ErrorKind::kUnsupported) {
    return WithContext(status, context);
  }
  return Corrupt(context, " cannot be read: ", status.message());
}

arrow::Status FillCommonMeta(const BuildInput& input, std::string_view family,
                             const SegmentDirectory& directory, format::SegmentMeta* meta) {
  meta->set_uuid(directory.uuid);
  meta->set_index_name(input.index_name);
  meta->set_family(std::string(family));
  meta->set_field_id(input.field_id);
  meta->set_fragment_bitmap(EncodeFragmentBitmap(FragmentIdsOf(input.fragments)));
  meta->set_dataset_version(input.dataset_version);
  meta->set_created_at_micros(dataset::NowMicros());
  meta->set_index_format_version(kIndexFormatVersion);
  ARROW_ASSIGN_OR_RAISE(uint64_t size, SegmentSizeBytes(directory));
  meta->set_size_bytes(size);
  return arrow::Status::OK();
}

std::string SegmentToJson(const format::SegmentMeta& segment) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(segment, &json, options);
  return json;
}

std::string SegmentsToJson(const std::vector<format::SegmentMeta>& segments) {
  std::string json = "[";
  for (size_t i = 0; i < segments.size(); ++i) {
    json += (i == 0 ? "" : ",\n ") + SegmentToJson(segments[i]);
  }
  return json + "]";
}

arrow::Result<std::vector<format::SegmentMeta>> SegmentsFromJson(std::string_view json) {
  size_t start = json.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return InvalidArgument("segment JSON is empty");
  std::vector<format::SegmentMeta> segments;
  auto parse_one = [&](std::string_view text) -> arrow::Status {
    format::SegmentMeta segment;
    auto status = google::protobuf::util::JsonStringToMessage(std::string(text), &segment);
    if (!status.ok()) {
      return InvalidArgument("segment JSON cannot be parsed: ", status.ToString());
    }
    segments.push_back(std::move(segment));
    return arrow::Status::OK();
  };
  if (json[start] != '[') {
    ARROW_RETURN_NOT_OK(parse_one(json));
  } else {
    // An array: wrap it in a message with one repeated field, the simplest exact parse.
    format::IndexDef wrapper;
    auto status = google::protobuf::util::JsonStringToMessage(
        "{\"segments\":" + std::string(json.substr(start)) + "}", &wrapper);
    if (!status.ok()) return InvalidArgument("segment JSON cannot be parsed: ", status.ToString());
    segments.assign(wrapper.segments().begin(), wrapper.segments().end());
  }
  for (const auto& segment : segments) {
    ARROW_RETURN_NOT_OK(format::CheckUuid(segment.uuid(), "segment uuid"));
  }
  return segments;
}

}  // namespace tessera::index
