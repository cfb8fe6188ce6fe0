// The function registry (functions.h) is assembled from families, one file each, so that each
// file holds one kind of function: functions.cc (operators, strings, math, conditionals, IS
// forms), temporal_functions.cc (intervals, date_part, date_trunc, the current time) and
// list_functions.cc (array_contains, = ANY, array_length). Shared helpers of the families live
// here.
#pragma once

#include <arrow/array.h>
#include <arrow/datum.h>
#include <arrow/result.h>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "tessera/expr/functions.h"

namespace tessera::expr {

const std::vector<FunctionSpec>& TemporalFunctionSpecs();
const std::vector<FunctionSpec>& ListFunctionSpecs();

// While one exists on a thread, now(), current_timestamp and current_date give the instant it
// was created (the outermost one on that thread): the binder holds one for a whole filter, so
// every mention of the current time in one statement means the same instant.
class StatementClock {
 public:
  StatementClock();
  ~StatementClock();
  StatementClock(const StatementClock&) = delete;
  StatementClock& operator=(const StatementClock&) = delete;
  static std::optional<std::chrono::system_clock::time_point> Pinned();

 private:
  std::optional<std::chrono::system_clock::time_point> previous_;
};

// A datum as an array of `length` rows (a scalar is repeated).
arrow::Result<std::shared_ptr<arrow::Array>> DatumToArray(const arrow::Datum& datum,
                                                          int64_t length);

// The string value of a constant string argument; empty for null.
std::string ConstantString(const arrow::Datum& datum);

}  // namespace tessera::expr
