// `tessera search`: the nearest neighbours of one query vector (--vector) or of every vector of
// a file (--queries), through the vector indexes that apply (query/nearest.h). With --text or
// --hybrid the command is a full-text or hybrid search instead (text_search_command.cc).
#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/cast.h>
#include <arrow/table.h>

#include <iostream>
#include <optional>

#include "dataset_commands.h"
#include "explain_output.h"
#include "output_format.h"
#include "search_arguments.h"
#include "tessera/dataset/dataset.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/nearest.h"
#include "tessera/query/prepared_nearest.h"
#include "tessera/query/query_vectors.h"
#include "tessera/status.h"
#include "vector_literal.h"

namespace tessera::cli {
namespace {

// The query vectors of a Parquet or Arrow file: its column `column`, or its only list column.
// Any list of numbers is accepted (fixed_size_list<float>, list<double>, ...).
arrow::Result<std::vector<std::vector<float>>> ReadQueryFile(const std::string& path,
                                                             const std::string& column) {
  ARROW_ASSIGN_OR_RAISE(auto reader, dataset::OpenFilesAsReader({path}));
  const auto& schema = *reader->schema();
  int index = schema.GetFieldIndex(column);
  if (index < 0) {
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (!query::IsVectorLike(*schema.field(i)->type())) continue;
      if (index >= 0) {
        return InvalidArgument("query file ", path, " has no column '", column,
                               "' and several list columns: name the query column '", column, "'");
      }
      index = i;
    }
    if (index < 0) {
      return InvalidArgument(
          "query file ", path, " has no column '", column,
          "' and no list column to read query vectors from; its schema: ", schema.ToString());
    }
  }
  const auto& field = *schema.field(index);
  if (!query::IsVectorLike(*field.type())) {
    return InvalidArgument("column '", field.name(), "' of query file ", path,
                           " is not a vector column: its type is ", field.type()->ToString());
  }
  std::vector<std::vector<float>> queries;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    const size_t first = queries.size();
    ARROW_RETURN_NOT_OK(query::ForEachVector(
        *batch->column(index), field.name(),
        [&](int64_t row) {
          return Concat("query ", first + static_cast<size_t>(row), " of ", path);
        },
        [&](int64_t, const float* values, int64_t length) {
          queries.emplace_back(values, values + length);
          return arrow::Status::OK();
        }));
  }
  if (queries.empty()) return InvalidArgument("query file ", path, " holds no query vector");
  return queries;
}

arrow::Status RunSearch(const SearchArguments& args) {
  if (WantsTextSearch(args)) return RunTextOrHybridSearch(args);
  ARROW_RETURN_NOT_OK(RejectTextOptions(args));
  if (args.column.size() != 1) {
    return InvalidArgument("search: give one vector column (--column), not ", args.column.size(),
                           "; several --column are for a text search (--text)");
  }
  const std::string& column = args.column.front();
  const bool single = args.vector_option->count() > 0;
  const bool from_file = args.queries_option->count() > 0;
  if (single && from_file) return InvalidArgument("search: give --vector or --queries, not both");
  if (!single && !from_file) {
    return InvalidArgument(
        "search: give a query vector (--vector '[0.1, ...]') or a file of "
        "them (--queries FILE)");
  }
  if (args.prefilter && args.filter.empty()) {
    return InvalidArgument(
        "search: --prefilter applies the --where filter before the search; "
        "give --where");
  }
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  query::NearestOptions options;
  options.column = column;
  options.k = args.k;
  options.nprobes = args.nprobes;
  options.refine_factor = args.refine_factor;
  options.ef = args.ef;
  options.offset = args.offset;
  options.lower_distance = args.lower_distance;
  options.upper_distance = args.upper_distance;
  if (!args.metric.empty()) {
    ARROW_ASSIGN_OR_RAISE(options.metric, index::vector::ParseMetric(args.metric));
  }
  options.filter = args.filter;
  options.prefilter = args.prefilter;
  options.columns = args.columns;
  options.with_row_address = args.with_row_address;

  std::vector<std::vector<float>> queries;
  if (single) {
    ARROW_ASSIGN_OR_RAISE(auto vector, ParseVectorLiteral(args.vector));
    queries.push_back(std::move(vector));
  } else {
    ARROW_ASSIGN_OR_RAISE(queries, ReadQueryFile(args.queries, column));
  }
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));

  // Prepared once; the queries run as one batch, in parallel (TESSERA_NUM_THREADS), unless
  // --explain asks for each query's own account.
  query::Explain plan;
  ARROW_ASSIGN_OR_RAISE(auto prepared, query::PreparedNearest::Make(
                                           *snapshot, options, args.explain ? &plan : nullptr));
  std::vector<float> flat;
  flat.reserve(queries.size() * static_cast<size_t>(prepared->dim()));
  for (size_t i = 0; i < queries.size(); ++i) {
    if (static_cast<int>(queries[i].size()) != prepared->dim()) {
      const std::string which = from_file ? "query " + std::to_string(i) + " of " + args.queries
                                          : std::string("the query vector");
      return InvalidArgument(which, " has ", queries[i].size(), " dimensions, but column '", column,
                             "' holds vectors of ", prepared->dim(), " dimensions");
    }
    flat.insert(flat.end(), queries[i].begin(), queries[i].end());
  }
  std::vector<std::vector<index::ScoredRow>> found;
  std::vector<query::Explain> explains(queries.size());
  if (args.explain) {
    for (size_t i = 0; i < queries.size(); ++i) {
      explains[i] = plan;
      auto rows = prepared->Search(flat.data() + i * static_cast<size_t>(prepared->dim()), {},
                                   &explains[i]);
      if (!rows.ok() && from_file) {
        return WithContext(rows.status(), "query " + std::to_string(i) + " of " + args.queries);
      }
      ARROW_ASSIGN_OR_RAISE(auto hits, std::move(rows));
      found.push_back(std::move(hits));
    }
  } else {
    auto batch = prepared->SearchBatch(flat.data(), static_cast<int64_t>(queries.size()));
    if (!batch.ok() && from_file) return WithContext(batch.status(), "searching " + args.queries);
    ARROW_ASSIGN_OR_RAISE(found, std::move(batch));
  }
  ARROW_ASSIGN_OR_RAISE(auto results,
                        prepared->MaterializeBatch(found, /*numbered=*/from_file,
                                                   args.explain ? &explains : nullptr));
  if (args.explain) {
    for (size_t i = 0; i < explains.size(); ++i) {
      PrintExplain(explains[i], from_file ? "query " + std::to_string(i) + ": " : "");
    }
  }
  arrow::TableBatchReader reader(*results);
  return PrintReader(reader, format, std::cout);
}

}  // namespace

