// HybridSearch (query/text_search.h): a nearest-neighbour list and a text list, each of
// k · candidate_factor rows found with the hybrid filter (so both see the same eligible rows),
// fused by query/fusion.h, the best k read by row address.
#include <arrow/builder.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tessera/dataset/options.h"
#include "tessera/dataset/scanner.h"
#include "tessera/query/fusion.h"
#include "tessera/query/nearest.h"
#include "tessera/query/text_search.h"
#include "tessera/status.h"

namespace tessera::query {
namespace {

arrow::Status Validate(const HybridSearchOptions& options) {
  if (options.k < 1) return InvalidArgument("hybrid search: k must be at least 1, got ", options.k);
  if (!(options.rrf_k > 0) || !std::isfinite(options.rrf_k)) {
    return InvalidArgument("hybrid search: rrf_k must be a positive number, got ", options.rrf_k);
  }
  if (!(options.text_weight >= 0 && options.text_weight <= 1)) {
    return InvalidArgument("hybrid search: text_weight must lie in [0, 1], got ",
                           options.text_weight);
  }
  if (options.candidate_factor < 1) {
    return InvalidArgument("hybrid search: candidate_factor must be at least 1, got ",
                           options.candidate_factor);
  }
  return arrow::Status::OK();
}

// The narrowest column a sub-search can return for its rows (it returns some, and only the row
// addresses and scores are used): a fixed-width one when the schema has one, else `fallback`.
// Names a search adds itself, and names held by several columns, are not candidates.
std::string CheapColumn(const arrow::Schema& schema, const std::string& fallback) {
  int best = -1;
  int best_width = std::numeric_limits<int>::max();
  for (int i = 0; i < schema.num_fields(); ++i) {
    const auto& field = *schema.field(i);
    const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(field.type().get());
    const std::string& name = field.name();
    if (fixed == nullptr || name == kDistanceColumn || name == kScoreColumn ||
        name == kHighlightColumn || name == dataset::kRowAddressColumn ||
        schema.GetAllFieldIndices(name).size() != 1) {
      continue;
    }
    if (fixed->bit_width() < best_width) {
      best = i;
      best_width = fixed->bit_width();
    }
  }
  return best >= 0 ? schema.field(best)->name() : fallback;
}

// The (row address, `value_column`) pairs of a sub-search's table, in its order.
arrow::Result<std::vector<RankedRow>> RankedRows(const arrow::Table& table,
                                                 const std::string& value_column) {
  const auto addresses = table.GetColumnByName(dataset::kRowAddressColumn);
  const auto values = table.GetColumnByName(value_column);
  if (addresses == nullptr || values == nullptr) {
    return Error(ErrorKind::kInternal, "hybrid search: a sub-search returned no ",
                 addresses == nullptr ? dataset::kRowAddressColumn : value_column, " column");
  }
  std::vector<RankedRow> rows;
  rows.reserve(static_cast<size_t>(table.num_rows()));
  for (int chunk = 0; chunk < addresses->num_chunks(); ++chunk) {
    const auto& address_chunk = static_cast<const arrow::UInt64Array&>(*addresses->chunk(chunk));
    for (int64_t i = 0; i < address_chunk.length(); ++i) {
      rows.push_back({address_chunk.Value(i), 0});
    }
  }
  size_t at = 0;
  for (int chunk = 0; chunk < values->num_chunks(); ++chunk) {
    const auto& value_chunk = static_cast<const arrow::FloatArray&>(*values->chunk(chunk));
    for (int64_t i = 0; i < value_chunk.length(); ++i) rows[at++].value = value_chunk.Value(i);
  }
  return rows;
}

std::string DescribeFusion(const HybridSearchOptions& options) {
  if (options.fusion == Fusion::kReciprocalRank) {
    return Concat("reciprocal rank fusion (rrf_k ", options.rrf_k, ")");
  }
  return Concat("weighted fusion (text_weight ", options.text_weight, ")");
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Table>> HybridSearch(const dataset::Dataset& dataset,
                                                          const HybridSearchOptions& options,
                                                          Explain* explain) {
  ARROW_RETURN_NOT_OK(Validate(options));
  const auto& schema = *dataset.schema();
  ARROW_ASSIGN_OR_RAISE(const auto projection, dataset::ResolveColumns(schema, options.projection));
  for (int index : projection) {
    if (schema.field(index)->name() == kScoreColumn) {
      return InvalidArgument("column '", kScoreColumn, "' of dataset ", dataset.uri(),
                             " has the name of the score column hybrid search adds; leave it out "
                             "of the projected columns");
    }
  }
  const int64_t candidates =
      options.k > std::numeric_limits<int64_t>::max() / options.candidate_factor
          ? std::numeric_limits<int64_t>::max()
          : options.k * options.candidate_factor;

  NearestOptions vector = options.vector;
  vector.k = candidates;
  vector.filter = options.filter;
  vector.prefilter = options.prefilter;
  vector.columns = {CheapColumn(schema, vector.column)};
  vector.with_row_address = true;
  Explain vector_explain;
  ARROW_ASSIGN_OR_RAISE(auto vector_table,
                        Nearest(dataset, vector, explain ? &vector_explain : nullptr));
  ARROW_ASSIGN_OR_RAISE(const auto by_distance, RankedRows(*vector_table, kDistanceColumn));

  TextSearchOptions text = options.text;
  text.k = candidates;
  text.filter = options.filter;
  text.prefilter = options.prefilter;
  text.highlight = false;
  // Without a searched column TextSearch reports the error; the projection does not matter.
  if (!text.columns.empty()) text.projection = {CheapColumn(schema, text.columns.front().name)};
  text.with_row_address = true;
  Explain text_explain;
  ARROW_ASSIGN_OR_RAISE(auto text_table,
                        TextSearch(dataset, text, explain ? &text_explain : nullptr));
  ARROW_ASSIGN_OR_RAISE(const auto by_score, RankedRows(*text_table, kScoreColumn));

  std::vector<FusedRow> fused = options.fusion == Fusion::kReciprocalRank
                                    ? FuseReciprocalRank(by_distance, by_score, options.rrf_k)
                                    : FuseWeighted(by_distance, by_score, options.text_weight);
  if (static_cast<int64_t>(fused.size()) > options.k) fused.resize(static_cast<size_t>(options.k));

  if (explain != nullptr) {
    explain->Add(Concat("hybrid search: ", by_distance.size(), " vector and ", by_score.size(),
                        " text candidates (of ", candidates, " each) fused by ",
                        DescribeFusion(options), " into ", fused.size(), " rows"));
    for (auto& line : vector_explain.lines) explain->Add("vector: " + line);
    for (auto& line : text_explain.lines) explain->Add("text: " + line);
  }

  arrow::FieldVector fields;
  std::vector<std::string> names;
  for (int index : projection) {
    fields.push_back(schema.field(index));
    names.push_back(schema.field(index)->name());
  }
  fields.push_back(arrow::field(kScoreColumn, arrow::float32(), /*nullable=*/false));
  if (options.with_row_address) {
    fields.push_back(arrow::field(dataset::kRowAddressColumn, arrow::uint64(), false));
  }
  const auto output = arrow::schema(std::move(fields));
  if (fused.empty()) return arrow::Table::MakeEmpty(output);

  std::vector<uint64_t> addresses;
  arrow::FloatBuilder scores;
  ARROW_RETURN_NOT_OK(scores.Reserve(static_cast<int64_t>(fused.size())));
  for (const FusedRow& row : fused) {
    addresses.push_back(row.row_address);
    scores.UnsafeAppend(static_cast<float>(row.score));
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  if (!names.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto taken, dataset.Take(addresses, names));
    ARROW_ASSIGN_OR_RAISE(auto batch, taken->CombineChunksToBatch());
    for (const auto& name : names) columns.push_back(batch->GetColumnByName(name));
  }
  ARROW_ASSIGN_OR_RAISE(auto score_array, scores.Finish());
  columns.push_back(score_array);
  if (options.with_row_address) {
    arrow::UInt64Builder address_builder;
    ARROW_RETURN_NOT_OK(address_builder.AppendValues(addresses));
    ARROW_ASSIGN_OR_RAISE(auto address_array, address_builder.Finish());
    columns.push_back(address_array);
  }
  return arrow::Table::Make(output, columns, static_cast<int64_t>(fused.size()));
}

}  // namespace tessera::query
