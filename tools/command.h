// The pieces every CLI command shares: registration of subcommands with their actions, the
// options several commands take (DATASET, --version, --format), and error reporting.
//
// A command parses into an arguments struct owned by its action; the action runs only after
// the whole command line parsed, so a usage error never leaves a half-done operation.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/dataset/dataset.h"

namespace tessera::cli {

using CommandAction = std::function<arrow::Status()>;

class CommandSet {
 public:
  explicit CommandSet(CLI::App& app) : app_(app) {}

  // Adds subcommand `name`; `action` runs when the command line selects it.
  CLI::App* Add(const std::string& name, const std::string& description, CommandAction action);

  // Runs the action of the selected subcommand (exactly one is required by the parser).
  arrow::Status RunSelected() const;

 private:
  CLI::App& app_;
  std::vector<std::pair<CLI::App*, CommandAction>> commands_;
};

// `--version V`: the dataset version a read command reads (the latest when absent).
struct VersionArgument {
  uint64_t value = 0;
  CLI::Option* option = nullptr;
  std::optional<uint64_t> get() const;
};

// Option checks with readable messages ("must be an integer in [1, 2147483647], got '-3'").
// An integer in [minimum, maximum]: also rejects what the option's type cannot hold, which
// CLI11 would otherwise report as "Could not convert" or wrap around.
CLI::Validator IntegerInRange(int64_t minimum, uint64_t maximum);
// An integer in [minimum, the largest T]; T is the type of the option's variable.
template <typename T = int64_t>
CLI::Validator IntegerAtLeast(int64_t minimum) {
  static_assert(std::is_integral_v<T>);
  return IntegerInRange(minimum, static_cast<uint64_t>(std::numeric_limits<T>::max()));
}
CLI::Validator NonNegativeReal();

void AddDatasetArgument(CLI::App* command, std::string* dataset);
// `--where EXPR`, a filter (docs/filters.md). One rule for every command: a filter that is
// empty or only blanks is a usage error (InvalidArgument) — it would mean "every row" to some
// readers and "no row" to others; omitting --where selects every row, and `--where true` says
// so explicitly (which `delete` requires to delete every row). `what_to_do` ends the message.
CLI::Option* AddWhereOption(CLI::App* command, std::string* filter, const std::string& what_to_do);
void AddVersionOption(CLI::App* command, VersionArgument* version);
// `--format F` restricted to `allowed`; the first allowed value is the default.
void AddFormatOption(CLI::App* command, std::string* format, std::vector<std::string> allowed);

arrow::Result<std::shared_ptr<dataset::Dataset>> OpenDataset(const std::string& uri,
                                                             const VersionArgument& version);

// Prints "error: <Kind>: <message>" on stderr and returns the exit code for it: 130 for
// Cancelled (a command interrupted by Ctrl-C, command_progress.h), else 1.
int ReportError(const arrow::Status& status);

}  // namespace tessera::cli
