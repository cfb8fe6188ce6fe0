#include "tessera/query/text_search.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "tessera/dataset/scanner.h"
#include "tessera/expr/filter.h"
#include "tessera/query/block_max_wand.h"
#include "tessera/query/eligible_rows.h"
#include "tessera/query/filtered_read.h"
#include "tessera/query/text_explain.h"
#include "tessera/query/text_highlight.h"
#include "tessera/query/text_query_eval.h"
#include "tessera/query/text_query_plan.h"
#include "tessera/query/text_result.h"
#include "tessera/query/text_sources.h"
#include "tessera/query/text_statistics.h"
#include "tessera/status.h"

namespace tessera::query {

namespace {

constexpr std::pair<TextQueryType, std::string_view> kTypeNames[] = {
    {TextQueryType::kMatch, "match"},     {TextQueryType::kPhrase, "phrase"},
    {TextQueryType::kBoolean, "boolean"}, {TextQueryType::kMultiMatch, "multi_match"},
    {TextQueryType::kPrefix, "prefix"},   {TextQueryType::kFuzzy, "fuzzy"},
};

arrow::Status ValidateOptions(const dataset::Dataset& dataset, const TextSearchOptions& options) {
  if (options.k < 1) return InvalidArgument("k must be at least 1, got ", options.k);
  if (!(options.k1 >= 0) || !std::isfinite(options.k1)) {
    return InvalidArgument("k1 must be a finite number >= 0, got ", options.k1);
  }
  if (!(options.b >= 0 && options.b <= 1)) {
    return InvalidArgument("b must be in [0, 1], got ", options.b);
  }
  if (options.columns.empty()) {
    return InvalidArgument("a text search needs the column to search (dataset ", dataset.uri(),
                           ")");
  }
  if (options.columns.size() > 1 && options.type != TextQueryType::kMultiMatch) {
    return InvalidArgument("a ", TextQueryTypeName(options.type),
                           " query searches one column, got ", options.columns.size(),
                           "; use the multi_match type to search several");
  }
  if (options.type == TextQueryType::kFuzzy && (options.fuzziness < 1 || options.fuzziness > 2)) {
    return InvalidArgument("fuzziness must be 1 or 2, got ", options.fuzziness);
  }
  if (options.max_expansions < 1) {
    return InvalidArgument("max_expansions must be at least 1, got ", options.max_expansions);
  }
  if (options.slop < 0) return InvalidArgument("slop must not be negative, got ", options.slop);
  if (options.minimum_should_match < 1) {
    return InvalidArgument("minimum_should_match must be at least 1, got ",
                           options.minimum_should_match);
  }
  for (const auto& column : options.columns) {
    if (!(column.boost > 0) || !std::isfinite(column.boost)) {
      return InvalidArgument("the boost of column '", column.name,
                             "' must be a finite number > 0, got ", column.boost);
    }
  }
  return arrow::Status::OK();
}

arrow::Result<int> ResolveTextColumn(const dataset::Dataset& dataset, const std::string& name) {
  const auto& schema = *dataset.schema();
  const int index = schema.GetFieldIndex(name);
  if (index < 0) {
    if (!schema.GetAllFieldIndices(name).empty()) {
      return InvalidArgument("dataset ", dataset.uri(), " has several columns named '", name, "'");
    }
    return InvalidArgument("no column '", name, "' in dataset ", dataset.uri(),
                           "; its columns are: ", dataset::ColumnNames(schema));
  }
  const auto& type = *schema.field(index)->type();
  if (!IsTextType(type)) {
    return InvalidArgument("column '", name, "' of dataset ", dataset.uri(), " is ",
                           type.ToString(),
                           ", not a text column (utf8, large_utf8 or a list of them)");
  }
  return index;
}

// One searched column: its sources, statistics, plan and best rows.
struct ColumnSearch {
  std::string name;
  double boost = 1;
  int column_index = -1;
  std::shared_ptr<const TextSources> sources;
  TextStatistics statistics;
  std::optional<PlanNode> plan;
  std::vector<std::string> query_terms;
  std::string_view scoring = "every posting scored";  // explain's words for the strategy
  ScoringCounters counters;
  std::vector<ScoredDocument> best;
};

arrow::Status SearchColumn(const Snapshot& snapshot, const TextSearchOptions& options,
                           const EligibleRows& live, const EligibleRows& accepted,
                           ColumnSearch& search) {
  auto open = [&]() -> arrow::Result<std::shared_ptr<const TextSources>> {
    ARROW_ASSIGN_OR_RAISE(auto sources,
                          OpenTextSources(snapshot, search.column_index, live, accepted));
    return std::make_shared<const TextSources>(std::move(sources));
  };
  if (accepted.prefiltered()) {
    ARROW_ASSIGN_OR_RAISE(search.sources, open());
  } else {
    // Without a prefilter the sources depend on the version alone: opened (segments chosen,
    // dead documents marked, the tail analyzed) once per snapshot and column.
    ARROW_ASSIGN_OR_RAISE(
        search.sources,
        snapshot.Derived<TextSources>("text_sources:" + std::to_string(search.column_index), open));
  }
  const TextSources& sources = *search.sources;
  search.statistics = CollectStatistics(sources);
  const Bm25 bm25(options.k1, options.b, static_cast<double>(search.statistics.document_count),
                  search.statistics.average_length());
  ARROW_ASSIGN_OR_RAISE(auto analyzer, sources.analyzers->Acquire());
  TermTable terms(sources);
  const TextQueryType type =
      options.type == TextQueryType::kMultiMatch ? TextQueryType::kMatch : options.type;
  ARROW_ASSIGN_OR_RAISE(
      search.plan, BuildPlan(options, type, *analyzer, sources, terms, bm25, &search.query_terms));
  if (!search.plan || search.statistics.document_count == 0) return arrow::Status::OK();
  const PlanNode& plan = *search.plan;
  TextTopK top(static_cast<size_t>(
      std::min<uint64_t>(static_cast<uint64_t>(options.k), search.statistics.document_count)));
  const bool wand = !options.exhaustive && IsPureDisjunction(plan);
  const bool phrase_bounds = !options.exhaustive && plan.kind == PlanNode::Kind::kPhrase;
  if (wand) search.scoring = "block-max WAND";
  if (phrase_bounds) search.scoring = "phrase bounds";
  for (size_t s = 0; s < sources.sources.size(); ++s) {
    const TextSource& source = sources.sources[s];
    if (phrase_bounds) {
      ARROW_RETURN_NOT_OK(PhraseTopK(plan, source, s, bm25, top, &search.counters));
      continue;
    }
    if (wand) {
      std::vector<WandTerm> lanes;
      for (const PlanTerm& term : plan.terms) {
        if (term.postings[s]) lanes.push_back({*term.postings[s], term.weight});
      }
      ARROW_RETURN_NOT_OK(BlockMaxWand(source, lanes, bm25, top, &search.counters));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto found, EvaluatePlan(plan, source, s, bm25, &search.counters));
    for (size_t i = 0; i < found.docs.size(); ++i) {
      if (!source.Accepted(found.docs[i]) || found.scores[i] < top.threshold()) continue;
      top.Push(found.scores[i], source.reader->row_address(found.docs[i]));
    }
  }
  search.best = std::move(top).Take();
  return arrow::Status::OK();
}

// The best k rows over every column: a row's score is its best column's score times that
// column's boost. Exact: a row in the overall top k is in its best column's top k.
std::vector<ScoredDocument> MergeColumns(const std::vector<ColumnSearch>& searches, size_t k) {
  if (searches.size() == 1 && searches[0].boost == 1.0) return searches[0].best;
  std::unordered_map<uint64_t, double> best;
  for (const ColumnSearch& search : searches) {
    for (const ScoredDocument& row : search.best) {
      const double score = row.score * search.boost;
      auto [it, inserted] = best.emplace(row.row_address, score);
      if (!inserted) it->second = std::max(it->second, score);
    }
  }
  TextTopK top(k);
  for (const auto& [address, score] : best) top.Push(score, address);
  return std::move(top).Take();
}

}  // namespace

arrow::Result<TextQueryType> ParseTextQueryType(std::string_view name) {
  for (const auto& [type, spelling] : kTypeNames) {
    if (name == spelling) return type;
  }
  return InvalidArgument("unknown text query type '", name,
                         "'; use match, phrase, boolean, multi_match, prefix or fuzzy");
}

std::string_view TextQueryTypeName(TextQueryType type) {
  for (const auto& [known, spelling] : kTypeNames) {
    if (known == type) return spelling;
  }
  return "match";
}

arrow::Result<std::shared_ptr<arrow::Table>> TextSearch(const dataset::Dataset& dataset,
                                                        const TextSearchOptions& options,
                                                        Explain* explain) {
  return TextSearch(Snapshot::Borrowing(dataset), options, explain);
}

arrow::Result<std::shared_ptr<arrow::Table>> TextSearch(
    const std::shared_ptr<const Snapshot>& snapshot, const TextSearchOptions& options,
    Explain* explain) {
  const dataset::Dataset& dataset = snapshot->dataset();
  ARROW_RETURN_NOT_OK(ValidateOptions(dataset, options));
  std::vector<ColumnSearch> searches;
  for (const auto& column : options.columns) {
    ColumnSearch search;
    search.name = column.name;
    search.boost = column.boost;
    ARROW_ASSIGN_OR_RAISE(search.column_index, ResolveTextColumn(dataset, column.name));
    searches.push_back(std::move(search));
  }
  const auto& schema = *dataset.schema();
  ARROW_ASSIGN_OR_RAISE(auto projection, dataset::ResolveColumns(schema, options.projection));
  for (int index : projection) {
    const std::string& name = schema.field(index)->name();
    if (name == kScoreColumn || (options.highlight && name == kHighlightColumn)) {
      return InvalidArgument("column '", name, "' of dataset ", dataset.uri(),
                             " has the name of a column text search adds; leave it out of the "
                             "projected columns");
    }
  }
  if (options.highlight && options.highlight_length < 1) {
    return InvalidArgument("highlight_length must be at least 1, got ", options.highlight_length);
  }

  std::shared_ptr<const expr::Filter> filter;
  std::optional<RowsByFragment> allowed;
  Explain prefilter_explain;
  if (!options.filter.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto parsed, expr::Filter::Parse(options.filter, dataset.schema()));
    filter = std::move(parsed);
    if (options.prefilter) {
      ARROW_ASSIGN_OR_RAISE(auto rows, FindMatchingRows(*snapshot, *filter, &prefilter_explain,
                                                        "prefilter " + filter->ToString() + ": "));
      allowed = std::move(rows);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto live, EligibleRows::Make(*snapshot, std::nullopt));
  std::optional<EligibleRows> prefiltered;
  if (allowed) {
    ARROW_ASSIGN_OR_RAISE(auto rows, EligibleRows::Make(*snapshot, std::move(allowed)));
    prefiltered = std::move(rows);
  }
  const EligibleRows& accepted = prefiltered ? *prefiltered : live;
  for (ColumnSearch& search : searches) {
    ARROW_RETURN_NOT_OK(SearchColumn(*snapshot, options, live, accepted, search));
  }

  std::vector<TextColumnExplain> explained;
  for (const ColumnSearch& search : searches) {
    explained.push_back({search.name, search.sources.get(), search.statistics,
                         search.plan.has_value(), search.scoring, search.counters});
  }
  ExplainTextSearch(options, dataset.manifest(), explained, prefilter_explain, explain);

  Highlighter highlighter;
  if (options.highlight) {
    const ColumnSearch& first = searches.front();
    highlighter = [&](const arrow::Array& values) {
      return HighlightColumn(values, first.sources->analyzer, first.query_terms, options);
    };
  }
  TextResult result(*snapshot, projection, options.with_row_address,
                    options.prefilter ? nullptr : filter, searches.front().name,
                    std::move(highlighter));
  return result.Materialize(MergeColumns(searches, static_cast<size_t>(options.k)), explain);
}

}  // namespace tessera::query
