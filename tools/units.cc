#include "units.h"

#include <cstdio>

#include "tessera/status.h"

namespace tessera::cli {

std::string FormatDuration(std::chrono::seconds duration) {
  const auto seconds = duration.count();
  if (seconds > 0 && seconds % 3600 == 0) return std::to_string(seconds / 3600) + "h";
  if (seconds > 0 && seconds % 60 == 0) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds) + "s";
}

arrow::Result<std::chrono::seconds> ParseDuration(std::string_view text) {
  auto invalid = [&] {
    return InvalidArgument("invalid duration '", text,
                           "': use a number with a unit s, m, h, d or w, e.g. 0s, 30m, 7d, 1h30m");
  };
  if (text == "0") return std::chrono::seconds(0);
  if (text.empty()) return invalid();
  constexpr int64_t kLimit = int64_t{10000} * 366 * 86400;  // 10,000 years, far from overflow
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    int64_t number = 0;
    const size_t digits_start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      number = number * 10 + (text[i] - '0');
      if (number > kLimit) return invalid();
      ++i;
    }
    if (i == digits_start || i == text.size()) return invalid();
    int64_t unit = 0;
    switch (text[i]) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
      case 'w':
        unit = 7 * 86400;
        break;
      default:
        return invalid();
    }
    ++i;
    if (number > kLimit / unit) return invalid();
    total += number * unit;
    if (total > kLimit) return invalid();
  }
  return std::chrono::seconds(total);
}

std::string Quantity(uint64_t count, std::string_view noun) {
  std::string text = std::to_string(count) + " " + std::string(noun);
  if (count != 1) text += "s";
  return text;
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), value < 10 ? "%.2f %s" : "%.1f %s", value, kUnits[unit]);
  return buffer;
}

std::string FormatTime(std::chrono::system_clock::time_point time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto days = std::chrono::floor<std::chrono::days>(seconds);
  const std::chrono::year_month_day date{days};
  const std::chrono::hh_mm_ss clock{seconds - days};
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02uT%02d:%02d:%02dZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<int>(clock.hours().count()),
                static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return buffer;
}

}  // namespace tessera::cli
