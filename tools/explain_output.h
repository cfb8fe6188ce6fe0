// `--explain` of scan and search: the plan lines of a query (query/explain.h) go to standard
// error, each prefixed with "explain: ", so standard output keeps only the rows, in the format
// asked for, and stays readable by programs.
#pragma once

#include <iostream>
#include <string_view>

#include "tessera/query/explain.h"

namespace tessera::cli {

// Prints the lines of `explain`, each as "explain: <prefix><line>", on standard error.
inline void PrintExplain(const query::Explain& explain, std::string_view prefix = "") {
  std::cout.flush();
  for (const auto& line : explain.lines) std::cerr << "explain: " << prefix << line << "\n";
  std::cerr.flush();
}

}  // namespace tessera::cli
