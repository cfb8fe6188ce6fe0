#include "tessera/sql/table_functions.h"

#include <arrow/builder.h>

#include <cmath>
#include <map>

#include "tessera/dataset/dataset.h"
#include "tessera/expr/binder.h"
#include "tessera/expr/evaluator.h"
#include "tessera/index/lifecycle.h"
#include "tessera/index/segment_meta.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/function_arguments.h"
#include "tessera/sql/parser.h"

namespace tessera::sql {

arrow::Result<std::shared_ptr<arrow::Scalar>> EvaluateConstant(const expr::SyntaxNode& node,
                                                               const ExecutionContext& context) {
  auto empty = arrow::schema({});
  auto bound = expr::BindValue(node, empty, context.source());
  if (!bound.ok()) {
    if (CodeOf(bound.status()) == SqlCode::kWrongArguments &&
        bound.status().message().find("unknown column") != std::string::npos) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(node.position),
                      "a table function's arguments are constants; quote text: 'value'");
    }
    return bound.status();
  }
  auto batch = arrow::RecordBatch::Make(empty, 1, arrow::ArrayVector{});
  ARROW_ASSIGN_OR_RAISE(auto value, expr::EvaluateValue(**bound, *batch));
  return value->GetScalar(0);
}

// The call's arguments by name, checked against `specs`.
arrow::Result<Arguments> MatchArguments(const TableRef& call,
                                        const std::vector<ArgumentSpec>& specs,
                                        const ExecutionContext& context) {
  std::string accepted;
  for (const auto& spec : specs) accepted += (accepted.empty() ? "" : ", ") + spec.name;
  std::map<std::string, const expr::SyntaxNode*> found;
  size_t positional = 0;
  for (const auto& argument : call.arguments) {
    std::string name = argument.name;
    if (name.empty()) {
      if (positional >= specs.size()) {
        return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                        context.At(argument.position), call.function, " takes at most ",
                        specs.size(), " arguments (", accepted, ")");
      }
      name = specs[positional++].name;
    }
    const bool known = std::any_of(specs.begin(), specs.end(),
                                   [&](const ArgumentSpec& spec) { return spec.name == name; });
    if (!known) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(argument.position), call.function, " has no argument '", name,
                      "'; its arguments are ", accepted);
    }
    if (!found.emplace(name, argument.value.get()).second) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(argument.position), "argument '", name, "' of ", call.function,
                      " is given twice");
    }
  }
  for (const auto& spec : specs) {
    if (spec.required && found.count(spec.name) == 0) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(call.position), call.function, " needs the argument '", spec.name,
                      "' (", call.function, "(", spec.name, " => ...))");
    }
  }
  return found;
}

arrow::Result<std::string> StringArgument(const expr::SyntaxNode& node, std::string_view name,
                                          const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, EvaluateConstant(node, context));
  if (!scalar->is_valid || (scalar->type->id() != arrow::Type::STRING &&
                            scalar->type->id() != arrow::Type::LARGE_STRING)) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(node.position), "argument '", name, "' must be a string");
  }
  return std::string(static_cast<const arrow::BaseBinaryScalar&>(*scalar).view());
}

arrow::Result<uint64_t> UnsignedArgument(const expr::SyntaxNode& node, std::string_view name,
                                         const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, EvaluateConstant(node, context));
  if (scalar->is_valid && arrow::is_integer(scalar->type->id())) {
    ARROW_ASSIGN_OR_RAISE(auto as_int, scalar->CastTo(arrow::int64()));
    const int64_t value = static_cast<const arrow::Int64Scalar&>(*as_int).value;
    if (value >= 0) return static_cast<uint64_t>(value);
  }
  return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, context.At(node.position),
                  "argument '", name, "' must be a non-negative integer");
}

