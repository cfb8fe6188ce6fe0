// Quantities the CLI reads and prints: durations ("30m", "7d", "1h30m"), byte counts, instants.
#pragma once

#include <arrow/result.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::cli {

// A sequence of <integer><unit> terms, units s, m, h, d, w ("0s", "90m", "1d12h"); "0" alone
// is also accepted. InvalidArgument for anything else, or more than 10,000 years.
arrow::Result<std::chrono::seconds> ParseDuration(std::string_view text);
// The other way: "1h", "90m", "45s" (the largest of h, m, s that divides it), as ParseDuration
// reads it back.
std::string FormatDuration(std::chrono::seconds duration);

// "1 row", "2 rows": `count` and `noun`, plural (with an s) unless count is 1.
std::string Quantity(uint64_t count, std::string_view noun);

// "512 B", "1.5 KiB", "3.2 GiB".
std::string FormatBytes(uint64_t bytes);

// ISO 8601 in UTC with seconds: "2024-05-01T12:00:00Z".
std::string FormatTime(std::chrono::system_clock::time_point time);

}  // namespace tessera::cli
