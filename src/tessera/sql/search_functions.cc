// vector_search(...), full_text_search(...), hybrid_search(...) and knn_join(...): the library's
// nearest-neighbour, full-text and hybrid searches and its k-nearest-neighbour join as table
// functions (docs/sql.md, "Search"). Every knob of query::NearestOptions and
// query::TextSearchOptions is an argument; the result is the table's columns and `_distance`
// (or `_score`, `_highlight`), in the search's order, which a SELECT around it may filter,
// join and reorder.
#include <arrow/table.h>

#include "tessera/dataset/dataset.h"
#include "tessera/index/index_family.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/knn_join.h"
#include "tessera/query/nearest.h"
#include "tessera/query/text_search.h"
#include "tessera/sql/errors.h"
#include "tessera/sql/function_arguments.h"
#include "tessera/sql/table_functions.h"

namespace tessera::sql {

namespace {

// Errors of the search itself (dimension, k, filter), pointed at the call.
arrow::Status AtCall(const arrow::Status& status, const TableRef& call,
                     const ExecutionContext& context) {
  return Prefixed(status, context.At(call.position) + call.function + ": ");
}

arrow::Result<int> IntArgument(const Arguments& arguments, const std::string& name, int64_t minimum,
                               int64_t maximum, int fallback, const ExecutionContext& context) {
  if (arguments.count(name) == 0) return fallback;
  const expr::SyntaxNode& node = *arguments.at(name);
  ARROW_ASSIGN_OR_RAISE(auto value, UnsignedArgument(node, name, context));
  if (static_cast<int64_t>(value) < minimum || static_cast<int64_t>(value) > maximum) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(node.position), "argument '", name, "' must be in [", minimum, ", ",
                    maximum, "], got ", value);
  }
  return static_cast<int>(value);
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> RowsOf(
    const std::shared_ptr<arrow::Table>& table) {
  return std::make_shared<arrow::TableBatchReader>(table);
}

// k, filter and prefilter, which every search takes.
arrow::Status ReadCommonKnobs(Arguments& arguments, int64_t* k, std::string* filter,
                              bool* prefilter, const ExecutionContext& context) {
  if (arguments.count("k") != 0) {
    ARROW_ASSIGN_OR_RAISE(auto value, UnsignedArgument(*arguments["k"], "k", context));
    if (value < 1) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments["k"]->position), "argument 'k' must be at least 1");
    }
    *k = static_cast<int64_t>(std::min<uint64_t>(value, INT64_MAX));
  }
  if (arguments.count("filter") != 0) {
    ARROW_ASSIGN_OR_RAISE(*filter, StringArgument(*arguments["filter"], "filter", context));
  }
  if (arguments.count("prefilter") != 0) {
    ARROW_ASSIGN_OR_RAISE(*prefilter,
                          BooleanArgument(*arguments["prefilter"], "prefilter", context));
  }
  return arrow::Status::OK();
}

// metric, nprobes and refine_factor.
arrow::Status ReadVectorTuning(Arguments& arguments, query::NearestOptions* options,
                               const ExecutionContext& context) {
  if (arguments.count("metric") != 0) {
    ARROW_ASSIGN_OR_RAISE(auto name, StringArgument(*arguments["metric"], "metric", context));
    auto metric = index::vector::ParseMetric(name);
    if (!metric.ok()) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments["metric"]->position), metric.status().message());
    }
    options->metric = *metric;
  }
  ARROW_ASSIGN_OR_RAISE(options->nprobes,
                        IntArgument(arguments, "nprobes", 1, 1 << 20, options->nprobes, context));
  ARROW_ASSIGN_OR_RAISE(options->refine_factor, IntArgument(arguments, "refine_factor", 1, 1 << 16,
                                                            options->refine_factor, context));
  ARROW_ASSIGN_OR_RAISE(options->ef,
                        IntArgument(arguments, "ef", 0, 1 << 20, options->ef, context));
  return arrow::Status::OK();
}

// The vector column and query (under the names given), metric, nprobes, refine_factor.
arrow::Status ReadVectorKnobs(Arguments& arguments, const std::string& column_key,
                              const std::string& query_key, query::NearestOptions* options,
                              const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(options->column,
                        StringArgument(*arguments[column_key], column_key, context));
  ARROW_ASSIGN_OR_RAISE(options->query, VectorArgument(*arguments[query_key], query_key, context));
  return ReadVectorTuning(arguments, options, context);
}

// "a, b ,c": the names of a comma-separated list, trimmed, empty ones left out.
std::vector<std::string> SplitNames(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) names.push_back(std::move(item));
    start = end + 1;
  }
  return names;
}