arrow::Result<double> RealArgument(const expr::SyntaxNode& node, std::string_view name,
                                   const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, EvaluateConstant(node, context));
  if (scalar->is_valid &&
      (arrow::is_integer(scalar->type->id()) || arrow::is_floating(scalar->type->id()))) {
    ARROW_ASSIGN_OR_RAISE(auto as_double, scalar->CastTo(arrow::float64()));
    const double value = static_cast<const arrow::DoubleScalar&>(*as_double).value;
    if (std::isfinite(value)) return value;
  }
  return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, context.At(node.position),
                  "argument '", name, "' must be a finite number");
}

arrow::Result<bool> BooleanArgument(const expr::SyntaxNode& node, std::string_view name,
                                    const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, EvaluateConstant(node, context));
  if (scalar->is_valid && scalar->type->id() == arrow::Type::BOOL) {
    return static_cast<const arrow::BooleanScalar&>(*scalar).value;
  }
  return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument, context.At(node.position),
                  "argument '", name, "' must be true or false");
}

arrow::Result<std::vector<float>> VectorArgument(const expr::SyntaxNode& node,
                                                 std::string_view name,
                                                 const ExecutionContext& context) {
  if (node.kind != expr::SyntaxNode::Kind::kArray || node.children.empty()) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(node.position), "argument '", name,
                    "' must be a vector literal: [0.1, 0.2, ...]");
  }
  std::vector<float> values;
  values.reserve(node.children.size());
  for (const auto& item : node.children) {
    auto value = RealArgument(*item, name, context);
    if (!value.ok()) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(item->position), "component ", values.size() + 1, " of argument '",
                      name, "' is not a finite number");
    }
    const float single = static_cast<float>(*value);
    if (!std::isfinite(single)) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(item->position), "component ", values.size() + 1, " of argument '",
                      name, "' is beyond the range of float32");
    }
    values.push_back(single);
  }
  return values;
}

arrow::Result<PinnedTable> PinTableArgument(const Arguments& arguments,
                                            const ExecutionContext& context, Access access,
                                            std::string_view table_key,
                                            std::string_view version_key) {
  const expr::SyntaxNode& table_node = *arguments.at(std::string(table_key));
  ARROW_ASSIGN_OR_RAISE(auto table_name, StringArgument(table_node, table_key, context));
  auto parsed = ParseScript("SELECT * FROM " + table_name);
  const auto* select = parsed.ok() && parsed->size() == 1
                           ? std::get_if<SelectStatement>(&(*parsed)[0].body)
                           : nullptr;
  if (select == nullptr || select->from == nullptr ||
      select->from->kind != TableRef::Kind::kTable || !select->from->alias.empty()) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(table_node.position), "argument '", table_key,
                    "' must name a table: \"db.tbl\", got '", table_name, "'");
  }
  ObjectName name = select->from->name;
  name.position = table_node.position;
  TimeTravel time_travel;
  if (const auto found = arguments.find(std::string(version_key)); found != arguments.end()) {
    const expr::SyntaxNode& version = *found->second;
    ARROW_ASSIGN_OR_RAISE(time_travel.version, UnsignedArgument(version, version_key, context));
    time_travel.position = version.position;
  }
  return PinTable(context, name, time_travel, access);
}