void AddSearchCommand(CommandSet& commands) {
  auto args = std::make_shared<SearchArguments>();
  CLI::App* command = commands.Add(
      "search",
      "Find the nearest neighbours of query vectors (through vector indexes), the best matches "
      "of a text query (--text, BM25 through INVERTED indexes), or both fused (--hybrid)",
      [args] { return RunSearch(*args); });
  AddDatasetArgument(command, &args->dataset);
  command
      ->add_option("--column", args->column,
                   "Column to search: the vector column, or with --text the text column "
                   "(repeat it, optionally as NAME^BOOST, for multi_match)")
      ->required()
      ->type_name("COLUMN");
  args->vector_option =
      command->add_option("--vector", args->vector, "The query vector: '[0.1, 0.2, ...]'")
          ->type_name("VECTOR");
  args->queries_option =
      command
          ->add_option("--queries", args->queries,
                       "Run every vector of a Parquet or Arrow file (its column named like "
                       "--column, or its only list column); results get a column 'query'")
          ->type_name("FILE");
  command->add_option("--k", args->k, "Rows to return per query")
      ->required()
      ->check(IntegerAtLeast(1));
  args->nprobes_option =
      command
          ->add_option("--nprobes", args->nprobes,
                       "IVF partitions probed per segment; at the partition count the search is "
                       "exact")
          ->check(IntegerAtLeast<int>(1))
          ->capture_default_str();
  args->refine_factor_option =
      command
          ->add_option(
              "--refine-factor", args->refine_factor,
              "Quantized indexes (IVF_SQ, IVF_PQ, IVF_RQ, IVF_HNSW_SQ, IVF_HNSW_PQ): re-rank k x N "
              "candidates per segment by "
              "exact distance (1: no re-ranking)")
          ->check(IntegerAtLeast<int>(1))
          ->capture_default_str();
  args->ef_option =
      command
          ->add_option("--ef", args->ef,
                       "IVF_HNSW_* indexes: candidates each probed partition's graph search keeps "
                       "(at least k x refine factor; 0: 64)")
          ->check(IntegerAtLeast<int>(0))
          ->capture_default_str();
  args->offset_option =
      command
          ->add_option("--offset", args->offset, "Rows of the order to skip before the k returned")
          ->check(IntegerAtLeast(0));
  args->lower_distance_option = command
                                    ->add_option("--lower-distance", args->lower_distance,
                                                 "Return only rows at distance >= X")
                                    ->type_name("X");
  args->upper_distance_option =
      command
          ->add_option("--upper-distance", args->upper_distance, "Return only rows at distance < X")
          ->type_name("X");
  args->metric_option =
      command
          ->add_option("--metric", args->metric,
                       "Distance (default: the metric of the column's vector index, else l2)")
          ->type_name("l2|cosine|dot")
          ->check(CLI::IsMember({"l2", "cosine", "dot"}, CLI::ignore_case).description(""));
  AddWhereOption(command, &args->filter, "omit --where to search every row");
  command->add_flag("--prefilter", args->prefilter,
                    "Filter before the search, so k rows come back whenever k rows pass "
                    "(default: filter the k nearest, which may leave fewer)");
  command->add_option("--columns", args->columns, "Columns to print, comma-separated")
      ->delimiter(',')
      ->type_name("COLUMN");
  command->add_flag("--with-row-address", args->with_row_address,
                    "Add the column _rowaddr: (fragment id << 32) | row offset");
  command->add_flag("--explain", args->explain,
                    "Print how each part of the data was searched, on standard error");
  AddFormatOption(command, &args->format, {"table", "csv", "json"});
  AddVersionOption(command, &args->version);
  AddTextSearchOptions(command, args.get());
}

}  // namespace tessera::cli
