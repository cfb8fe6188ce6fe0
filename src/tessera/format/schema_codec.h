// Conversion between an Arrow schema with stable field ids and its manifest form.
//
// Field ids are assigned once, when a field first appears, and never reused: indexes refer to
// fields by id, so that renaming or reordering columns in a later version cannot make an index
// point at the wrong data.
#pragma once

#include <arrow/result.h>
#include <arrow/type.h>

#include <memory>
#include <vector>

#include "tessera/format/manifest.pb.h"

namespace tessera::format {

struct SchemaWithIds {
  std::shared_ptr<arrow::Schema> schema;
  std::vector<int32_t> field_ids;  // parallel to schema->fields()
};

arrow::Result<Schema> EncodeSchema(const SchemaWithIds& schema);
arrow::Result<SchemaWithIds> DecodeSchema(const Schema& encoded);

}  // namespace tessera::format
