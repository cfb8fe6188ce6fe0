#include "tessera/index/params.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "tessera/status.h"

namespace tessera::index {

namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

const std::string* Lookup(const Params& params, std::string_view key) {
  auto found = params.find(std::string(key));
  return found == params.end() ? nullptr : &found->second;
}

}  // namespace

arrow::Result<int64_t> IntegerParam(const Params& params, std::string_view family,
                                    std::string_view key, int64_t default_value, int64_t min,
                                    int64_t max) {
  const std::string* text = Lookup(params, key);
  if (text == nullptr) return default_value;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return InvalidArgument("index parameter '", key, "' of ", family, " must be an integer in [",
                           min, ", ", max, "], got '", *text, "'");
  }
  return value;
}

arrow::Result<double> RealParam(const Params& params, std::string_view family, std::string_view key,
                                double default_value, double min, double max) {
  const std::string* text = Lookup(params, key);
  if (text == nullptr) return default_value;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (text->empty() || end != text->c_str() + text->size() || !std::isfinite(value) ||
      value < min || value > max) {
    return InvalidArgument("index parameter '", key, "' of ", family, " must be a number in [", min,
                           ", ", max, "], got '", *text, "'");
  }
  return value;
}

arrow::Result<std::string> ChoiceParam(const Params& params, std::string_view family,
                                       std::string_view key, std::string_view default_value,
                                       std::initializer_list<std::string_view> allowed) {
  const std::string* text = Lookup(params, key);
  const std::string value = Lower(text == nullptr ? default_value : std::string_view(*text));
  std::string choices;
  for (std::string_view choice : allowed) {
    if (value == choice) return value;
    choices += (choices.empty() ? "" : ", ") + std::string(choice);
  }
  return InvalidArgument("index parameter '", key, "' of ", family, " must be one of ", choices,
                         ", got '", value, "'");
}

arrow::Status RejectUnknownParams(const Params& params, std::string_view family,
                                  const std::vector<std::string_view>& known) {
  for (const auto& [key, value] : params) {
    bool found = false;
    for (std::string_view name : known) found = found || key == name;
    if (found) continue;
    std::string names;
    for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    return InvalidArgument("unknown index parameter '", key, "' for ", family,
                           names.empty() ? "; it takes no parameters" : "; it takes: " + names);
  }
  return arrow::Status::OK();
}

arrow::Result<Params> ParseParamList(const std::vector<std::string>& items) {
  Params params;
  for (const auto& item : items) {
    const size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      return InvalidArgument("index parameter '", item, "' is not of the form key=value");
    }
    const std::string key = Lower(item.substr(0, equals));
    const std::string value = item.substr(equals + 1);
    // Keys ignore case, so 'NUM_PARTITIONS=8' repeats 'num_partitions=4' too.
    auto [existing, inserted] = params.emplace(key, value);
    if (!inserted) {
      return InvalidArgument("index parameter '", key, "' is given twice ('", existing->second,
                             "' and '", value, "'); give each parameter once");
    }
  }
  return params;
}

std::string DescribeParams(const Params& params) {
  std::string text;
  for (const auto& [key, value] : params) {
    text += (text.empty() ? "" : ", ") + key + "=" + value;
  }
  return text;
}

}  // namespace tessera::index
