// `tessera search --text`: full-text search with BM25 (query/text_search.h), and `--hybrid`: a
// vector query and a text query fused (HybridSearch). The options each mode takes are listed in
// docs/cli.md; an option given to a mode it does not apply to is an InvalidArgument error naming
// it, never silently ignored.
#include <arrow/table.h>

#include <charconv>
#include <cmath>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "explain_output.h"
#include "output_format.h"
#include "search_arguments.h"
#include "tessera/index/vector/distance.h"
#include "tessera/query/text_search.h"
#include "tessera/status.h"
#include "vector_literal.h"

namespace tessera::cli {
namespace {

using query::TextQueryType;

struct NamedOption {
  const char* name;
  const CLI::Option* option;
};

bool Given(const CLI::Option* option) { return option != nullptr && option->count() > 0; }

// InvalidArgument naming the first of `options` that was given, when one was: "search: --slop
// <reason>".
arrow::Status RejectGiven(const std::vector<NamedOption>& options, const std::string& reason) {
  for (const auto& [name, option] : options) {
    if (Given(option)) return InvalidArgument("search: ", name, " ", reason);
  }
  return arrow::Status::OK();
}

std::vector<NamedOption> TextOptions(const SearchArguments& args) {
  return {{"--query-type", args.query_type_option},
          {"--operator", args.operator_option},
          {"--minimum-should-match", args.minimum_should_match_option},
          {"--slop", args.slop_option},
          {"--fuzziness", args.fuzziness_option},
          {"--max-expansions", args.max_expansions_option},
          {"--k1", args.k1_option},
          {"--b", args.b_option},
          {"--highlight", args.highlight_option},
          {"--highlight-length", args.highlight_length_option},
          {"--highlight-tags", args.highlight_tags_option},
          {"--exhaustive", args.exhaustive_option}};
}

std::vector<NamedOption> HybridOptions(const SearchArguments& args) {
  return {{"--vector-column", args.vector_column_option},
          {"--fusion", args.fusion_option},
          {"--rrf-k", args.rrf_k_option},
          {"--text-weight", args.text_weight_option},
          {"--candidate-factor", args.candidate_factor_option}};
}

// "title^2" → {title, 2}; "body" → {body, 1}.
arrow::Result<query::BoostedColumn> ParseBoostedColumn(const std::string& text) {
  const size_t caret = text.rfind('^');
  if (caret == std::string::npos) return query::BoostedColumn{text, 1.0};
  query::BoostedColumn column{text.substr(0, caret), 0};
  const char* begin = text.data() + caret + 1;
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(begin, end, column.boost);
  if (column.name.empty() || error != std::errc() || rest != end || !std::isfinite(column.boost) ||
      column.boost <= 0) {
    return InvalidArgument("search: --column '", text,
                           "' is not a column with a boost: write NAME^BOOST with a positive "
                           "number (title^2)");
  }
  return column;
}

arrow::Result<TextQueryType> QueryTypeOf(const SearchArguments& args) {
  if (Given(args.query_type_option)) return query::ParseTextQueryType(args.query_type);
  return args.column.size() > 1 ? TextQueryType::kMultiMatch : TextQueryType::kMatch;
}

// The options that apply to some query types only.
arrow::Status CheckQueryTypeOptions(const SearchArguments& args, TextQueryType type) {
  const std::string name(query::TextQueryTypeName(type));
  const bool match = type == TextQueryType::kMatch || type == TextQueryType::kMultiMatch;
  const bool boolean = type == TextQueryType::kBoolean;
  if (!match) {
    ARROW_RETURN_NOT_OK(RejectGiven({{"--operator", args.operator_option},
                                     {"--minimum-should-match", args.minimum_should_match_option}},
                                    "applies to --query-type match or multi_match, not " + name));
  }
  if (type != TextQueryType::kPhrase && !boolean) {
    ARROW_RETURN_NOT_OK(RejectGiven({{"--slop", args.slop_option}},
                                    "applies to --query-type phrase or boolean, not " + name));
  }
  if (type != TextQueryType::kFuzzy && !boolean) {
    ARROW_RETURN_NOT_OK(RejectGiven({{"--fuzziness", args.fuzziness_option}},
                                    "applies to --query-type fuzzy or boolean, not " + name));
  }
  if (type != TextQueryType::kFuzzy && type != TextQueryType::kPrefix && !boolean) {
    ARROW_RETURN_NOT_OK(
        RejectGiven({{"--max-expansions", args.max_expansions_option}},
                    "applies to --query-type prefix, fuzzy or boolean, not " + name));
  }
  if (args.operator_name == "and" && Given(args.minimum_should_match_option)) {
    return InvalidArgument(
        "search: --minimum-should-match applies to --operator or (with --operator and every "
        "term must match); give one of them");
  }
  if (type != TextQueryType::kMultiMatch && args.column.size() > 1) {
    return InvalidArgument("search: ", args.column.size(),
                           " --column given, but only --query-type multi_match searches several "
                           "columns, not ",
                           name);
  }
  if (!Given(args.highlight_option)) {
    ARROW_RETURN_NOT_OK(RejectGiven({{"--highlight-length", args.highlight_length_option},
                                     {"--highlight-tags", args.highlight_tags_option}},
                                    "sets the passages of --highlight; give --highlight"));
  }
  return arrow::Status::OK();
}

arrow::Result<query::TextSearchOptions> TextOptionsOf(const SearchArguments& args) {
  query::TextSearchOptions options;
  ARROW_ASSIGN_OR_RAISE(options.type, QueryTypeOf(args));
  ARROW_RETURN_NOT_OK(CheckQueryTypeOptions(args, options.type));
  for (const auto& text : args.column) {
    ARROW_ASSIGN_OR_RAISE(auto column, ParseBoostedColumn(text));
    if (column.boost != 1.0 && options.type != TextQueryType::kMultiMatch) {
      return InvalidArgument("search: --column '", text,
                             "' has a boost, which only --query-type multi_match uses");
    }
    options.columns.push_back(std::move(column));
  }
  options.text = args.text;
  options.operator_and = args.operator_name == "and";
  options.minimum_should_match = args.minimum_should_match;
  options.slop = args.slop;
  options.fuzziness = args.fuzziness;
  options.max_expansions = args.max_expansions;
  options.k1 = args.k1;
  options.b = args.b;
  options.exhaustive = args.exhaustive;
  options.highlight = args.highlight;
  options.highlight_length = args.highlight_length;
  if (Given(args.highlight_tags_option)) {
    const size_t comma = args.highlight_tags.find(',');
    if (comma == std::string::npos) {
      return InvalidArgument("search: --highlight-tags '", args.highlight_tags,
                             "' needs the opening and the closing tag separated by a comma "
                             "('<em>,</em>')");
    }
    options.highlight_open = args.highlight_tags.substr(0, comma);
    options.highlight_close = args.highlight_tags.substr(comma + 1);
  }
  return options;
}

arrow::Status Print(const std::shared_ptr<arrow::Table>& table, const query::Explain& explain,
                    const SearchArguments& args) {
  ARROW_ASSIGN_OR_RAISE(OutputFormat format, ParseOutputFormat(args.format));
  if (args.explain) PrintExplain(explain);
  arrow::TableBatchReader reader(*table);
  return PrintReader(reader, format, std::cout);
}

// The result options every text and hybrid search takes from the arguments; then runs
// `search` (query::TextSearch or query::HybridSearch) on the version asked for and prints.
template <typename Options, typename Search>
arrow::Status RunOnDataset(const SearchArguments& args, Options& options, Search search) {
  options.k = args.k;
  options.filter = args.filter;
  options.prefilter = args.prefilter;
  options.projection = args.columns;
  options.with_row_address = args.with_row_address;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, OpenDataset(args.dataset, args.version));
  query::Explain explain;
  const dataset::Dataset& dataset = *snapshot;
  ARROW_ASSIGN_OR_RAISE(auto table, search(dataset, options, args.explain ? &explain : nullptr));
  return Print(table, explain, args);
}

arrow::Status RunTextSearch(const SearchArguments& args) {
  ARROW_RETURN_NOT_OK(RejectGiven(HybridOptions(args), "applies to --hybrid search"));
  if (Given(args.vector_option)) {
    return InvalidArgument(
        "search: --text and --vector together need --hybrid (and --vector-column for the "
        "vector column)");
  }
  ARROW_RETURN_NOT_OK(RejectGiven({{"--queries", args.queries_option},
                                   {"--nprobes", args.nprobes_option},
                                   {"--refine-factor", args.refine_factor_option},
                                   {"--ef", args.ef_option},
                                   {"--offset", args.offset_option},
                                   {"--lower-distance", args.lower_distance_option},
                                   {"--upper-distance", args.upper_distance_option},
                                   {"--metric", args.metric_option}},
                                  "applies to a vector search (--vector), not to --text"));
  ARROW_ASSIGN_OR_RAISE(auto options, TextOptionsOf(args));
  return RunOnDataset(args, options,
                      [](const auto&... arguments) { return query::TextSearch(arguments...); });
}

arrow::Status RunHybridSearch(const SearchArguments& args) {
  if (!Given(args.vector_option)) {
    return InvalidArgument(
        "search: --hybrid needs a query vector (--vector '[0.1, ...]') besides --text");
  }
  if (!Given(args.text_option)) {
    return InvalidArgument("search: --hybrid needs a text query (--text '...') besides --vector");
  }
  if (!Given(args.vector_column_option)) {
    return InvalidArgument(
        "search: --hybrid needs the vector column (--vector-column V); --column names the text "
        "column");
  }
  ARROW_RETURN_NOT_OK(RejectGiven(
      {{"--queries", args.queries_option}, {"--offset", args.offset_option}},
      "does not apply to --hybrid (one --vector query; the fused order has no offset)"));
  ARROW_RETURN_NOT_OK(RejectGiven(
      {{"--highlight", args.highlight_option}},
      "does not apply to --hybrid yet; run the text query alone (without --hybrid) for passages"));
  const bool reciprocal_rank = args.fusion == "rrf";
  if (reciprocal_rank) {
    ARROW_RETURN_NOT_OK(RejectGiven({{"--text-weight", args.text_weight_option}},
                                    "applies to --fusion weighted, not rrf"));
  } else {
    ARROW_RETURN_NOT_OK(
        RejectGiven({{"--rrf-k", args.rrf_k_option}}, "applies to --fusion rrf, not weighted"));
  }

  query::HybridSearchOptions options;
  options.vector.column = args.vector_column;
  ARROW_ASSIGN_OR_RAISE(options.vector.query, ParseVectorLiteral(args.vector));
  options.vector.nprobes = args.nprobes;
  options.vector.refine_factor = args.refine_factor;
  options.vector.ef = args.ef;
  options.vector.lower_distance = args.lower_distance;
  options.vector.upper_distance = args.upper_distance;
  if (!args.metric.empty()) {
    ARROW_ASSIGN_OR_RAISE(options.vector.metric, index::vector::ParseMetric(args.metric));
  }
  ARROW_ASSIGN_OR_RAISE(options.text, TextOptionsOf(args));
  options.fusion = reciprocal_rank ? query::Fusion::kReciprocalRank : query::Fusion::kWeighted;
  options.rrf_k = args.rrf_k;
  options.text_weight = args.text_weight;
  options.candidate_factor = args.candidate_factor;
  return RunOnDataset(args, options,
                      [](const auto&... arguments) { return query::HybridSearch(arguments...); });
}

}  // namespace

