// Unwrapping arrow::Result and arrow::Status where a gtest assertion cannot stand (helpers that
// return values, generators, lambdas): a failure throws std::runtime_error with the status
// text, which gtest reports as a failed test naming the error.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <stdexcept>
#include <utility>

namespace tessera::testing {

// The value of `result`; throws when it holds an error.
template <typename T>
T Check(arrow::Result<T> result) {
  if (!result.ok()) throw std::runtime_error(result.status().ToString());
  return std::move(result).ValueUnsafe();
}

// Throws when `status` is an error.
inline void Check(const arrow::Status& status) {
  if (!status.ok()) throw std::runtime_error(status.ToString());
}

}  // namespace tessera::testing