// The text column(s) and query (under the names given), type, operator, slop, fuzziness.
arrow::Status ReadTextKnobs(Arguments& arguments, const std::string& column_key,
                            const std::string& query_key, const std::string& type_key,
                            query::TextSearchOptions* options, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto columns, StringArgument(*arguments[column_key], column_key, context));
  // "title^2, body": several columns (multi_match), each with an optional boost.
  for (const auto& item : SplitNames(columns)) {
    query::BoostedColumn column{item, 1.0};
    if (const size_t caret = item.find('^'); caret != std::string::npos) {
      column.name = item.substr(0, caret);
      column.boost = std::atof(item.c_str() + caret + 1);
    }
    if (!column.name.empty()) options->columns.push_back(column);
  }
  ARROW_ASSIGN_OR_RAISE(options->text, StringArgument(*arguments[query_key], query_key, context));
  if (arguments.count(type_key) != 0) {
    ARROW_ASSIGN_OR_RAISE(auto type, StringArgument(*arguments[type_key], type_key, context));
    auto parsed = query::ParseTextQueryType(type);
    if (!parsed.ok()) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments[type_key]->position), parsed.status().message());
    }
    options->type = *parsed;
  } else if (options->columns.size() > 1) {
    options->type = query::TextQueryType::kMultiMatch;
  }
  if (arguments.count("operator") != 0) {
    ARROW_ASSIGN_OR_RAISE(auto op, StringArgument(*arguments["operator"], "operator", context));
    if (op != "and" && op != "or" && op != "AND" && op != "OR") {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments["operator"]->position),
                      "argument 'operator' must be 'and' or 'or', got '", op, "'");
    }
    options->operator_and = op == "and" || op == "AND";
  }
  ARROW_ASSIGN_OR_RAISE(options->slop, IntArgument(arguments, "slop", 0, 1 << 16, 0, context));
  ARROW_ASSIGN_OR_RAISE(options->fuzziness, IntArgument(arguments, "fuzziness", 1, 2, 1, context));
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<FunctionRows> VectorSearch(const TableRef& call, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto arguments, MatchArguments(call,
                                                       {{"table", true},
                                                        {"column", true},
                                                        {"query", true},
                                                        {"k", false},
                                                        {"metric", false},
                                                        {"nprobes", false},
                                                        {"refine_factor", false},
                                                        {"ef", false},
                                                        {"filter", false},
                                                        {"prefilter", false},
                                                        {"use_index", false},
                                                        {"lower_bound", false},
                                                        {"upper_bound", false},
                                                        {"offset", false},
                                                        {"version", false}},
                                                       context));
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTableArgument(arguments, context));
  query::NearestOptions options;
  RETURN_NOT_OK(ReadVectorKnobs(arguments, "column", "query", &options, context));
  RETURN_NOT_OK(
      ReadCommonKnobs(arguments, &options.k, &options.filter, &options.prefilter, context));
  if (arguments.count("offset") != 0) {
    ARROW_ASSIGN_OR_RAISE(auto offset, UnsignedArgument(*arguments["offset"], "offset", context));
    options.offset = static_cast<int64_t>(std::min<uint64_t>(offset, INT64_MAX));
  }
  for (const char* bound : {"lower_bound", "upper_bound"}) {
    if (arguments.count(bound) == 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto value, RealArgument(*arguments[bound], bound, context));
    (std::string_view(bound) == "lower_bound" ? options.lower_distance : options.upper_distance) =
        static_cast<float>(value);
  }
  const query::Snapshot& snapshot = *pinned.snapshot;
  if (arguments.count("use_index") != 0) {
    ARROW_ASSIGN_OR_RAISE(options.use_index,
                          BooleanArgument(*arguments["use_index"], "use_index", context));
    // use_index => true asks for an index: say so when none can answer.
    const int field = snapshot.schema()->GetFieldIndex(options.column);
    bool usable = false;
    std::string metrics;
    for (int position : field < 0 ? std::vector<int>{} : snapshot.IndexesOnField(field)) {
      const auto& definition = snapshot.manifest().indexes(position);
      const index::IndexFamily* family = index::FindFamily(definition.family());
      if (family == nullptr || !family->searches_vectors()) continue;
      const auto metric = family->MetricOf(definition);
      if (!metric) continue;
      metrics += (metrics.empty() ? "" : ", ") + std::string(index::vector::MetricName(*metric));
      if (!options.metric || *options.metric == *metric) usable = true;
    }
    if (options.use_index && field >= 0 && !usable) {
      return SqlError(
          SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
          context.At(arguments["use_index"]->position), "use_index => true, but column '",
          options.column, "' of ", pinned.location.Qualified(), " has no vector index",
          metrics.empty() ? std::string()
                          : Concat(" of metric ", index::vector::MetricName(*options.metric),
                                   " (its indexes use ", metrics, ")"),
          "; create one (CREATE INDEX ... USING ANN) or pass use_index => false");
    }
  }
  query::Explain explain;
  auto found = query::Nearest(snapshot.dataset(), options, &explain);
  if (!found.ok()) return AtCall(found.status(), call, context);
  FunctionRows rows;
  ARROW_ASSIGN_OR_RAISE(rows.reader, RowsOf(*found));
  rows.description = Concat("vector_search of ", pinned.location.Qualified(), " version ",
                            snapshot.version(), ": column ", options.column, ", a query of ",
                            options.query.size(), " dimensions, k ", options.k);
  for (const auto& line : explain.lines) rows.description += "\n  " + line;
  return rows;
}

