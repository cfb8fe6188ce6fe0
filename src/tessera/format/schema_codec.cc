#include "tessera/format/schema_codec.h"

#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/dictionary.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>

#include "tessera/status.h"

namespace tessera::format {

arrow::Result<Schema> EncodeSchema(const SchemaWithIds& schema) {
  if (schema.field_ids.size() != static_cast<size_t>(schema.schema->num_fields())) {
    return MakeError(ErrorKind::kInternal, "schema has a field id count differing from its fields");
  }
  ARROW_ASSIGN_OR_RAISE(auto buffer, arrow::ipc::SerializeSchema(*schema.schema));
  Schema encoded;
  encoded.set_arrow_ipc(buffer->ToString());
  for (int32_t id : schema.field_ids) encoded.add_field_ids(id);
  return encoded;
}

arrow::Result<SchemaWithIds> DecodeSchema(const Schema& encoded) {
  auto buffer = arrow::Buffer::FromString(encoded.arrow_ipc());
  arrow::io::BufferReader reader(buffer);
  arrow::ipc::DictionaryMemo memo;
  auto schema = arrow::ipc::ReadSchema(&reader, &memo);
  if (!schema.ok())
    return Corrupt("manifest schema cannot be decoded: ", schema.status().message());
  if ((*schema)->num_fields() != encoded.field_ids_size()) {
    return Corrupt("manifest schema has ", (*schema)->num_fields(), " fields but ",
                   encoded.field_ids_size(), " field ids");
  }
  SchemaWithIds result;
  result.schema = *schema;
  result.field_ids.assign(encoded.field_ids().begin(), encoded.field_ids().end());
  return result;
}

}  // namespace tessera::format
