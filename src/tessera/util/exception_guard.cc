#include "tessera/util/exception_guard.h"

#include <exception>
#include <new>
#include <utility>

#include "tessera/status.h"

namespace tessera::util {

namespace {

thread_local const std::string* current_operation = nullptr;

}  // namespace

OperationName::OperationName(std::string name)
    : name_(std::move(name)), previous_(current_operation) {
  current_operation = &name_;
}

OperationName::~OperationName() { current_operation = previous_; }

std::string_view CurrentOperation() {
  return current_operation != nullptr ? std::string_view(*current_operation)
                                      : std::string_view("a parallel task");
}

arrow::Status StatusOfCurrentException(std::string_view operation) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Error(ErrorKind::kResourceExhausted, "out of memory while ", operation,
                 "; free memory, or ask for less at once");
  } catch (const std::exception& exception) {
    return Error(ErrorKind::kInternal, operation, ": unexpected exception: ", exception.what());
  } catch (...) {
    return Error(ErrorKind::kInternal, operation, ": unexpected exception of unknown type");
  }
}

}  // namespace tessera::util
