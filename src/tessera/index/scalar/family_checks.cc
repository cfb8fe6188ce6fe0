#include "tessera/index/scalar/family_checks.h"

#include "tessera/status.h"

namespace tessera::index::scalar {

namespace {

bool HasColumn(const BuildInput& input) {
  return input.schema != nullptr && input.column_index >= 0 &&
         input.column_index < input.schema->num_fields();
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Field>> ColumnToBuild(const BuildInput& input,
                                                           std::string_view build) {
  if (!HasColumn(input)) {
    return InvalidArgument(build, " of index '", input.index_name,
                           "' needs a schema and a column of that schema (column ",
                           input.column_index, ")");
  }
  return input.schema->field(input.column_index);
}

arrow::Result<std::shared_ptr<arrow::Field>> ColumnToVerify(const BuildInput& definition,
                                                            std::string_view family,
                                                            const format::SegmentMeta& segment) {
  if (!HasColumn(definition)) {
    return InvalidArgument("checking ", family, " segment ", segment.uuid(),
                           " needs the schema and column of its index");
  }
  return definition.schema->field(definition.column_index);
}

arrow::Status HeldTypeMismatch(std::string_view family, const format::SegmentMeta& segment,
                               std::string_view held, const arrow::Field& column,
                               std::string_view relation, std::string_view expected) {
  return InvalidArgument(family, " segment ", segment.uuid(), " holds values of type ", held,
                         " but column '", column.name(), "' ", relation, " ", expected);
}

arrow::Status MergedTypeMismatch(std::string_view family, const format::SegmentMeta& segment,
                                 std::string_view held, const format::SegmentMeta& head,
                                 std::string_view head_held) {
  return InvalidArgument("cannot merge ", family, " segments of different value types: segment ",
                         segment.uuid(), " holds ", held, ", segment ", head.uuid(), " holds ",
                         head_held);
}

arrow::Status WithBuildContext(const arrow::Status& status, std::string_view family,
                               const BuildInput& input, const arrow::Field& column) {
  return WithContext(status, Concat("building ", family, " index '", input.index_name,
                                    "' on column '", column.name(), "'"));
}

arrow::Status WithMergeContext(const arrow::Status& status, std::string_view family,
                               const format::SegmentMeta& head) {
  return WithContext(status,
                     Concat("merging segments of ", family, " index '", head.index_name(), "'"));
}

}  // namespace tessera::index::scalar