arrow::Result<FunctionRows> FullTextSearch(const TableRef& call, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto arguments, MatchArguments(call,
                                                       {{"table", true},
                                                        {"column", true},
                                                        {"query", true},
                                                        {"type", false},
                                                        {"k", false},
                                                        {"filter", false},
                                                        {"prefilter", false},
                                                        {"operator", false},
                                                        {"slop", false},
                                                        {"fuzziness", false},
                                                        {"highlight", false},
                                                        {"version", false}},
                                                       context));
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTableArgument(arguments, context));
  query::TextSearchOptions options;
  RETURN_NOT_OK(ReadTextKnobs(arguments, "column", "query", "type", &options, context));
  RETURN_NOT_OK(
      ReadCommonKnobs(arguments, &options.k, &options.filter, &options.prefilter, context));
  if (arguments.count("highlight") != 0) {
    ARROW_ASSIGN_OR_RAISE(options.highlight,
                          BooleanArgument(*arguments["highlight"], "highlight", context));
  }
  query::Explain explain;
  auto found = query::TextSearch(pinned.snapshot, options, &explain);
  if (!found.ok()) return AtCall(found.status(), call, context);
  FunctionRows rows;
  ARROW_ASSIGN_OR_RAISE(rows.reader, RowsOf(*found));
  rows.description = Concat("full_text_search of ", pinned.location.Qualified(), " version ",
                            pinned.snapshot->version(), ": ",
                            query::TextQueryTypeName(options.type), " query, k ", options.k);
  for (const auto& line : explain.lines) rows.description += "\n  " + line;
  return rows;
}

arrow::Result<FunctionRows> HybridSearch(const TableRef& call, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto arguments,
                        MatchArguments(call, {{"table", true},          {"vector_column", true},
                                              {"vector", true},         {"text_column", true},
                                              {"text", true},           {"k", false},
                                              {"fusion", false},        {"rrf_k", false},
                                              {"text_weight", false},   {"candidate_factor", false},
                                              {"metric", false},        {"nprobes", false},
                                              {"refine_factor", false}, {"ef", false},
                                              {"text_type", false},     {"operator", false},
                                              {"slop", false},          {"fuzziness", false},
                                              {"filter", false},        {"prefilter", false},
                                              {"version", false}},
                                       context));
  ARROW_ASSIGN_OR_RAISE(auto pinned, PinTableArgument(arguments, context));
  query::HybridSearchOptions options;
  RETURN_NOT_OK(ReadVectorKnobs(arguments, "vector_column", "vector", &options.vector, context));
  RETURN_NOT_OK(
      ReadTextKnobs(arguments, "text_column", "text", "text_type", &options.text, context));
  RETURN_NOT_OK(
      ReadCommonKnobs(arguments, &options.k, &options.filter, &options.prefilter, context));
  if (arguments.count("fusion") != 0) {
    ARROW_ASSIGN_OR_RAISE(auto fusion, StringArgument(*arguments["fusion"], "fusion", context));
    if (fusion == "rrf") {
      options.fusion = query::Fusion::kReciprocalRank;
    } else if (fusion == "weighted") {
      options.fusion = query::Fusion::kWeighted;
    } else {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments["fusion"]->position),
                      "argument 'fusion' must be 'rrf' or 'weighted', got '", fusion, "'");
    }
  }
  if (arguments.count("rrf_k") != 0) {
    ARROW_ASSIGN_OR_RAISE(options.rrf_k, RealArgument(*arguments["rrf_k"], "rrf_k", context));
  }
  if (arguments.count("text_weight") != 0) {
    ARROW_ASSIGN_OR_RAISE(options.text_weight,
                          RealArgument(*arguments["text_weight"], "text_weight", context));
  }
  ARROW_ASSIGN_OR_RAISE(
      options.candidate_factor,
      IntArgument(arguments, "candidate_factor", 1, 1 << 16, options.candidate_factor, context));
  query::Explain explain;
  auto found = query::HybridSearch(pinned.snapshot->dataset(), options, &explain);
  if (!found.ok()) return AtCall(found.status(), call, context);
  FunctionRows rows;
  ARROW_ASSIGN_OR_RAISE(rows.reader, RowsOf(*found));
  rows.description = Concat("hybrid_search of ", pinned.location.Qualified(), " version ",
                            pinned.snapshot->version(), ": a vector of ",
                            options.vector.query.size(), " dimensions and a ",
                            query::TextQueryTypeName(options.text.type), " query, k ", options.k);
  for (const auto& line : explain.lines) rows.description += "\n  " + line;
  return rows;
}

