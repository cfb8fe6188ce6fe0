// The options of `tessera search`, shared by its three modes (docs/cli.md, "search"):
//   nearest neighbours (--vector or --queries; search_command.cc),
//   full-text search (--text; text_search_command.cc),
//   hybrid search (--hybrid --vector ... --vector-column V --text ...; text_search_command.cc).
// Each option keeps its CLI11 Option so that a mode can tell which options were given and reject
// those that do not apply to it, naming them.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "tessera/query/nearest.h"
#include "tessera/query/text_search.h"

namespace tessera::cli {

struct SearchArguments {
  // --- every mode ---
  std::string dataset;
  VersionArgument version;
  // The searched column: the vector column, or the text column(s) of --text ("title^2").
  std::vector<std::string> column;
  int64_t k = 10;
  std::string filter;
  bool prefilter = false;
  std::vector<std::string> columns;  // printed columns
  bool with_row_address = false;
  bool explain = false;
  std::string format;

  // --- nearest neighbours (and the vector half of --hybrid) ---
  std::string vector;
  CLI::Option* vector_option = nullptr;
  std::string queries;
  CLI::Option* queries_option = nullptr;
  int nprobes = query::kDefaultNprobes;
  CLI::Option* nprobes_option = nullptr;
  int refine_factor = 1;
  CLI::Option* refine_factor_option = nullptr;
  int ef = 0;
  CLI::Option* ef_option = nullptr;
  int64_t offset = 0;
  CLI::Option* offset_option = nullptr;
  std::optional<float> lower_distance;
  CLI::Option* lower_distance_option = nullptr;
  std::optional<float> upper_distance;
  CLI::Option* upper_distance_option = nullptr;
  std::string metric;
  CLI::Option* metric_option = nullptr;

  // --- full-text search ---
  std::string text;
  CLI::Option* text_option = nullptr;
  std::string query_type;
  CLI::Option* query_type_option = nullptr;
  std::string operator_name = "or";
  CLI::Option* operator_option = nullptr;
  int minimum_should_match = 1;
  CLI::Option* minimum_should_match_option = nullptr;
  int slop = 0;
  CLI::Option* slop_option = nullptr;
  int fuzziness = 1;
  CLI::Option* fuzziness_option = nullptr;
  int max_expansions = 50;
  CLI::Option* max_expansions_option = nullptr;
  double k1 = 1.2;
  CLI::Option* k1_option = nullptr;
  double b = 0.75;
  CLI::Option* b_option = nullptr;
  bool highlight = false;
  CLI::Option* highlight_option = nullptr;
  int highlight_length = 160;
  CLI::Option* highlight_length_option = nullptr;
  std::string highlight_tags;
  CLI::Option* highlight_tags_option = nullptr;
  bool exhaustive = false;
  CLI::Option* exhaustive_option = nullptr;

  // --- hybrid search ---
  bool hybrid = false;
  CLI::Option* hybrid_option = nullptr;
  std::string vector_column;
  CLI::Option* vector_column_option = nullptr;
  std::string fusion = "rrf";
  CLI::Option* fusion_option = nullptr;
  double rrf_k = query::kDefaultRrfK;
  CLI::Option* rrf_k_option = nullptr;
  double text_weight = 0.5;
  CLI::Option* text_weight_option = nullptr;
  int candidate_factor = 4;
  CLI::Option* candidate_factor_option = nullptr;
};

// Adds the options of full-text and hybrid search to `command` (text_search_command.cc).
void AddTextSearchOptions(CLI::App* command, SearchArguments* args);

// Whether the command line asks for a text or hybrid search (--text or --hybrid given).
bool WantsTextSearch(const SearchArguments& args);

// Nearest-neighbour mode: InvalidArgument naming the text and hybrid options given, which need
// --text (or --hybrid).
arrow::Status RejectTextOptions(const SearchArguments& args);

// Runs `tessera search --text ...` or `--hybrid ...`, after checking that every option given
// applies to the mode (InvalidArgument naming the options that do not).
arrow::Status RunTextOrHybridSearch(const SearchArguments& args);

}  // namespace tessera::cli
