// Which Arrow schemas a dataset can hold, and how a write's schema must relate to the
// dataset's.
//
// Supported column types: signed and unsigned integers, float16/32/64, bool, string,
// large_string, binary, large_binary, date32, timestamp (any unit and time zone),
// fixed_size_list<float16|float32> (vectors) and list<string|int64> (tags), all nullable.
// Names must be unique and non-empty, and must not start with '_' (reserved for virtual
// columns such as _rowaddr and _distance).
#pragma once

#include <arrow/status.h>
#include <arrow/type.h>

#include <string_view>

#include "tessera/format/schema_codec.h"

namespace tessera::dataset {

// Unsupported naming the field and its type, or InvalidArgument for bad names.
arrow::Status ValidateSchema(const arrow::Schema& schema, std::string_view dataset);

// A write must carry exactly the dataset's fields (by name and type; order and nullability
// flags may differ). InvalidArgument lists every missing, unexpected and retyped field.
arrow::Status CheckWriteSchema(const arrow::Schema& dataset_schema, const arrow::Schema& write,
                               std::string_view dataset);

// Field ids for the schema of an overwrite: a field that keeps its name and type keeps its id,
// any other field gets a fresh id starting at *next_field_id.
format::SchemaWithIds AssignFieldIds(const std::shared_ptr<arrow::Schema>& schema,
                                     const format::SchemaWithIds* previous, int32_t* next_field_id);

}  // namespace tessera::dataset
