#include "tessera/dataset/schema_rules.h"

#include <set>
#include <string>
#include <vector>

#include "tessera/status.h"

namespace tessera::dataset {

namespace {

bool IsSupportedScalar(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::BOOL:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
      return true;
    default:
      return false;
  }
}

bool IsSupported(const arrow::DataType& type) {
  if (IsSupportedScalar(type)) return true;
  if (type.id() == arrow::Type::FIXED_SIZE_LIST) {
    const auto value = static_cast<const arrow::FixedSizeListType&>(type).value_type()->id();
    return value == arrow::Type::FLOAT || value == arrow::Type::HALF_FLOAT;
  }
  if (type.id() == arrow::Type::LIST) {
    const auto value = static_cast<const arrow::ListType&>(type).value_type()->id();
    return value == arrow::Type::STRING || value == arrow::Type::INT64;
  }
  return false;
}

}  // namespace

arrow::Status ValidateSchema(const arrow::Schema& schema, std::string_view dataset) {
  if (schema.num_fields() == 0) {
    return InvalidArgument("dataset ", dataset, ": the schema has no columns");
  }
  std::set<std::string> names;
  for (const auto& field : schema.fields()) {
    if (field->name().empty()) {
      return InvalidArgument("dataset ", dataset,
                             ": a column has an empty name; name every column");
    }
    if (field->name()[0] == '_') {
      return InvalidArgument("dataset ", dataset, ": column '", field->name(),
                             "' starts with '_', which is reserved for virtual columns; rename it");
    }
    if (!names.insert(field->name()).second) {
      return InvalidArgument("dataset ", dataset, ": column '", field->name(),
                             "' appears twice; column names must be unique");
    }
    if (!IsSupported(*field->type())) {
      return Unsupported("dataset ", dataset, ": column '", field->name(), "' has type ",
                         field->type()->ToString(),
                         ", which tessera cannot store; cast it to a supported type (integers, "
                         "floats, bool, string, binary, date32, timestamp, "
                         "fixed_size_list<float32|float16>, list<string|int64>)");
    }
  }
  return arrow::Status::OK();
}

arrow::Status CheckWriteSchema(const arrow::Schema& dataset_schema, const arrow::Schema& write,
                               std::string_view dataset) {
  std::vector<std::string> problems;
  for (const auto& field : dataset_schema.fields()) {
    auto incoming = write.GetFieldByName(field->name());
    if (incoming == nullptr) {
      problems.push_back("missing field '" + field->name() + "' (" + field->type()->ToString() +
                         ")");
    } else if (!incoming->type()->Equals(*field->type())) {
      problems.push_back("field '" + field->name() + "' has type " + incoming->type()->ToString() +
                         " but the dataset has " + field->type()->ToString());
    }
  }
  for (const auto& field : write.fields()) {
    if (dataset_schema.GetFieldIndex(field->name()) < 0) {
      problems.push_back("unexpected field '" + field->name() + "' (" + field->type()->ToString() +
                         ")");
    }
  }
  if (problems.empty()) return arrow::Status::OK();
  std::string message;
  for (const auto& problem : problems) message += (message.empty() ? "" : "; ") + problem;
  return InvalidArgument("the data's schema does not match dataset ", dataset, ": ", message,
                         ". Cast the data to the dataset's schema, or use overwrite to replace it");
}

format::SchemaWithIds AssignFieldIds(const std::shared_ptr<arrow::Schema>& schema,
                                     const format::SchemaWithIds* previous,
                                     int32_t* next_field_id) {
  format::SchemaWithIds result;
  result.schema = schema;
  for (const auto& field : schema->fields()) {
    int32_t id = -1;
    if (previous != nullptr) {
      const int index = previous->schema->GetFieldIndex(field->name());
      if (index >= 0 && previous->schema->field(index)->type()->Equals(*field->type())) {
        id = previous->field_ids[index];
      }
    }
    if (id < 0) id = (*next_field_id)++;
    result.field_ids.push_back(id);
  }
  return result;
}

}  // namespace tessera::dataset
