#include "command.h"

#include <charconv>
#include <cmath>
#include <iostream>

#include "tessera/status.h"

namespace tessera::cli {

CLI::App* CommandSet::Add(const std::string& name, const std::string& description,
                          CommandAction action) {
  CLI::App* command = app_.add_subcommand(name, description);
  commands_.emplace_back(command, std::move(action));
  return command;
}

arrow::Status CommandSet::RunSelected() const {
  for (const auto& [command, action] : commands_) {
    if (command->parsed()) return action();
  }
  return InvalidArgument("no command given: run 'tessera --help'");
}

std::optional<uint64_t> VersionArgument::get() const {
  if (option == nullptr || option->count() == 0) return std::nullopt;
  return value;
}

CLI::Validator IntegerInRange(int64_t minimum, uint64_t maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        const std::string range =
            "[" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]";
        const char* end = text.data() + text.size();
        // Magnitude and sign parsed apart, so every value of int64 and uint64 compares exactly.
        const bool negative = !text.empty() && text.front() == '-';
        uint64_t magnitude = 0;
        const auto result = std::from_chars(text.data() + (negative ? 1 : 0), end, magnitude);
        const bool integer =
            result.ec != std::errc::invalid_argument && result.ptr == end && text.size() > negative;
        if (!integer) return "must be an integer in " + range + ", got '" + text + "'";
        const bool in_range =
            result.ec == std::errc() &&
            (negative ? minimum < 0 && magnitude <= static_cast<uint64_t>(-(minimum + 1)) + 1
                      : magnitude <= maximum &&
                            (minimum <= 0 || magnitude >= static_cast<uint64_t>(minimum)));
        if (!in_range) return "must be an integer in " + range + ", got '" + text + "'";
        return "";
      },
      "");
}

CLI::Validator NonNegativeReal() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        auto [rest, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc() || rest != end || !std::isfinite(value) || value < 0) {
          return "must be a number >= 0, got '" + text + "'";
        }
        return "";
      },
      "");
}

void AddDatasetArgument(CLI::App* command, std::string* dataset) {
  command->add_option("DATASET", *dataset, "Dataset directory (or URI)")
      ->required()
      ->type_name("DIR");
}

CLI::Option* AddWhereOption(CLI::App* command, std::string* filter, const std::string& what_to_do) {
  return command->add_option("--where", *filter, "Filter expression (docs/filters.md)")
      ->type_name("EXPR")
      ->check(CLI::Validator(
          [what_to_do](std::string& text) -> std::string {
            if (text.find_first_not_of(" \t\r\n\f\v") != std::string::npos) return "";
            return "the filter is empty; " + what_to_do;
          },
          ""));
}

void AddVersionOption(CLI::App* command, VersionArgument* version) {
  version->option =
      command->add_option("--version", version->value, "Read this version (default: the latest)")
          ->type_name("V")
          ->check(IntegerAtLeast<uint64_t>(1));
}

void AddFormatOption(CLI::App* command, std::string* format, std::vector<std::string> allowed) {
  *format = allowed.front();
  std::string names;
  for (const auto& name : allowed) names += (names.empty() ? "" : "|") + name;
  command->add_option("--format", *format, "Output format")
      ->type_name(names)
      ->check(CLI::IsMember(allowed).description(""))
      ->capture_default_str();
}

arrow::Result<std::shared_ptr<dataset::Dataset>> OpenDataset(const std::string& uri,
                                                             const VersionArgument& version) {
  return dataset::Dataset::Open(uri, version.get());
}

int ReportError(const arrow::Status& status) {
  std::string message = status.message();
  // Arrow's own statuses carry the OS error ("[errno 2] No such file or directory") as a detail
  // that message() leaves out.
  const auto& detail = status.detail();
  if (detail != nullptr && std::string_view(detail->type_id()) != ErrorDetail::kTypeId) {
    message += " (" + detail->ToString() + ")";
  }
  // One line per error, so scripts can read it with `head -1` or grep; some messages embed
  // multi-line text such as a schema.
  std::string line;
  for (char c : message) {
    if (c == '\n') {
      line += "; ";
    } else {
      line.push_back(c);
    }
  }
  // Arrow's own messages may quote user input too: no control character reaches the terminal.
  line = EscapeControlCharacters(line);
  std::cout.flush();
  std::cerr << "error: " << ErrorKindName(KindOf(status)) << ": " << line << std::endl;
  constexpr int kInterrupted = 130;  // what shells report for a program ended by SIGINT
  return KindOf(status) == ErrorKind::kCancelled ? kInterrupted : 1;
}

}  // namespace tessera::cli
