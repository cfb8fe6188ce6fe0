// Engine errors as Python exceptions (docs/python.md, "Errors").
//
// Native code never returns a failed arrow::Status to Python: Check / Unwrap throw StatusError,
// which nanobind's translator (registered by BindErrors) turns into the Python class that
// tessera/errors.py defines for the status's ErrorKind, with the engine's message unchanged.
// Throwing happens after any gil_scoped_release scope has ended, so the translator runs with
// the GIL held.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <nanobind/nanobind.h>

#include <exception>
#include <string>
#include <utility>

#include "tessera/status.h"

namespace tessera::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(const arrow::Status& status)
      : kind_(KindOf(status)), retryable_(IsRetryable(status)), message_(status.message()) {}
  const char* what() const noexcept override { return message_.c_str(); }
  ErrorKind kind() const { return kind_; }
  bool retryable() const { return retryable_; }

 private:
  ErrorKind kind_;
  bool retryable_;
  std::string message_;
};

inline void Check(const arrow::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T Unwrap(arrow::Result<T> result) {
  Check(result.status());
  return std::move(result).ValueUnsafe();
}

// Adds _native._register_error_classes(classes: dict[str, type]), which tessera/errors.py calls
// with one exception class per ErrorKind name, and the translator that uses them.
void BindErrors(nanobind::module_& module);

}  // namespace tessera::python
