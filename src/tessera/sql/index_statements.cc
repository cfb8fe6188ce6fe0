// CREATE [OR REPLACE] INDEX, DROP INDEX, SHOW INDEX (docs/sql.md, "Indexes"): the Doris-style
// index DDL over the index lifecycle (index/lifecycle.h). The SQL layer adds only what SQL
// defines: the USING keyword table, PROPERTIES as parameters, the MySQL codes of the IF cases,
// and SHOW INDEX's 13 MySQL columns. Which families exist, their parameters and validation are
// the family registry's.
#include <arrow/builder.h>

#include <algorithm>
#include <cctype>

#include "tessera/expr/diagnostics.h"
#include "tessera/index/index_family.h"
#include "tessera/index/lifecycle.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/execution.h"
#include "tessera/sql/names.h"

namespace tessera::sql {

namespace {

// "ANN, BITMAP, BTREE, ...": what USING accepts.
std::string UsingTypes() {
  std::string text = "ANN";
  for (const auto& name : index::FamilyNames()) {
    const index::IndexFamily* family = index::FindFamily(name);
    if (family != nullptr && !family->searches_vectors()) text += ", " + name;
  }
  return text;
}

std::string VectorFamilies() {
  std::string text;
  for (const auto& name : index::FamilyNames()) {
    const index::IndexFamily* family = index::FindFamily(name);
    if (family != nullptr && family->searches_vectors()) text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

// The family USING names, and the parameters: PROPERTIES without index_type, keys in lower
// case.
arrow::Result<std::pair<const index::IndexFamily*, index::Params>> ResolveUsing(
    const CreateIndexStatement& statement, const ExecutionContext& context) {
  index::Params params;
  std::optional<Property> index_type;
  for (const auto& property : statement.properties) {
    const std::string key = AsciiLower(property.key);
    if (key == "index_type") {
      index_type = property;
      continue;
    }
    if (!params.emplace(key, property.value).second) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(property.position), "property '", property.key,
                      "' is given twice");
    }
  }
  const std::string using_type = AsciiUpper(statement.using_type);
  if (using_type == "ANN") {
    if (!index_type) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(statement.using_position),
                      "USING ANN needs the property \"index_type\", one of ", VectorFamilies(),
                      ": PROPERTIES (\"index_type\" = \"IVF_PQ\", ...)");
    }
    const index::IndexFamily* family = index::FindFamily(index_type->value);
    if (family == nullptr || !family->searches_vectors()) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(index_type->position), "unknown ANN index_type '",
                      index_type->value, "'; expected one of ", VectorFamilies());
    }
    return std::make_pair(family, std::move(params));
  }
  const index::IndexFamily* family = index::FindFamily(using_type);
  if (family == nullptr) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(statement.using_position), "unknown index type '",
                    statement.using_type, "' after USING; expected one of ", UsingTypes());
  }
  if (family->searches_vectors()) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(statement.using_position), family->name(),
                    " is a vector index: write USING ANN PROPERTIES (\"index_type\" = \"",
                    family->name(), "\", ...)");
  }
  if (index_type && AsciiUpper(index_type->value) != family->name()) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(index_type->position), "property index_type '", index_type->value,
                    "' contradicts USING ", statement.using_type);
  }
  return std::make_pair(family, std::move(params));
}

// The column of the schema `name` names: exactly, else the only one equal but for case.
arrow::Result<std::string> ResolveIndexedColumn(const arrow::Schema& schema,
                                                const CreateIndexStatement& statement,
                                                const TableLocation& location) {
  std::vector<std::string> names;
  std::vector<std::string> matches;
  for (const auto& field : schema.fields()) {
    if (field->name() == statement.column) return field->name();
    names.push_back(field->name());
    if (AsciiLower(field->name()) == AsciiLower(statement.column)) matches.push_back(field->name());
  }
  if (matches.size() == 1) return matches[0];
  const std::string hint = expr::DidYouMean(expr::ClosestNames(statement.column, names));
  return SqlError(SqlCode::kKeyColumnMissing, ErrorKind::kNotFound, "Key column '",
                  statement.column, "' doesn't exist in table '", location.Qualified(), "'",
                  hint.empty() ? "" : "; " + hint);
}

}  // namespace

