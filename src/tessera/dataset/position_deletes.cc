#include "tessera/dataset/position_deletes.h"

#include <arrow/array.h>
#include <arrow/compute/cast.h>

#include <filesystem>
#include <map>

#include "tessera/dataset/external_files.h"
#include "tessera/status.h"

namespace tessera::dataset {

arrow::Result<std::vector<uint64_t>> ReadPositionDeletes(const Dataset& dataset,
                                                         const std::string& path) {
  std::map<std::string, const format::Fragment*> by_location;
  for (const auto& fragment : dataset.manifest().fragments()) {
    if (IsExternal(fragment)) by_location[fragment.files(0).external().location()] = &fragment;
  }
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenFilesAsReader({path}));
  const auto& schema = *reader->schema();
  const int path_column = schema.GetFieldIndex("file_path");
  const int position_column = schema.GetFieldIndex("pos");
  if (path_column < 0 || position_column < 0 ||
      !arrow::is_string(schema.field(path_column)->type()->id()) ||
      !arrow::is_integer(schema.field(position_column)->type()->id())) {
    return InvalidArgument("position deletes ", path,
                           " need a string column 'file_path' and an integer column 'pos'; "
                           "the file has ",
                           schema.ToString());
  }
  std::vector<uint64_t> addresses;
  int64_t row_number = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    ARROW_ASSIGN_OR_RAISE(auto paths,
                          arrow::compute::Cast(*batch->column(path_column), arrow::utf8()));
    ARROW_ASSIGN_OR_RAISE(auto positions,
                          arrow::compute::Cast(*batch->column(position_column), arrow::int64()));
    const auto& path_values = static_cast<const arrow::StringArray&>(*paths);
    const auto& position_values = static_cast<const arrow::Int64Array&>(*positions);
    for (int64_t row = 0; row < batch->num_rows(); ++row, ++row_number) {
      if (path_values.IsNull(row) || position_values.IsNull(row)) {
        return InvalidArgument("position deletes ", path, ": row ", row_number, " has a null");
      }
      ARROW_ASSIGN_OR_RAISE(const std::string location,
                            NormalizedExternalLocation(std::string(path_values.GetView(row))));
      auto found = by_location.find(location);
      if (found == by_location.end()) {
        return InvalidArgument("position deletes ", path, ": row ", row_number, " names ", location,
                               ", which is not an external file of version ", dataset.version(),
                               " of dataset ", dataset.uri());
      }
      const int64_t position = position_values.Value(row);
      if (position < 0 || static_cast<uint64_t>(position) >= found->second->physical_rows()) {
        return InvalidArgument("position deletes ", path, ": row ", row_number, " names row ",
                               position, " of ", location, ", which has ",
                               found->second->physical_rows(), " rows");
      }
      addresses.push_back(MakeRowAddress(found->second->id(), static_cast<uint32_t>(position)));
    }
  }
  return addresses;
}

}  // namespace tessera::dataset
