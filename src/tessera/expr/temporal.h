// Calendar arithmetic for DATE and TIMESTAMP literals: parsing 'YYYY-MM-DD' and
// 'YYYY-MM-DD HH:MM:SS[.fffffffff]' into exact counts since the Unix epoch, and rendering them
// back. Proleptic Gregorian calendar, years 0001-9999, no time zones: a literal is a wall-clock
// time, matched against a timestamp column's stored values (which Arrow keeps in UTC for
// columns with a time zone).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::expr {

// Nanoseconds since 1970-01-01 00:00:00. 128 bits: year 9999 in nanoseconds overflows int64.
using Nanoseconds = __int128;

inline constexpr int64_t kNanosecondsPerSecond = 1'000'000'000;
inline constexpr int64_t kNanosecondsPerDay = 86'400 * kNanosecondsPerSecond;

// Days since the epoch of a civil date; no validation.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// 'YYYY-MM-DD' → days since the epoch; nullopt when malformed or not a real date.
std::optional<int64_t> ParseDate(std::string_view text);

// 'YYYY-MM-DD', optionally followed by ' ' or 'T' and 'HH:MM[:SS[.f...]]' (up to 9 fraction
// digits) and a UTC offset (Z, +HH, +HHMM, +HH:MM or -..., optionally after a space) →
// nanoseconds since the epoch in UTC; nullopt when malformed.
std::optional<Nanoseconds> ParseTimestamp(std::string_view text);
// The same without an offset: the wall clock time as written.
std::optional<Nanoseconds> ParseLocalTimestamp(std::string_view text);

std::string FormatDate(int64_t days);
// 'YYYY-MM-DD HH:MM:SS' with as many fraction digits as needed (none for whole seconds).
std::string FormatTimestamp(Nanoseconds value);

// Nanoseconds in one tick of a unit: 1 for ns, 1e9 for s.
int64_t NanosecondsPerUnit(arrow::TimeUnit::type unit);

}  // namespace tessera::expr