arrow::Result<StatementResult> ExecuteCreateIndex(const CreateIndexStatement& statement,
                                                  ExecutionContext& context) {
  if (statement.or_replace && statement.if_not_exists) {
    return SqlError(SqlCode::kWrongUsage, ErrorKind::kInvalidArgument,
                    "Incorrect usage of OR REPLACE and IF NOT EXISTS: OR REPLACE rebuilds an "
                    "existing index, IF NOT EXISTS keeps it; write one of them");
  }
  if (index::IsSystemIndexName(statement.index_name)) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, "index name '",
                    statement.index_name, "' starts with '__', which system indexes use");
  }
  ARROW_ASSIGN_OR_RAISE(auto family_and_params, ResolveUsing(statement, context));
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kAlter));
  const dataset::Dataset& dataset = pinned.snapshot->dataset();
  ARROW_ASSIGN_OR_RAISE(auto column,
                        ResolveIndexedColumn(*dataset.schema(), statement, pinned.location));
  if (!statement.or_replace && !statement.if_not_exists) {
    for (const auto& summary : index::ListIndexes(dataset, /*include_system=*/true)) {
      if (AsciiLower(summary.name) != AsciiLower(statement.index_name)) continue;
      return SqlError(
          SqlCode::kDuplicateKeyName, ErrorKind::kAlreadyExists, "Duplicate key name '",
          statement.index_name, "'",
          summary.name != statement.index_name
              ? " (index '" + summary.name + "' differs only by case; names ignore case)"
              : "",
          " on table '", pinned.location.Qualified(),
          "'; CREATE OR REPLACE INDEX rebuilds it, IF NOT EXISTS keeps it");
    }
  }
  index::IndexSpec spec{statement.index_name, column, std::string(family_and_params.first->name()),
                        std::move(family_and_params.second)};
  index::CreateIndexOptions options;
  options.if_not_exists = statement.if_not_exists;
  options.replace = statement.or_replace;
  auto no_op = [&] {
    StatementResult result;
    result.version = dataset.version();
    result.info = "index '" + statement.index_name + "' exists with this definition; nothing done";
    return result;
  };
  auto duplicate_code = [](const arrow::Status& status) {
    return KindOf(status) == ErrorKind::kAlreadyExists
               ? WithCode(status, SqlCode::kDuplicateKeyName)
               : status;
  };
  if (context.mutation != nullptr) {
    auto changes = index::CreateIndexChanges(dataset, spec, options);
    if (!changes.ok()) return duplicate_code(changes.status());
    if (!*changes) return no_op();
  }
  const arrow::Field* field = dataset.schema()->GetFieldByName(column).get();
  ARROW_ASSIGN_OR_RAISE(const bool stop,
                        context.AtMutatingCall({pinned.location.uri, dataset.version(),
                                                SchemaContract(dataset, field)}));
  if (stop) return StatementResult{};
  auto created = index::CreateIndex(dataset, spec, options);
  if (!created.ok()) return duplicate_code(created.status());
  if ((*created)->version() == dataset.version()) return no_op();
  StatementResult result;
  result.version = (*created)->version();
  return result;
}

arrow::Result<StatementResult> ExecuteDropIndex(const DropIndexStatement& statement,
                                                ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, statement.table, {}, Access::kAlter));
  const dataset::Dataset& dataset = pinned.snapshot->dataset();
  auto missing_code = [&](const arrow::Status& status) {
    if (KindOf(status) != ErrorKind::kNotFound) return status;
    return SqlError(SqlCode::kCantDropKey, ErrorKind::kNotFound, "Can't DROP INDEX '",
                    statement.index_name, "'; table '", pinned.location.Qualified(),
                    "' has no index of that name (SHOW INDEX FROM ", pinned.location.Qualified(),
                    " lists them)");
  };
  auto no_op = [&] {
    StatementResult result;
    result.version = dataset.version();
    result.info = "index '" + statement.index_name + "' does not exist; nothing done";
    return result;
  };
  if (context.mutation != nullptr) {
    auto changes = index::DropIndexChanges(dataset, statement.index_name, statement.if_exists);
    if (!changes.ok()) return missing_code(changes.status());
    if (!*changes) return no_op();
  }
  ARROW_ASSIGN_OR_RAISE(const bool stop,
                        context.AtMutatingCall({pinned.location.uri, dataset.version(),
                                                SchemaContract(dataset, nullptr)}));
  if (stop) return StatementResult{};
  auto dropped = index::DropIndex(dataset, statement.index_name, statement.if_exists);
  if (!dropped.ok()) return missing_code(dropped.status());
  if ((*dropped)->version() == dataset.version()) return no_op();
  StatementResult result;
  result.version = (*dropped)->version();
  return result;
}