namespace {

arrow::Result<FunctionRows> ReadFile(const TableRef& call, const ExecutionContext& context,
                                     bool parquet) {
  ARROW_ASSIGN_OR_RAISE(auto arguments, MatchArguments(call, {{"path", true}}, context));
  ARROW_ASSIGN_OR_RAISE(auto path, StringArgument(*arguments.at("path"), "path", context));
  RETURN_NOT_OK(context.Authorize(Access::kReadFile, "", path));
  auto reader = dataset::OpenFilesAsReader(
      {path}, parquet ? dataset::InputFormat::kParquet : dataset::InputFormat::kArrowFile);
  if (!reader.ok()) {  // a missing file is 7008, an unreadable one 7002, ... (its kind's code)
    return Prefixed(reader.status(), context.At(call.position) + call.function + ": ");
  }
  FunctionRows rows;
  rows.reader = std::move(*reader);
  rows.description = Concat(call.function, " '", path, "'");
  return rows;
}

arrow::Result<FunctionRows> IndexEntries(const TableRef& call, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto arguments,
                        MatchArguments(call, {{"table", true}, {"version", false}}, context));
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTableArgument(arguments, context, Access::kShow));
  const dataset::Dataset& dataset = pinned.snapshot->dataset();
  arrow::StringBuilder catalog, database, table, index_name, uuid;
  arrow::UInt64Builder version, fragments, rows, bytes;
  arrow::TimestampBuilder created(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                  arrow::default_memory_pool());
  for (const auto& [index, segment] : index::ListSegments(dataset)) {
    ARROW_ASSIGN_OR_RAISE(auto covered, index::DecodeFragmentBitmap(segment));
    RETURN_NOT_OK(catalog.Append(context.catalog.name()));
    RETURN_NOT_OK(database.Append(pinned.location.database));
    RETURN_NOT_OK(table.Append(pinned.location.table));
    RETURN_NOT_OK(index_name.Append(index));
    RETURN_NOT_OK(uuid.Append(segment.uuid()));
    RETURN_NOT_OK(version.Append(dataset.version()));
    RETURN_NOT_OK(fragments.Append(covered.cardinality()));
    RETURN_NOT_OK(rows.Append(segment.num_rows()));
    RETURN_NOT_OK(bytes.Append(segment.size_bytes()));
    RETURN_NOT_OK(created.Append(segment.created_at_micros()));
  }
  arrow::ArrayVector arrays(10);
  RETURN_NOT_OK(catalog.Finish(&arrays[0]));
  RETURN_NOT_OK(database.Finish(&arrays[1]));
  RETURN_NOT_OK(table.Finish(&arrays[2]));
  RETURN_NOT_OK(index_name.Finish(&arrays[3]));
  RETURN_NOT_OK(uuid.Finish(&arrays[4]));
  RETURN_NOT_OK(version.Finish(&arrays[5]));
  RETURN_NOT_OK(fragments.Finish(&arrays[6]));
  RETURN_NOT_OK(rows.Finish(&arrays[7]));
  RETURN_NOT_OK(bytes.Finish(&arrays[8]));
  RETURN_NOT_OK(created.Finish(&arrays[9]));
  const std::vector<std::string> names = {"CatalogName", "DatabaseName",   "TableName", "IndexName",
                                          "IndexUuid",   "DatasetVersion", "Fragments", "Rows",
                                          "Bytes",       "CreatedAt"};
  arrow::FieldVector fields;
  for (size_t i = 0; i < names.size(); ++i) {
    fields.push_back(arrow::field(names[i], arrays[i]->type()));
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), arrays[0]->length(), arrays);
  FunctionRows result;
  ARROW_ASSIGN_OR_RAISE(result.reader, arrow::RecordBatchReader::Make({batch}, batch->schema()));
  result.description = Concat("tessera_index_entries of ", pinned.location.Qualified(), " version ",
                              dataset.version());
  return result;
}

}  // namespace

arrow::Result<FunctionRows> OpenTableFunction(const TableRef& call,
                                              const ExecutionContext& context) {
  if (call.function == "read_parquet") return ReadFile(call, context, /*parquet=*/true);
  if (call.function == "read_arrow") return ReadFile(call, context, /*parquet=*/false);
  if (call.function == "tessera_index_entries") return IndexEntries(call, context);
  if (call.function == "vector_search") return VectorSearch(call, context);
  if (call.function == "full_text_search") return FullTextSearch(call, context);
  if (call.function == "hybrid_search") return HybridSearch(call, context);
  if (call.function == "knn_join") return KnnJoin(call, context);
  return SqlError(SqlCode::kUnknownFunction, ErrorKind::kNotFound, context.At(call.position),
                  "FUNCTION ", call.function,
                  " does not exist as a table function; table functions are read_parquet, "
                  "read_arrow, tessera_index_entries, vector_search, full_text_search, "
                  "hybrid_search and knn_join");
}

}  // namespace tessera::sql
