#include "tessera/dataset/deletion_vector.h"

#include <arrow/builder.h>

#include <stdexcept>
#include <string>

#include "tessera/format/paths.h"
#include "tessera/io/framed_file.h"
#include "tessera/io/roaring_check.h"
#include "tessera/io/uuid.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::shared_ptr<const Roaring>> LoadDeletionVector(const io::Storage& storage,
                                                                 const format::Fragment& fragment) {
  if (!fragment.has_deletion() || fragment.deletion().path().empty()) {
    return std::make_shared<const Roaring>();
  }
  const std::string& path = fragment.deletion().path();
  ARROW_ASSIGN_OR_RAISE(auto file, storage.ReadFile(path));
  ARROW_ASSIGN_OR_RAISE(auto payload, io::Unframe(*file, storage.AbsolutePath(path)));
  // readSafe alone accepts malformed containers that later set operations crash on.
  ARROW_ASSIGN_OR_RAISE(
      Roaring decoded,
      io::DecodePortableRoaring(payload, Concat("deletion file ", storage.AbsolutePath(path),
                                                " of fragment ", fragment.id())));
  auto bitmap = std::make_shared<const Roaring>(std::move(decoded));
  if (bitmap->cardinality() != fragment.deletion().num_deleted()) {
    return Corrupt("deletion file ", storage.AbsolutePath(path), " holds ", bitmap->cardinality(),
                   " offsets but the manifest says ", fragment.deletion().num_deleted());
  }
  if (!bitmap->isEmpty() && bitmap->maximum() >= fragment.physical_rows()) {
    return Corrupt("deletion file ", storage.AbsolutePath(path), " deletes row offset ",
                   bitmap->maximum(), " of fragment ", fragment.id(), ", which has only ",
                   fragment.physical_rows(), " rows");
  }
  return bitmap;
}

arrow::Result<format::DeletionFile> WriteDeletionVector(io::Storage& storage, uint32_t fragment_id,
                                                        uint64_t version, const Roaring& deleted) {
  Roaring compact = deleted;
  compact.runOptimize();
  std::string payload(compact.getSizeInBytes(/*portable=*/true), '\0');
  compact.write(payload.data(), /*portable=*/true);
  const std::string path = format::DeletionFilePath(fragment_id, version, io::NewUuid());
  ARROW_RETURN_NOT_OK(storage.WriteFile(path, io::Frame(payload)));
  format::DeletionFile file;
  file.set_path(path);
  file.set_num_deleted(deleted.cardinality());
  return file;
}

arrow::Result<std::shared_ptr<arrow::BooleanArray>> LiveRows(const Roaring& deleted, uint64_t first,
                                                             int64_t rows) {
  if (deleted.isEmpty()) return nullptr;
  const auto begin = static_cast<uint32_t>(first);
  const auto last = static_cast<uint32_t>(first + static_cast<uint64_t>(rows) - 1);
  const uint64_t deleted_here = deleted.rank(last) - (begin == 0 ? 0 : deleted.rank(begin - 1));
  if (deleted_here == 0) return nullptr;
  arrow::BooleanBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Resize(rows));
  for (int64_t row = 0; row < rows; ++row) {
    builder.UnsafeAppend(!deleted.contains(begin + static_cast<uint32_t>(row)));
  }
  ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
  return std::static_pointer_cast<arrow::BooleanArray>(array);
}

}  // namespace tessera::dataset
