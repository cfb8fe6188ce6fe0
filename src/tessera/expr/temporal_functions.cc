// Temporal functions of the expression language: INTERVAL literals and date/timestamp ±
// interval, date_part / extract, date_trunc, and the current time (now(), current_timestamp,
// current_date), which a filter pins when it is parsed.
#include <arrow/compute/api.h>
#include <arrow/scalar.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <optional>

#include "tessera/expr/function_families.h"
#include "tessera/expr/types.h"

namespace tessera::expr {

namespace {

namespace compute = arrow::compute;
using arrow::Datum;
using TypePtr = std::shared_ptr<arrow::DataType>;
using Arguments = std::vector<Datum>;
using Style = FunctionSpec::Style;

bool IsTemporal(const arrow::DataType& type) { return FamilyOf(type) == TypeFamily::kTemporal; }

// --- INTERVAL -------------------------------------------------------------------------------

// Nanoseconds per unit of an INTERVAL; months and years have no fixed length.
const std::map<std::string, int64_t, std::less<>>& IntervalUnits() {
  static const std::map<std::string, int64_t, std::less<>> units = {
      {"nanosecond", 1},           {"microsecond", 1'000},           {"millisecond", 1'000'000},
      {"second", 1'000'000'000},   {"minute", 60'000'000'000},       {"hour", 3'600'000'000'000},
      {"day", 86'400'000'000'000}, {"week", 7 * 86'400'000'000'000},
  };
  return units;
}

// "3 days", or "3" and "day": the length in nanoseconds.
arrow::Result<int64_t> IntervalNanoseconds(std::string_view amount, std::string_view unit) {
  while (!amount.empty() && amount.front() == ' ') amount.remove_prefix(1);
  while (!amount.empty() && amount.back() == ' ') amount.remove_suffix(1);
  const size_t space = amount.find(' ');
  std::string_view number = amount;
  if (space != std::string_view::npos) {
    if (!unit.empty()) {
      return arrow::Status::Invalid("INTERVAL '", amount, "' ", unit, " names its unit twice");
    }
    number = amount.substr(0, space);
    unit = amount.substr(space + 1);
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  }
  std::string name;
  for (char c : unit) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.size() > 1 && name.back() == 's') name.pop_back();
  if (name.empty()) name = "second";  // INTERVAL '3' is three seconds, as in PostgreSQL and DuckDB
  int64_t count = 0;
  const auto parsed = std::from_chars(number.data(), number.data() + number.size(), count);
  if (parsed.ec != std::errc() || parsed.ptr != number.data() + number.size()) {
    return arrow::Status::Invalid(
        "INTERVAL needs a whole number of units, e.g. INTERVAL '3' DAY; "
        "found '",
        number, "'");
  }
  if (name == "month" || name == "year" || name == "quarter") {
    return arrow::Status::Invalid("INTERVAL in ", name,
                                  "s is not supported (they have no fixed length); use days");
  }
  const auto found = IntervalUnits().find(name);
  if (found == IntervalUnits().end()) {
    return arrow::Status::Invalid("unknown INTERVAL unit '", unit,
                                  "'; use nanosecond, microsecond, millisecond, second, minute, "
                                  "hour, day or week");
  }
  int64_t nanoseconds = 0;
  if (__builtin_mul_overflow(count, found->second, &nanoseconds)) {
    return arrow::Status::Invalid("INTERVAL '", amount, "' is longer than 292 years");
  }
  return nanoseconds;
}

// The coarsest duration unit that holds `nanoseconds` exactly, so that adding it to a
// second- or microsecond-precision timestamp keeps that precision.
Datum DurationOf(int64_t nanoseconds) {
  for (auto [unit, scale] : {std::pair{arrow::TimeUnit::SECOND, int64_t{1'000'000'000}},
                             std::pair{arrow::TimeUnit::MILLI, int64_t{1'000'000}},
                             std::pair{arrow::TimeUnit::MICRO, int64_t{1'000}}}) {
    if (nanoseconds % scale == 0) {
      return Datum(std::make_shared<arrow::DurationScalar>(nanoseconds / scale, unit));
    }
  }
  return Datum(std::make_shared<arrow::DurationScalar>(nanoseconds, arrow::TimeUnit::NANO));
}

arrow::Status CheckInterval(const std::vector<std::shared_ptr<arrow::Scalar>>& constants) {
  auto text = [](const std::shared_ptr<arrow::Scalar>& scalar) {
    return scalar == nullptr || !scalar->is_valid
               ? std::string()
               : std::string(static_cast<const arrow::BaseBinaryScalar&>(*scalar).view());
  };
  return IntervalNanoseconds(text(constants[0]), constants.size() > 1 ? text(constants[1]) : "")
      .status();
}

arrow::Result<Signature> ResolveInterval(const TypeList& types) {
  // The unit of the result is decided by the value; the binder folds the call at once, and the
  // folded literal carries its own type.
  return Signature{types, arrow::duration(arrow::TimeUnit::NANO)};
}

arrow::Result<Datum> EvaluateInterval(const Arguments& arguments, const TypePtr&, int64_t) {
  ARROW_ASSIGN_OR_RAISE(
      auto nanoseconds,
      IntervalNanoseconds(ConstantString(arguments[0]),
                          arguments.size() > 1 ? ConstantString(arguments[1]) : std::string()));
  return DurationOf(nanoseconds);
}

// --- date/timestamp ± interval --------------------------------------------------------------

arrow::TimeUnit::type FinerUnit(arrow::TimeUnit::type a, arrow::TimeUnit::type b) {
  return std::max(a, b);  // SECOND < MILLI < MICRO < NANO
}

// timestamp ± duration → timestamp in the finer of the two units; a date becomes a timestamp
// (a date plus hours is a point in time), as in DuckDB.
arrow::Result<Signature> ResolveTemporalShift(const TypeList& types) {
  const auto& left = types[0];
  const auto& right = types[1];
  if (!IsTemporal(*left) || right->id() != arrow::Type::DURATION) {
    return arrow::Status::TypeError("a date or timestamp and an INTERVAL are needed, not ",
                                    left->ToString(), " and ", right->ToString());
  }
  const auto duration_unit = static_cast<const arrow::DurationType&>(*right).unit();
  std::string zone;
  arrow::TimeUnit::type unit = arrow::TimeUnit::SECOND;
  if (left->id() == arrow::Type::TIMESTAMP) {
    const auto& timestamp = static_cast<const arrow::TimestampType&>(*left);
    zone = timestamp.timezone();
    unit = timestamp.unit();
  } else if (left->id() == arrow::Type::DATE64) {
    unit = arrow::TimeUnit::MILLI;
  }
  unit = FinerUnit(unit, duration_unit);
  return Signature{{arrow::timestamp(unit, zone), arrow::duration(unit)},
                   arrow::timestamp(unit, zone)};
}

template <const char* kKernel>
arrow::Result<Datum> EvaluateShift(const Arguments& arguments, const TypePtr&, int64_t) {
  return compute::CallFunction(kKernel, arguments);
}

constexpr char kTemporalAdd[] = "add_checked";
constexpr char kTemporalSubtract[] = "subtract_checked";

// --- date_part / extract --------------------------------------------------------------------

using PartKernel = arrow::Result<Datum> (*)(const Datum&);

template <const char* kKernel>
arrow::Result<Datum> Part(const Datum& value) {
  return compute::CallFunction(kKernel, {value});
}

constexpr char kYear[] = "year";
constexpr char kQuarter[] = "quarter";
constexpr char kMonth[] = "month";
constexpr char kDay[] = "day";
constexpr char kHour[] = "hour";
constexpr char kMinute[] = "minute";
constexpr char kSecond[] = "second";
constexpr char kDayOfYear[] = "day_of_year";
constexpr char kIsoWeek[] = "iso_week";
constexpr char kIsoYear[] = "iso_year";

// Sunday = 0 ... Saturday = 6, as PostgreSQL's and DuckDB's dow.
arrow::Result<Datum> DayOfWeek(const Datum& value) {
  compute::DayOfWeekOptions options(/*count_from_zero=*/true, /*week_start=*/7);
  return compute::CallFunction("day_of_week", {value}, &options);
}

// Monday = 1 ... Sunday = 7.
arrow::Result<Datum> IsoDayOfWeek(const Datum& value) {
  compute::DayOfWeekOptions options(/*count_from_zero=*/false, /*week_start=*/1);
  return compute::CallFunction("day_of_week", {value}, &options);
}

// SQL's sub-second fields count within the minute, seconds included (PostgreSQL, DuckDB):
// 10:00:05.123456 has millisecond 5123 and microsecond 5123456. Arrow's are within the next
// coarser unit (123, 456).
template <int64_t kPerSecond>
arrow::Result<Datum> WithinMinute(const Datum& value) {
  ARROW_ASSIGN_OR_RAISE(auto seconds, compute::CallFunction("second", {value}));
  ARROW_ASSIGN_OR_RAISE(auto milliseconds, compute::CallFunction("millisecond", {value}));
  ARROW_ASSIGN_OR_RAISE(auto total,
                        compute::CallFunction("multiply", {seconds, Datum(int64_t{1000})}));
  ARROW_ASSIGN_OR_RAISE(total, compute::CallFunction("add", {total, milliseconds}));
  if (kPerSecond == 1'000) return total;
  ARROW_ASSIGN_OR_RAISE(auto microseconds, compute::CallFunction("microsecond", {value}));
  ARROW_ASSIGN_OR_RAISE(total, compute::CallFunction("multiply", {total, Datum(int64_t{1000})}));
  ARROW_ASSIGN_OR_RAISE(total, compute::CallFunction("add", {total, microseconds}));
  if (kPerSecond == 1'000'000) return total;
  ARROW_ASSIGN_OR_RAISE(auto nanoseconds, compute::CallFunction("nanosecond", {value}));
  ARROW_ASSIGN_OR_RAISE(total, compute::CallFunction("multiply", {total, Datum(int64_t{1000})}));
  return compute::CallFunction("add", {total, nanoseconds});
}

const std::map<std::string, PartKernel, std::less<>>& Parts() {
  static const std::map<std::string, PartKernel, std::less<>> parts = {
      {"year", Part<kYear>},
      {"quarter", Part<kQuarter>},
      {"month", Part<kMonth>},
      {"day", Part<kDay>},
      {"hour", Part<kHour>},
      {"minute", Part<kMinute>},
      {"second", Part<kSecond>},
      {"millisecond", WithinMinute<1'000>},
      {"microsecond", WithinMinute<1'000'000>},
      {"nanosecond", WithinMinute<1'000'000'000>},
      {"doy", Part<kDayOfYear>},
      {"dayofyear", Part<kDayOfYear>},
      {"week", Part<kIsoWeek>},
      {"isoyear", Part<kIsoYear>},
      {"dow", DayOfWeek},
      {"dayofweek", DayOfWeek},
      {"isodow", IsoDayOfWeek},
  };
  return parts;
}

std::string LowerName(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string PartNames() {
  std::string names;
  for (const auto& [name, kernel] : Parts()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// Dates as timestamps at midnight, so that time fields (hour ... nanosecond) are 0.
Datum AsTimestamp(const Datum& value) {
  const auto id = value.type()->id();
  if (id != arrow::Type::DATE32 && id != arrow::Type::DATE64) return value;
  auto cast =
      compute::Cast(value, arrow::timestamp(id == arrow::Type::DATE32 ? arrow::TimeUnit::SECOND
                                                                      : arrow::TimeUnit::MILLI));
  return cast.ok() ? *cast : value;
}

arrow::Status CheckPart(const std::vector<std::shared_ptr<arrow::Scalar>>& constants) {
  if (constants[0] == nullptr || !constants[0]->is_valid) return arrow::Status::OK();
  const auto name =
      LowerName(std::string(static_cast<const arrow::BaseBinaryScalar&>(*constants[0]).view()));
  if (Parts().count(name) == 0) {
    return arrow::Status::Invalid("unknown field '", name, "'; the fields are ", PartNames());
  }
  return arrow::Status::OK();
}

arrow::Result<Signature> ResolvePart(const TypeList& types) {
  if (FamilyOf(*types[0]) != TypeFamily::kString || !IsTemporal(*types[1])) {
    return arrow::Status::TypeError("date_part takes a field name and a date or timestamp, not ",
                                    types[0]->ToString(), " and ", types[1]->ToString());
  }
  return Signature{{arrow::utf8(), types[1]}, arrow::int64()};
}

arrow::Result<Datum> EvaluatePart(const Arguments& arguments, const TypePtr& result,
                                  int64_t length) {
  if (!arguments[0].scalar()->is_valid) {
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(result, length));
    return Datum(nulls);
  }
  const auto found = Parts().find(LowerName(ConstantString(arguments[0])));
  if (found == Parts().end()) return arrow::Status::Invalid("unknown date_part field");
  ARROW_ASSIGN_OR_RAISE(auto part, found->second(AsTimestamp(arguments[1])));
  return compute::Cast(part, result);
}

// --- date_trunc -----------------------------------------------------------------------------

const std::map<std::string, compute::CalendarUnit, std::less<>>& TruncationUnits() {
  static const std::map<std::string, compute::CalendarUnit, std::less<>> units = {
      {"microsecond", compute::CalendarUnit::MICROSECOND},
      {"millisecond", compute::CalendarUnit::MILLISECOND},
      {"second", compute::CalendarUnit::SECOND},
      {"minute", compute::CalendarUnit::MINUTE},
      {"hour", compute::CalendarUnit::HOUR},
      {"day", compute::CalendarUnit::DAY},
      {"week", compute::CalendarUnit::WEEK},
      {"month", compute::CalendarUnit::MONTH},
      {"quarter", compute::CalendarUnit::QUARTER},
      {"year", compute::CalendarUnit::YEAR},
  };
  return units;
}

arrow::Status CheckTruncation(const std::vector<std::shared_ptr<arrow::Scalar>>& constants) {
  if (constants[0] == nullptr || !constants[0]->is_valid) return arrow::Status::OK();
  const auto name =
      LowerName(std::string(static_cast<const arrow::BaseBinaryScalar&>(*constants[0]).view()));
  if (TruncationUnits().count(name) == 0) {
    return arrow::Status::Invalid("unknown unit '", name,
                                  "'; use microsecond, millisecond, second, minute, hour, day, "
                                  "week, month, quarter or year");
  }
  return arrow::Status::OK();
}

arrow::Result<Signature> ResolveTruncation(const TypeList& types) {
  if (FamilyOf(*types[0]) != TypeFamily::kString || !IsTemporal(*types[1])) {
    return arrow::Status::TypeError("date_trunc takes a unit name and a date or timestamp, not ",
                                    types[0]->ToString(), " and ", types[1]->ToString());
  }
  return Signature{{arrow::utf8(), types[1]}, types[1]};
}

// Weeks start on Monday (ISO), as in DuckDB and PostgreSQL.
arrow::Result<Datum> EvaluateTruncation(const Arguments& arguments, const TypePtr& result,
                                        int64_t length) {
  if (!arguments[0].scalar()->is_valid) {
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(result, length));
    return Datum(nulls);
  }
  const auto found = TruncationUnits().find(LowerName(ConstantString(arguments[0])));
  if (found == TruncationUnits().end()) return arrow::Status::Invalid("unknown date_trunc unit");
  compute::RoundTemporalOptions options(1, found->second, /*week_starts_monday=*/true);
  ARROW_ASSIGN_OR_RAISE(auto truncated,
                        compute::CallFunction("floor_temporal", {arguments[1]}, &options));
  // Near the start of a type's range (timestamp[ns] begins in 1677) the truncated instant lies
  // before it, and Arrow wraps it around to the far future: refuse instead.
  ARROW_ASSIGN_OR_RAISE(auto wrapped, compute::CallFunction("greater", {truncated, arguments[1]}));
  ARROW_ASSIGN_OR_RAISE(auto any, compute::CallFunction("any", {wrapped}));
  if (any.scalar()->is_valid && static_cast<const arrow::BooleanScalar&>(*any.scalar()).value) {
    return arrow::Status::Invalid("date_trunc('", ConstantString(arguments[0]),
                                  "', ...) falls before the range of ",
                                  arguments[1].type()->ToString());
  }
  return truncated;
}

// --- the current time -----------------------------------------------------------------------

arrow::Result<Signature> ResolveNow(const TypeList&) {
  return Signature{{}, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")};
}

// The instant of the statement being bound (StatementClock), else the system clock's.
std::chrono::system_clock::time_point Now() {
  const auto pinned = StatementClock::Pinned();
  return pinned ? *pinned : std::chrono::system_clock::now();
}

arrow::Result<Datum> EvaluateNow(const Arguments&, const TypePtr& result, int64_t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(Now().time_since_epoch()).count();
  return Datum(std::make_shared<arrow::TimestampScalar>(micros, result));
}

arrow::Result<Signature> ResolveToday(const TypeList&) { return Signature{{}, arrow::date32()}; }

// Today in UTC.
arrow::Result<Datum> EvaluateToday(const Arguments&, const TypePtr&, int64_t) {
  const auto days = std::chrono::floor<std::chrono::days>(Now());
  return Datum(
      std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(days.time_since_epoch().count())));
}

thread_local std::optional<std::chrono::system_clock::time_point> pinned_instant;

}  // namespace

StatementClock::StatementClock() : previous_(pinned_instant) {
  if (!pinned_instant) pinned_instant = std::chrono::system_clock::now();
}

StatementClock::~StatementClock() { pinned_instant = previous_; }

std::optional<std::chrono::system_clock::time_point> StatementClock::Pinned() {
  return pinned_instant;
}

const std::vector<FunctionSpec>& TemporalFunctionSpecs() {
  static const std::vector<FunctionSpec> specs = {
      {"interval", "interval", Style::kFunction, 1, 2, false, 0b11,
       "INTERVAL '3' DAY or INTERVAL '3 days'", ResolveInterval, EvaluateInterval, CheckInterval},
      {"date_add", "date_add", Style::kFunction, 2, 2, true, 0, "date_add(timestamp, INTERVAL ...)",
       ResolveTemporalShift, EvaluateShift<kTemporalAdd>},
      {"date_sub", "date_sub", Style::kFunction, 2, 2, true, 0, "date_sub(timestamp, INTERVAL ...)",
       ResolveTemporalShift, EvaluateShift<kTemporalSubtract>},
      {"date_part", "date_part", Style::kFunction, 2, 2, false, 0b01,
       "date_part('field', timestamp) or extract(field FROM timestamp)", ResolvePart, EvaluatePart,
       CheckPart},
      {"date_trunc", "date_trunc", Style::kFunction, 2, 2, true, 0b01,
       "date_trunc('unit', timestamp)", ResolveTruncation, EvaluateTruncation, CheckTruncation},
      {"now", "now", Style::kFunction, 0, 0, false, 0, "now()", ResolveNow, EvaluateNow},
      {"current_date", "current_date", Style::kFunction, 0, 0, false, 0, "current_date",
       ResolveToday, EvaluateToday},
  };
  return specs;
}

}  // namespace tessera::expr