arrow::Result<FunctionRows> KnnJoin(const TableRef& call, const ExecutionContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto arguments, MatchArguments(call,
                                                       {{"left", false},
                                                        {"left_column", true},
                                                        {"right", true},
                                                        {"right_column", true},
                                                        {"k", false},
                                                        {"metric", false},
                                                        {"nprobes", false},
                                                        {"refine_factor", false},
                                                        {"ef", false},
                                                        {"filter", false},
                                                        {"use_index", false},
                                                        {"left_columns", false},
                                                        {"right_columns", false},
                                                        {"left_file", false},
                                                        {"left_version", false},
                                                        {"right_version", false},
                                                        {"batch_rows", false}},
                                                       context));
  // The left rows: a table's, or a Parquet or Arrow file's.
  if ((arguments.count("left") != 0) == (arguments.count("left_file") != 0)) {
    return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                    context.At(call.position),
                    "knn_join needs exactly one of the arguments 'left' (a table: \"db.tbl\") and "
                    "'left_file' (a Parquet or Arrow file)");
  }
  std::shared_ptr<arrow::RecordBatchReader> left;
  std::string left_name;
  if (arguments.count("left") != 0) {
    ARROW_ASSIGN_OR_RAISE(
        auto pinned, PinTableArgument(arguments, context, Access::kSelect, "left", "left_version"));
    ARROW_ASSIGN_OR_RAISE(left, pinned.snapshot->dataset().Scan({}));
    left_name = Concat(pinned.location.Qualified(), " version ", pinned.snapshot->version());
  } else {
    if (arguments.count("left_version") != 0) {
      return SqlError(SqlCode::kWrongArguments, ErrorKind::kInvalidArgument,
                      context.At(arguments["left_version"]->position),
                      "argument 'left_version' pins a table given as 'left', not a file");
    }
    ARROW_ASSIGN_OR_RAISE(left_name, StringArgument(*arguments["left_file"], "left_file", context));
    RETURN_NOT_OK(context.Authorize(Access::kReadFile, "", left_name));
    auto opened = dataset::OpenFilesAsReader({left_name});
    if (!opened.ok()) return AtCall(opened.status(), call, context);
    left = std::move(*opened);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto right, PinTableArgument(arguments, context, Access::kSelect, "right", "right_version"));

  query::KnnJoinOptions options;
  ARROW_ASSIGN_OR_RAISE(options.left_column,
                        StringArgument(*arguments["left_column"], "left_column", context));
  ARROW_ASSIGN_OR_RAISE(options.right.column,
                        StringArgument(*arguments["right_column"], "right_column", context));
  for (const char* key : {"left_columns", "right_columns"}) {
    if (arguments.count(key) == 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto list, StringArgument(*arguments[key], key, context));
    (std::string_view(key) == "left_columns" ? options.left_columns : options.right.columns) =
        SplitNames(list);
  }
  RETURN_NOT_OK(ReadVectorTuning(arguments, &options.right, context));
  bool unused_prefilter = false;  // the join always prefilters (query/knn_join.h)
  RETURN_NOT_OK(ReadCommonKnobs(arguments, &options.right.k, &options.right.filter,
                                &unused_prefilter, context));
  if (arguments.count("use_index") != 0) {
    ARROW_ASSIGN_OR_RAISE(options.right.use_index,
                          BooleanArgument(*arguments["use_index"], "use_index", context));
  }
  ARROW_ASSIGN_OR_RAISE(options.batch_rows, IntArgument(arguments, "batch_rows", 1, 1 << 20,
                                                        options.batch_rows, context));

  // The join's rows are kept until the statement reads them: left rows times k.
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  auto joined = query::KnnJoin(*left, right.snapshot, options,
                               [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
                                 batches.push_back(batch);
                                 return arrow::Status::OK();
                               });
  if (!joined.ok()) return AtCall(joined.status(), call, context);
  FunctionRows rows;
  ARROW_ASSIGN_OR_RAISE(rows.reader, arrow::RecordBatchReader::Make(batches, joined->schema));
  rows.description = Concat("knn_join of ", left_name, " (", joined->left_rows, " rows, column ",
                            options.left_column, ") with ", right.location.Qualified(), " version ",
                            right.snapshot->version(), ": column ", options.right.column, ", k ",
                            options.right.k, options.right.use_index ? "" : ", exact");
  return rows;
}

}  // namespace tessera::sql
