// Turning exceptions into typed errors at the boundaries where they may arise.
//
// tessera returns arrow::Status everywhere (docs/design.md, "Error model"), but the standard
// library and Arrow's containers throw: std::bad_alloc when an allocation fails, std::length_error
// for a size past a container's maximum. GuardExceptions runs a body and returns what it throws as
// an error, so no exception leaves a worker thread (util::ParallelFor guards every loop body) or a
// library entry point that may allocate much (nearest-neighbour search, index builds):
//  - std::bad_alloc → ResourceExhausted "out of memory while <operation>";
//  - any other exception → Internal "<operation>: <what()>" (a bug: report it).
//
// The operation is a phrase ("searching 3 query vectors of column 'vector'"). An
// OperationName makes it the calling thread's current operation for its lifetime, and
// ParallelFor hands the caller's current operation to the workers of its loop, so an error a
// worker reports names what the user asked for, not the loop that failed.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace tessera::util {

// Sets the calling thread's current operation while alive (nested names replace the outer one
// and restore it when they end).
class OperationName {
 public:
  explicit OperationName(std::string name);
  ~OperationName();
  OperationName(const OperationName&) = delete;
  OperationName& operator=(const OperationName&) = delete;

 private:
  std::string name_;
  const std::string* previous_;
};

// The calling thread's current operation; "a parallel task" when none is set.
std::string_view CurrentOperation();

// The error for the exception being handled. Call only inside a catch block.
arrow::Status StatusOfCurrentException(std::string_view operation);

// Runs body() (returning arrow::Status or arrow::Result<T>); an exception it throws becomes
// the returned error.
template <typename Body>
auto GuardExceptions(std::string_view operation, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (...) {
    return StatusOfCurrentException(operation);
  }
}

}  // namespace tessera::util
