#include "errors.h"

#include <Python.h>

#include <map>
#include <string>

namespace nb = nanobind;

namespace tessera::python {
namespace {

// Kind name ("NotFound") → the Python class; filled once at import by tessera/errors.py. The
// references are kept for the life of the interpreter, as the classes are.
std::map<std::string, nb::object>& ErrorClasses() {
  static auto* classes = new std::map<std::string, nb::object>();
  return *classes;
}

void RaiseStatusError(const StatusError& error) {
  const auto& classes = ErrorClasses();
  auto found = classes.find(std::string(ErrorKindName(error.kind())));
  PyObject* type = found != classes.end() ? found->second.ptr() : PyExc_RuntimeError;
  nb::object instance = nb::steal(PyObject_CallFunction(type, "s", error.what()));
  if (!instance.is_valid()) return;  // the call raised; that exception stands
  if (error.kind() == ErrorKind::kCommitConflict) {
    nb::setattr(instance, "retryable", nb::bool_(error.retryable()));
  }
  PyErr_SetObject(type, instance.ptr());
}

}  // namespace

void BindErrors(nb::module_& module) {
  module.def(
      "_register_error_classes",
      [](nb::dict classes) {
        for (auto [name, type] : classes) {
          ErrorClasses()[nb::cast<std::string>(name)] = nb::borrow(type);
        }
      },
      "Called once by tessera.errors with {kind name: exception class}.");
  nb::register_exception_translator([](const std::exception_ptr& thrown, void*) {
    try {
      std::rethrow_exception(thrown);
    } catch (const StatusError& error) {
      RaiseStatusError(error);
    }
  });
}

}  // namespace tessera::python