bool WantsTextSearch(const SearchArguments& args) {
  return Given(args.text_option) || Given(args.hybrid_option);
}

arrow::Status RejectTextOptions(const SearchArguments& args) {
  ARROW_RETURN_NOT_OK(RejectGiven(TextOptions(args), "applies to a text search; give --text"));
  return RejectGiven(HybridOptions(args), "applies to --hybrid search");
}

arrow::Status RunTextOrHybridSearch(const SearchArguments& args) {
  if (args.prefilter && args.filter.empty()) {
    return InvalidArgument(
        "search: --prefilter applies the --where filter before the search; give --where");
  }
  return args.hybrid ? RunHybridSearch(args) : RunTextSearch(args);
}

void AddTextSearchOptions(CLI::App* command, SearchArguments* args) {
  args->text_option =
      command
          ->add_option("--text", args->text,
                       "Full-text query over the --column text column(s), ranked by BM25")
          ->type_name("QUERY");
  args->query_type_option =
      command
          ->add_option("--query-type", args->query_type,
                       "How --text is read (default: match, or multi_match with several --column)")
          ->type_name("match|phrase|boolean|multi_match|prefix|fuzzy")
          ->check(CLI::IsMember({"match", "phrase", "boolean", "multi_match", "prefix", "fuzzy"})
                      .description(""));
  args->operator_option = command
                              ->add_option("--operator", args->operator_name,
                                           "match: rows holding any term (or) or every term (and)")
                              ->type_name("or|and")
                              ->check(CLI::IsMember({"or", "and"}).description(""))
                              ->capture_default_str();
  args->minimum_should_match_option =
      command
          ->add_option("--minimum-should-match", args->minimum_should_match,
                       "match with --operator or: distinct query terms a row must hold")
          ->check(IntegerAtLeast<int>(1))
          ->capture_default_str();
  args->slop_option =
      command->add_option("--slop", args->slop, "phrase: moves allowed between the terms")
          ->check(IntegerAtLeast<int>(0))
          ->capture_default_str();
  args->fuzziness_option =
      command
          ->add_option("--fuzziness", args->fuzziness,
                       "fuzzy: edit distance (Damerau-Levenshtein) of the matched terms")
          ->check(IntegerInRange(1, 2))
          ->capture_default_str();
  args->max_expansions_option = command
                                    ->add_option("--max-expansions", args->max_expansions,
                                                 "prefix, fuzzy: terms a word expands to at most")
                                    ->check(IntegerAtLeast<int>(1))
                                    ->capture_default_str();
  args->k1_option = command->add_option("--k1", args->k1, "BM25 term-frequency saturation")
                        ->check(NonNegativeReal())
                        ->type_name("X")
                        ->capture_default_str();
  args->b_option = command->add_option("--b", args->b, "BM25 length normalization, in [0, 1]")
                       ->check(NonNegativeReal())
                       ->type_name("X")
                       ->capture_default_str();
  args->highlight_option = command->add_flag(
      "--highlight", args->highlight,
      "Add the column _highlight: the best passage of the first --column, terms marked");
  args->highlight_length_option = command
                                      ->add_option("--highlight-length", args->highlight_length,
                                                   "Bytes of text a passage holds at most")
                                      ->check(IntegerAtLeast<int>(1))
                                      ->capture_default_str();
  args->highlight_tags_option =
      command
          ->add_option("--highlight-tags", args->highlight_tags,
                       "The tags around each matched term (inserted as they are; the text is not "
                       "escaped), default '<b>,</b>'")
          ->type_name("OPEN,CLOSE");
  args->exhaustive_option = command->add_flag(
      "--exhaustive", args->exhaustive,
      "Score every posting instead of block-max WAND or a phrase's bounds (the same rows; slower)");
  args->hybrid_option = command->add_flag(
      "--hybrid", args->hybrid,
      "Fuse a vector search (--vector, --vector-column) and a text search (--text, --column)");
  args->vector_column_option =
      command->add_option("--vector-column", args->vector_column, "--hybrid: the vector column")
          ->type_name("COLUMN");
  args->fusion_option =
      command
          ->add_option("--fusion", args->fusion,
                       "--hybrid: reciprocal rank fusion (rrf) or weighted normalized scores")
          ->type_name("rrf|weighted")
          ->check(CLI::IsMember({"rrf", "weighted"}).description(""))
          ->capture_default_str();
  args->rrf_k_option =
      command
          ->add_option("--rrf-k", args->rrf_k,
                       "--fusion rrf: the constant k of 1 / (k + rank); larger flattens the ranks")
          ->type_name("X")
          ->capture_default_str();
  args->text_weight_option =
      command
          ->add_option("--text-weight", args->text_weight,
                       "--fusion weighted: the text score's weight in [0, 1] (the vector's: 1 - "
                       "it)")
          ->type_name("X")
          ->capture_default_str();
  args->candidate_factor_option =
      command
          ->add_option("--candidate-factor", args->candidate_factor,
                       "--hybrid: each search contributes its best k x N rows to the fusion")
          ->check(IntegerAtLeast<int>(1))
          ->capture_default_str();
}

}  // namespace tessera::cli
