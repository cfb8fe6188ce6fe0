#include "tessera/expr/temporal.h"

#include <arrow/type.h>

#include <cstdio>

namespace tessera::expr {

// Howard Hinnant's days_from_civil / civil_from_days: exact for every proleptic Gregorian date.
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<int64_t>(day_of_era) - 719468;
}

namespace {

struct Civil {
  int64_t year;
  unsigned month;
  unsigned day;
};

Civil CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t year = static_cast<int64_t>(year_of_era) + era * 400;
  const unsigned day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {year + (month <= 2), month, day};
}

bool IsLeap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// Reads exactly `count` digits at `at`.
std::optional<int64_t> Digits(std::string_view text, size_t at, size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<int64_t> ParseDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const auto year = Digits(text, 0, 4);
  const auto month = Digits(text, 5, 2);
  const auto day = Digits(text, 8, 2);
  if (!year || !month || !day || *year < 1 || *month < 1 || *month > 12 || *day < 1) {
    return std::nullopt;
  }
  if (*day > DaysInMonth(*year, static_cast<unsigned>(*month))) return std::nullopt;
  return DaysFromCivil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
}

namespace {

// A trailing UTC offset of a timestamp's time part — Z, +HH, +HHMM or +HH:MM (or -) — as
// nanoseconds east of UTC, removed from `text`; zero when there is none, nullopt when malformed.
std::optional<Nanoseconds> TakeOffset(std::string_view* text) {
  if (text->size() <= 16) return Nanoseconds{0};
  if (text->back() == 'Z' || text->back() == 'z') {
    text->remove_suffix(1);
    return Nanoseconds{0};
  }
  const size_t sign = text->find_last_of("+-");
  if (sign == std::string_view::npos || sign < 16) return Nanoseconds{0};
  std::string_view offset = text->substr(sign + 1);
  std::optional<int64_t> hours;
  std::optional<int64_t> minutes = 0;
  if (offset.size() == 2) {
    hours = Digits(offset, 0, 2);
  } else if (offset.size() == 4) {
    hours = Digits(offset, 0, 2);
    minutes = Digits(offset, 2, 2);
  } else if (offset.size() == 5 && offset[2] == ':') {
    hours = Digits(offset, 0, 2);
    minutes = Digits(offset, 3, 2);
  }
  if (!hours || !minutes || *hours > 18 || *minutes > 59) return std::nullopt;
  const bool west = (*text)[sign] == '-';
  *text = text->substr(0, sign);
  if (!text->empty() && text->back() == ' ') text->remove_suffix(1);
  const Nanoseconds east =
      (*hours * 60 + *minutes) * 60 * static_cast<Nanoseconds>(kNanosecondsPerSecond);
  return west ? -east : east;
}

}  // namespace

std::optional<Nanoseconds> ParseTimestamp(std::string_view text) {
  const auto offset = TakeOffset(&text);
  if (!offset) return std::nullopt;
  const auto local = ParseLocalTimestamp(text);
  if (!local) return std::nullopt;
  return *local - *offset;
}

std::optional<Nanoseconds> ParseLocalTimestamp(std::string_view text) {
  const auto days = ParseDate(text.substr(0, 10));
  if (!days) return std::nullopt;
  Nanoseconds value = static_cast<Nanoseconds>(*days) * kNanosecondsPerDay;
  if (text.size() == 10) return value;
  if (text[10] != ' ' && text[10] != 'T') return std::nullopt;
  const auto hour = Digits(text, 11, 2);
  if (!hour || text.size() < 16 || text[13] != ':') return std::nullopt;
  const auto minute = Digits(text, 14, 2);
  if (!minute || *hour > 23 || *minute > 59) return std::nullopt;
  int64_t second = 0;
  int64_t fraction = 0;
  size_t at = 16;
  if (at < text.size()) {
    if (text[at] != ':') return std::nullopt;
    const auto parsed = Digits(text, at + 1, 2);
    if (!parsed || *parsed > 59) return std::nullopt;
    second = *parsed;
    at += 3;
    if (at < text.size()) {
      if (text[at] != '.' || at + 1 == text.size() || text.size() - at - 1 > 9) return std::nullopt;
      const size_t count = text.size() - at - 1;
      const auto digits = Digits(text, at + 1, count);
      if (!digits) return std::nullopt;
      fraction = *digits;
      for (size_t i = count; i < 9; ++i) fraction *= 10;
    }
  }
  value += ((*hour * 60 + *minute) * 60 + second) * static_cast<Nanoseconds>(kNanosecondsPerSecond);
  return value + fraction;
}

std::string FormatDate(int64_t days) {
  const Civil civil = CivilFromDays(days);
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%04lld-%02u-%02u", static_cast<long long>(civil.year),
                civil.month, civil.day);
  return buffer;
}

std::string FormatTimestamp(Nanoseconds value) {
  // Floor division, so times before the epoch land on the right day.
  Nanoseconds days = value / kNanosecondsPerDay;
  Nanoseconds within = value % kNanosecondsPerDay;
  if (within < 0) {
    within += kNanosecondsPerDay;
    days -= 1;
  }
  const int64_t within_day = static_cast<int64_t>(within);
  const int64_t seconds = within_day / kNanosecondsPerSecond;
  int64_t fraction = within_day % kNanosecondsPerSecond;
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), " %02lld:%02lld:%02lld",
                static_cast<long long>(seconds / 3600), static_cast<long long>(seconds / 60 % 60),
                static_cast<long long>(seconds % 60));
  std::string text = FormatDate(static_cast<int64_t>(days)) + buffer;
  if (fraction != 0) {
    std::snprintf(buffer, sizeof(buffer), ".%09lld", static_cast<long long>(fraction));
    std::string digits = buffer;
    while (digits.back() == '0') digits.pop_back();
    text += digits;
  }
  return text;
}

int64_t NanosecondsPerUnit(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return kNanosecondsPerSecond;
    case arrow::TimeUnit::MILLI:
      return 1'000'000;
    case arrow::TimeUnit::MICRO:
      return 1'000;
    case arrow::TimeUnit::NANO:
      return 1;
  }
  return 1;
}

}  // namespace tessera::expr
