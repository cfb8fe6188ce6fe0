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
#include <memory>
#include <optional>
#include <string>
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

// Option checks with readable messages ("must be an integer >= 1, got -3").
CLI::Validator IntegerAtLeast(int64_t minimum);
CLI::Validator NonNegativeReal();

void AddDatasetArgument(CLI::App* command, std::string* dataset);
void AddVersionOption(CLI::App* command, VersionArgument* version);
// `--format F` restricted to `allowed`; the first allowed value is the default.
void AddFormatOption(CLI::App* command, std::string* format, std::vector<std::string> allowed);

arrow::Result<std::shared_ptr<dataset::Dataset>> OpenDataset(const std::string& uri,
                                                             const VersionArgument& version);

// Prints "error: <Kind>: <message>" on stderr and returns the exit code for it (1).
int ReportError(const arrow::Status& status);

}  // namespace tessera::cli