namespace {

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += Concat("\\u00", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Properties of SHOW INDEX: the stored parameters (what the family's Validate normalized,
// so only keys it accepts) and the coverage, keys sorted, each value at most
// kMaxPropertyValueBytes.
constexpr size_t kMaxPropertyValueBytes = 256;

std::string PropertiesJson(const index::IndexSummary& summary) {
  std::map<std::string, std::string> entries;  // key → JSON value
  for (const auto& [key, value] : summary.params) {
    entries[key] = JsonString(value.substr(0, kMaxPropertyValueBytes));
  }
  entries["index_type"] = JsonString(summary.family);
  entries["segments"] = std::to_string(summary.num_segments);
  entries["indexed_rows"] = std::to_string(summary.indexed_rows);
  entries["unindexed_rows"] = std::to_string(summary.unindexed_rows);
  entries["indexed_fragments"] = std::to_string(summary.indexed_fragments);
  entries["unindexed_fragments"] = std::to_string(summary.unindexed_fragments);
  std::string json = "{";
  for (const auto& [key, value] : entries) {
    if (json.size() > 1) json += ", ";
    json += JsonString(key) + ": " + value;
  }
  return json + "}";
}

}  // namespace

arrow::Result<StatementResult> ExecuteShowIndex(const ShowIndexStatement& statement,
                                                ExecutionContext& context) {
  ObjectName name = statement.table;
  if (statement.database) {
    name.parts = {*statement.database, statement.table.parts.back()};
  }
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTable(context, name, {}, Access::kShow));
  const dataset::Dataset& dataset = pinned.snapshot->dataset();
  arrow::StringBuilder table, key_name, column_name, collation, null, index_type, comment,
      properties;
  arrow::Int64Builder non_unique, seq_in_index, cardinality, sub_part;
  arrow::StringBuilder packed;
  for (const auto& summary : index::ListIndexes(dataset)) {
    RETURN_NOT_OK(table.Append(pinned.location.table));
    RETURN_NOT_OK(non_unique.Append(1));
    RETURN_NOT_OK(key_name.Append(summary.name));
    RETURN_NOT_OK(seq_in_index.Append(1));
    RETURN_NOT_OK(column_name.Append(summary.column));
    RETURN_NOT_OK(collation.AppendNull());
    RETURN_NOT_OK(cardinality.AppendNull());
    RETURN_NOT_OK(sub_part.AppendNull());
    RETURN_NOT_OK(packed.AppendNull());
    const auto field = dataset.schema()->GetFieldByName(summary.column);
    RETURN_NOT_OK(null.Append(field != nullptr && field->nullable() ? "YES" : ""));
    RETURN_NOT_OK(index_type.Append(summary.family));
    RETURN_NOT_OK(comment.Append(""));
    RETURN_NOT_OK(properties.Append(PropertiesJson(summary)));
  }
  arrow::ArrayVector arrays(13);
  RETURN_NOT_OK(table.Finish(&arrays[0]));
  RETURN_NOT_OK(non_unique.Finish(&arrays[1]));
  RETURN_NOT_OK(key_name.Finish(&arrays[2]));
  RETURN_NOT_OK(seq_in_index.Finish(&arrays[3]));
  RETURN_NOT_OK(column_name.Finish(&arrays[4]));
  RETURN_NOT_OK(collation.Finish(&arrays[5]));
  RETURN_NOT_OK(cardinality.Finish(&arrays[6]));
  RETURN_NOT_OK(sub_part.Finish(&arrays[7]));
  RETURN_NOT_OK(packed.Finish(&arrays[8]));
  RETURN_NOT_OK(null.Finish(&arrays[9]));
  RETURN_NOT_OK(index_type.Finish(&arrays[10]));
  RETURN_NOT_OK(comment.Finish(&arrays[11]));
  RETURN_NOT_OK(properties.Finish(&arrays[12]));
  const std::vector<std::string> names = {
      "Table",      "Non_unique",  "Key_name",  "Seq_in_index", "Column_name",
      "Collation",  "Cardinality", "Sub_part",  "Packed",       "Null",
      "Index_type", "Comment",     "Properties"};
  arrow::FieldVector fields;
  for (size_t i = 0; i < names.size(); ++i)
    fields.push_back(arrow::field(names[i], arrays[i]->type()));
  StatementResult result;
  result.rows = arrow::Table::Make(arrow::schema(fields), arrays);
  result.version = dataset.version();
  return result;
}

}  // namespace tessera::sql
